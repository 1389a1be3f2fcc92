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

    let bytes: [UInt8]
    /// The byte the reader is at.
    package internal(set) var offset: Int
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

    func notJSON(_ what: String) -> Failure {
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

    mutating func expect(_ wanted: Kind, _ words: String) throws(Failure) {
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
