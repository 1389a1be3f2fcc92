extension JSONReader {
    // MARK: Scalars

    /// True (and past it) when the next value is `null`; false, reading nothing, otherwise.
    package mutating func null() throws(Failure) -> Bool {
        guard try kind() == .null else { return false }
        try literal("null")
        return true
    }

    /// `value` read unless the next value is `null` (nil).
    package mutating func optional<T>(_ value: (inout JSONReader) throws -> T) throws -> T? {
        if try null() { return nil }
        return try value(&self)
    }

    package mutating func bool() throws(Failure) -> Bool {
        try expect(.bool, "true or false")
        if bytes[offset] == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let n = word.utf8CodeUnitCount
        guard offset + n <= bytes.count else { throw notJSON("\(word) was expected") }
        var i = 0
        var same = true
        word.withUTF8Buffer { w in
            while i < n {
                if w[i] != bytes[offset + i] { same = false }
                i += 1
            }
        }
        guard same else { throw notJSON("\(word) was expected") }
        offset += n
    }

    package mutating func string() throws(Failure) -> String {
        try expect(.string, "a string")
        return try rawString()
    }

    /// The string's UTF-8 bytes appended to `out` (its escapes decoded).
    package mutating func string(appendingTo out: inout [UInt8]) throws(Failure) {
        try expect(.string, "a string")
        try stringBytes(appendingTo: &out)
    }

    mutating func rawString() throws(Failure) -> String {
        // Most strings have no escape and are short: decoded from the text itself.
        let start = offset + 1
        let (end, ascii) = plainRun(from: start)
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            offset = end + 1
            if ascii { return String(decoding: bytes[start..<end], as: UTF8.self) }
            guard let s = ByteText.utf8String(bytes[start..<end]) else {
                offset = start
                throw notJSON("a string holds bytes that are not UTF-8")
            }
            return s
        }
        var out: [UInt8] = []
        try stringBytes(appendingTo: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// From `start`, the index of the first byte that ends a run of plain string bytes (a quote,
    /// a backslash, a control byte, or the end), and whether the run is all ASCII.
    func plainRun(from start: Int) -> (end: Int, ascii: Bool) {
        var i = start
        var ascii = true
        bytes.withUnsafeBufferPointer { b in
            while i < b.count {
                let c = b[i]
                if c == 0x22 || c == 0x5C || c < 0x20 { return }
                if c >= 0x80 { ascii = false }
                i += 1
            }
        }
        return (i, ascii)
    }

    mutating func stringBytes(appendingTo out: inout [UInt8]) throws(Failure) {
        offset += 1
        let base = out.count
        var runStart = offset
        var ascii = true
        func flush(_ out: inout [UInt8], _ bytes: [UInt8], _ from: Int, _ to: Int) {
            if to > from { out.append(contentsOf: bytes[from..<to]) }
        }
        while offset < bytes.count {
            let run = plainRun(from: offset)
            if !run.ascii { ascii = false }
            offset = run.end
            guard offset < bytes.count else { break }
            let b = bytes[offset]
            if b == UInt8(ascii: "\"") {
                flush(&out, bytes, runStart, offset)
                if !ascii, ByteText.utf8String(out[base...]) == nil {
                    throw notJSON("a string holds bytes that are not UTF-8")
                }
                offset += 1
                return
            }
            if b < 0x20 { throw notJSON("a control byte in a string") }
            if b == UInt8(ascii: "\\") {
                flush(&out, bytes, runStart, offset)
                offset += 1
                guard offset < bytes.count else { break }
                switch bytes[offset] {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4(at: offset + 1)
                    offset += 4
                    if (0xD800..<0xDC00).contains(scalar) {
                        // A high surrogate is followed by `\u` and a low one.
                        guard offset + 2 < bytes.count, bytes[offset + 1] == UInt8(ascii: "\\"),
                            bytes[offset + 2] == UInt8(ascii: "u")
                        else {
                            throw notJSON("a \\u escape is half of a surrogate pair")
                        }
                        let low = try hex4(at: offset + 3)
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw notJSON("a \\u escape is half of a surrogate pair")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        offset += 6
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw notJSON("a \\u escape is half of a surrogate pair")
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw notJSON("an escape in a string is not one JSON has")
                }
                offset += 1
                runStart = offset
                continue
            }
            offset += 1
        }
        throw notJSON("a string is not closed")
    }

    private func hex4(at i: Int) throws(Failure) -> UInt32 {
        guard i + 4 <= bytes.count else { throw notJSON("a \\u escape is cut short") }
        var v: UInt32 = 0
        for j in i..<(i + 4) {
            let b = bytes[j]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            default: throw notJSON("a \\u escape is not four hex digits")
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    /// An integer written in any of JSON's ways (`40`, `4e1`, `40.0`), exactly: a number with a
    /// fraction, or outside -2^63…2^63−1, fails naming its field and its text.
    package mutating func integer() throws(Failure) -> Int64 {
        let k = try kind()
        guard k == .number else { throw failure(k == .null ? "is null" : "is not an integer") }
        if let v = plainInteger() { return v }
        let start = offset
        let (negative, digits, exponent) = try numberText()
        func refuse(_ r: JSONReader) -> Failure {
            let text = String(decoding: r.bytes[start..<r.offset], as: UTF8.self)
            return Failure(
                field: r.field,
                message:
                    "is not an integer from -2^63 to 2^63−1 "
                    + "(\(text.count > 40 ? String(text.prefix(40)) + "…" : text))",
                offset: start)
        }
        // digits × 10^exponent, digits without leading zeros.
        var d = digits[...]
        while let f = d.first, f == 0 { d = d.dropFirst() }
        if d.isEmpty { return 0 }
        var e = exponent
        while e < 0, let l = d.last, l == 0 {
            d = d.dropLast()
            e += 1
        }
        guard e >= 0, d.count + e <= 19 else { throw refuse(self) }
        var magnitude: UInt64 = 0
        for x in d { magnitude = magnitude * 10 + UInt64(x) }
        for _ in 0..<e { magnitude *= 10 }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { throw refuse(self) }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { throw refuse(self) }
        return Int64(magnitude)
    }

    /// Goes past a number, checking its grammar: its sign, its significant digits (at most 40
    /// kept: more make no integer in range) and its decimal exponent.
    mutating func numberText() throws(Failure) -> (negative: Bool, digits: [UInt8], exponent: Int) {
        var negative = false
        if bytes[offset] == UInt8(ascii: "-") {
            negative = true
            offset += 1
        }
        var digits: [UInt8] = []
        var dropped = 0
        func isDigit(_ i: Int) -> Bool {
            i < bytes.count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9")
        }
        guard isDigit(offset) else { throw notJSON("a digit was expected") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            while isDigit(offset) {
                if digits.count < 40 { digits.append(bytes[offset] - UInt8(ascii: "0")) } else { dropped += 1 }
                offset += 1
            }
        }
        var exponent = dropped
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard isDigit(offset) else { throw notJSON("a digit was expected") }
            while isDigit(offset) {
                if digits.count < 40 {
                    digits.append(bytes[offset] - UInt8(ascii: "0"))
                    exponent -= 1
                } else if bytes[offset] != UInt8(ascii: "0") {
                    // A non-zero digit past what is kept: not an integer. Kept as a 1 that cannot be dropped.
                    digits.append(1)
                    exponent -= 1
                }
                offset += 1
            }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            var negativeExponent = false
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                negativeExponent = bytes[offset] == UInt8(ascii: "-")
                offset += 1
            }
            guard isDigit(offset) else { throw notJSON("a digit was expected") }
            var e = 0
            while isDigit(offset) {
                // Bounded: past a million the number is 0 or out of range whatever follows.
                if e < 1_000_000 { e = e * 10 + Int(bytes[offset] - UInt8(ascii: "0")) }
                offset += 1
            }
            exponent += negativeExponent ? -e : e
        }
        return (negative, digits, exponent)
    }

    mutating func skipSpace() {
        var i = offset
        bytes.withUnsafeBufferPointer { b in
            while i < b.count {
                let c = b[i]
                guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
                i += 1
            }
        }
        offset = i
    }

    /// A plain integer (`-`, then 1 to 18 digits without a leading zero, then no fraction or
    /// exponent) read at once; nil, reading nothing, for any other number.
    private mutating func plainInteger() -> Int64? {
        var i = offset
        var value: Int64 = 0
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let first = i
        let done: Bool = bytes.withUnsafeBufferPointer { b in
            while i < b.count, i - first < 18, b[i] >= 0x30, b[i] <= 0x39 {
                value = value * 10 + Int64(b[i] - 0x30)
                i += 1
            }
            let digits = i - first
            guard digits > 0, !(digits > 1 && b[first] == 0x30) else { return false }
            if i < b.count {
                let c = b[i]
                if (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: ".") || c == UInt8(ascii: "e")
                    || c == UInt8(ascii: "E")
                {
                    return false
                }
            }
            return true
        }
        guard done else { return nil }
        offset = i
        return negative ? -value : value
    }
}
