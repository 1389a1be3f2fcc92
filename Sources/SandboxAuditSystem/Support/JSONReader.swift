/// A bounded pull reader of JSON text (RFC 8259), for documents whose shape the caller knows: the
/// caller asks for the value it expects where it expects it (an object's keys one by one, an
/// array's elements, a string, an exact integer, a boolean) and the reader checks the text as it
/// goes, in one pass, building nothing but what the caller keeps. A value of another type, text
/// that is not JSON, a number that is not an integer in range: a `Failure` naming the field as
/// JSON paths are written (`files[3].size`) and the byte offset.
///
/// Why not Foundation: `JSONSerialization` builds a tree of boxed objects (40–67 times the file's
/// size) and reads 2^64 as 0 and `true` as 1; `JSONDecoder` keeps a map of the whole text (about
/// 3.5 times the file) before the first value is decoded. A 200,000-file baseline (55 MB) then
/// costs hundreds of megabytes; read here it costs its own bytes and what the caller keeps.
package struct JSONReader {
    /// Deeper nesting is refused (the reader's recursion is bounded by it).
    package static let maximumDepth = 512

    /// What is wrong, where: `field` is the JSON path of the value (`files[3].size`, or
    /// `the document`), `offset` the byte it was found at.
    package struct Failure: Error, CustomStringConvertible, Sendable {
        package let field: String
        package let message: String
        package let offset: Int
        /// The text is not JSON (rather than a value of another type or range).
        package var syntax = false

        package init(field: String, message: String, offset: Int, syntax: Bool = false) {
            self.field = field
            self.message = message
            self.offset = offset
            self.syntax = syntax
        }
        /// `files[3].size is not an integer …` (text that is not JSON says where it stopped).
        package var description: String { "\(field) \(message)" }
    }

    /// A key as it was given, or where it was read (`object(_:_:)` with a key table: the key's
    /// text is made only when a message names it).
    private enum Component {
        case key(String)
        case keyAt(Int)
        case element(Int)
    }

    private let bytes: [UInt8]
    /// The byte the reader is at.
    package private(set) var offset: Int
    private var path: [Component] = []

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        offset = 0
    }

    /// The field the reader is in, as JSON paths are written (`files[3].size`).
    package var field: String {
        var out = ""
        for c in path {
            switch c {
            case .key(let k): out += (out.isEmpty ? "" : ".") + k
            case .keyAt(let offset):
                var r = self
                r.offset = offset
                out += (out.isEmpty ? "" : ".") + ((try? r.rawString()) ?? "?")
            case .element(let i): out += "[\(i)]"
            }
        }
        return out.isEmpty ? "the document" : TerminalText.escaped(out)
    }

    /// A failure at the reader's field and offset.
    package func failure(_ message: String) -> Failure { Failure(field: field, message: message, offset: offset) }

    private func notJSON(_ what: String) -> Failure {
        let seen = offset < bytes.count ? "0x\(ByteText.hex(bytes[offset]))" : "the end of the file"
        return Failure(
            field: "it",
            message:
                "is not valid JSON: \(what) at byte \(offset) (found \(seen)\(path.isEmpty ? "" : ", in \(field)"))",
            offset: offset, syntax: true)
    }

    // MARK: Kinds

    package enum Kind: Sendable { case object, array, string, number, bool, null }

    /// The kind of the next value (white space skipped); text that cannot begin a value fails.
    package mutating func kind() throws(Failure) -> Kind {
        skipSpace()
        guard offset < bytes.count else { throw notJSON("a value was expected") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw notJSON("a value was expected")
        }
    }

    private func described(_ k: Kind) -> String {
        switch k {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "true or false"
        case .null: return "null"
        }
    }

    private mutating func expect(_ wanted: Kind, _ words: String) throws(Failure) {
        let k = try kind()
        guard k == wanted else { throw failure(k == .null ? "is null" : "is not \(words)") }
    }

    // MARK: Containers

    /// Reads an object: `body` is called with each key and must read (or `skip`) its value.
    /// Fails unless the value is an object.
    package mutating func object(_ body: (inout JSONReader, String) throws -> Void) throws {
        try members(
            { r in
                let key = try r.rawString()
                return (key, .key(key))
            }, body)
    }

    /// Reads an object whose keys the caller knows: `body` is called with the index in `keys` of
    /// each key (nil for a key not in it) and must read (or `skip`) its value. The keys are
    /// matched on their bytes, no `String` made for them. Fails unless the value is an object.
    package mutating func object(_ keys: JSONKeys, _ body: (inout JSONReader, Int?) throws -> Void) throws {
        try members(
            { r in
                let start = r.offset
                return (try r.known(keys), .keyAt(start))
            }, body)
    }

    /// An object's members: `readKey` reads each key at its opening quote (and says how the
    /// path names it), `body` its value.
    @inline(__always) private mutating func members<Key>(
        _ readKey: (inout JSONReader) throws -> (Key, Component),
        _ body: (inout JSONReader, Key) throws -> Void
    ) throws {
        try expect(.object, "an object")
        guard path.count < Self.maximumDepth else { throw failure("nests deeper than \(Self.maximumDepth) levels") }
        offset += 1
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return
        }
        while true {
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw notJSON("a key was expected") }
            let (key, component) = try readKey(&self)
            skipSpace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw notJSON("':' was expected") }
            offset += 1
            path.append(component)
            try body(&self, key)
            path.removeLast()
            skipSpace()
            guard offset < bytes.count else { throw notJSON("',' or '}' was expected") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            if bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return
            }
            throw notJSON("',' or '}' was expected")
        }
    }

    /// The string at the reader (its opening quote), checked as `rawString` checks it, matched
    /// against `table`: its index there, nil for another string.
    private mutating func known(_ table: JSONKeys) throws(Failure) -> Int? {
        let start = offset + 1
        let (end, ascii) = plainRun(from: start)
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            if !ascii, ByteText.utf8String(bytes[start..<end]) == nil {
                offset = start
                throw notJSON("a string holds bytes that are not UTF-8")
            }
            offset = end + 1
            return table.index(of: bytes[start..<end])
        }
        var out: [UInt8] = []
        try stringBytes(appendingTo: &out)
        return table.index(of: out[...])
    }

    /// A string that is most often one of `table`'s: its index there, or (another string) the
    /// string itself.
    package mutating func string(oneOf table: JSONKeys) throws(Failure) -> JSONKeys.Match {
        try expect(.string, "a string")
        let start = offset
        if let i = try known(table) { return .known(i) }
        offset = start
        return .other(try rawString())
    }

    /// Reads an array: `body` is called with each element's index and must read (or `skip`) it.
    /// Fails unless the value is an array.
    package mutating func array(_ body: (inout JSONReader, Int) throws -> Void) throws {
        try expect(.array, "an array")
        guard path.count < Self.maximumDepth else { throw failure("nests deeper than \(Self.maximumDepth) levels") }
        offset += 1
        skipSpace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return
        }
        var index = 0
        while true {
            path.append(.element(index))
            try body(&self, index)
            path.removeLast()
            index += 1
            skipSpace()
            guard offset < bytes.count else { throw notJSON("',' or ']' was expected") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            if bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return
            }
            throw notJSON("',' or ']' was expected")
        }
    }

    /// Checks the text of any value and goes past it.
    package mutating func skip() throws {
        switch try kind() {
        case .object: try object { r, _ in try r.skip() }
        case .array: try array { r, _ in try r.skip() }
        case .string: _ = try rawString()
        case .number: _ = try numberText()
        case .bool: _ = try bool()
        case .null: _ = try null()
        }
    }

    /// The index of the first byte of `text` that JSON text never holds (a control byte other
    /// than tab, line feed and carriage return: inside strings they are escaped); nil when none.
    package static func firstForbiddenByte(in text: ArraySlice<UInt8>) -> Int? {
        var found: Int?
        text.withUnsafeBufferPointer { b in
            let raw = UnsafeRawBufferPointer(b)
            var i = 0
            // Eight bytes at a time: a word with no byte below 0x20 holds none (each byte's
            // high bit is set in (x - 0x20…) & ~x only where a byte is below 0x20). Most words
            // of a document are such; the others (a line's end) are looked at byte by byte.
            while i + 8 <= raw.count {
                let x = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if (x &- 0x2020_2020_2020_2020) & ~x & 0x8080_8080_8080_8080 != 0 {
                    for j in i..<(i + 8) where b[j] < 0x20 && b[j] != 0x09 && b[j] != 0x0A && b[j] != 0x0D {
                        found = text.startIndex + j
                        return
                    }
                }
                i += 8
            }
            for j in i..<b.count where b[j] < 0x20 && b[j] != 0x09 && b[j] != 0x0A && b[j] != 0x0D {
                found = text.startIndex + j
                return
            }
        }
        return found
    }

    /// The index of the first byte of `text` that is not JSON white space; nil when none.
    package static func firstNonSpace(in text: ArraySlice<UInt8>) -> Int? {
        var found: Int?
        text.withUnsafeBufferPointer { b in
            for i in 0..<b.count where b[i] != 0x20 && b[i] != 0x09 && b[i] != 0x0A && b[i] != 0x0D {
                found = text.startIndex + i
                return
            }
        }
        return found
    }

    /// The text from `start` to the reader's offset (a number's, for a message).
    package func text(from start: Int) -> String {
        let t = String(decoding: bytes[start..<max(start, offset)], as: UTF8.self)
        return t.count > 40 ? String(t.prefix(40)) + "…" : t
    }

    /// Goes to `offset` (a value's first byte, recorded before) and reads it there as the value of
    /// the document's key `key`; then comes back.
    package mutating func reading<T>(at offset: Int, key: String, _ body: (inout JSONReader) throws -> T) rethrows -> T
    {
        let (savedOffset, savedPath) = (self.offset, path)
        self.offset = offset
        path = [.key(key)]
        defer {
            self.offset = savedOffset
            path = savedPath
        }
        return try body(&self)
    }

    /// A failure naming `key` of the object the reader is in (a key that is missing).
    package func failure(key: String, _ message: String) -> Failure {
        let f = field
        return Failure(field: f == "the document" ? key : f + "." + key, message: message, offset: offset)
    }

    /// After the document's value: nothing but white space may follow.
    package mutating func end() throws(Failure) {
        skipSpace()
        guard offset == bytes.count else { throw notJSON("the end of the file was expected") }
    }

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

    private mutating func rawString() throws(Failure) -> String {
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
    private func plainRun(from start: Int) -> (end: Int, ascii: Bool) {
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

    private mutating func stringBytes(appendingTo out: inout [UInt8]) throws(Failure) {
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
    private mutating func numberText() throws(Failure) -> (negative: Bool, digits: [UInt8], exponent: Int) {
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

    private mutating func skipSpace() {
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

/// The keys (or the strings) a reader expects at a place, as bytes: `JSONReader.object(_:_:)`
/// and `string(oneOf:)` match what they read against them without making a `String`.
package struct JSONKeys: Sendable {
    private let keys: [[UInt8]]

    package init(_ keys: [String]) { self.keys = keys.map { Array($0.utf8) } }

    /// What `string(oneOf:)` read.
    package enum Match: Sendable, Equatable {
        case known(Int)
        case other(String)
    }

    /// The index of the key whose bytes `bytes` are, nil when none is.
    package func index(of bytes: ArraySlice<UInt8>) -> Int? {
        for i in keys.indices where keys[i].count == bytes.count && Bytes.compare(bytes, keys[i]) == 0 { return i }
        return nil
    }
}
