/// A JSON value with ordered object keys.
///
/// Written by hand rather than with JSONEncoder: the documented formats need a fixed field
/// order, explicit `null`s (system entries have null verdicts; JSONEncoder drops nil), and
/// JSON Lines streamed one entry at a time.
public indirect enum JSON: Sendable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([JSON])
    case object([(String, JSON)])
    /// An array whose elements write themselves (`JSONObjectWriter`) while it is written, where
    /// it is and at its indentation: a report of tens of thousands of findings makes no `JSON`
    /// value for them and never holds them all (a long one is written a block at a time on the
    /// cores, `writeInBlocks`).
    case written(
        count: Int, element: @Sendable (_ index: Int, _ out: inout [UInt8], _ indent: Int?, _ level: Int) -> Void)

    /// The same value with every string and key made visible (`TerminalText.escapedKeepingLines`):
    /// for formats that web pages show as they are (SARIF in GitHub's code scanning), where a
    /// bidi override from a file name would reorder what is shown.
    package var visible: JSON {
        switch self {
        case .string(let s): return .string(TerminalText.escapedKeepingLines(s))
        case .array(let a): return .array(a.map(\.visible))
        case .object(let o): return .object(o.map { (TerminalText.escapedKeepingLines($0.0), $0.1.visible) })
        default: return self
        }
    }

    package static func optional(_ s: String?) -> JSON { s.map { .string($0) } ?? .null }
    package static func optional(_ b: Bool?) -> JSON { b.map { .bool($0) } ?? .null }
    package static func optional(_ i: Int64?) -> JSON { i.map { .int($0) } ?? .null }

    /// Compact serialisation (one line).
    package var compact: String { text(indent: nil) }

    /// Indented serialisation, two spaces.
    public var pretty: String { text(indent: 2) }

    /// `pretty` and a newline, made once (a report of a large container is tens of megabytes:
    /// not copied again to add the newline).
    package var prettyLine: String { text(indent: 2, newline: true) }

    private func text(indent: Int?, newline: Bool = false) -> String {
        var out: [UInt8] = []
        write(into: &out, indent: indent, level: 0)
        if newline { out.append(UInt8(ascii: "\n")) }
        return String(decoding: out, as: UTF8.self)
    }

    /// `prettyLine` handed to `sink` a part of about `chunk` bytes at a time, as it is made:
    /// a report tens of megabytes long is never held whole.
    package func writePrettyLine(chunk: Int = 1 << 20, to sink: ([UInt8]) -> Void) {
        var out: [UInt8] = []
        out.reserveCapacity(chunk + chunk / 4)
        withoutActuallyEscaping(sink) { sink in
            write(into: &out, indent: 2, level: 0) { out in
                guard out.count >= chunk else { return }
                sink(out)
                out.removeAll(keepingCapacity: true)
            }
            out.append(UInt8(ascii: "\n"))
            sink(out)
        }
    }

    /// `flush` is offered the buffer after each element of an array.
    fileprivate func write(into out: inout [UInt8], indent: Int?, level: Int, flush: ((inout [UInt8]) -> Void)? = nil) {
        switch self {
        case .string(let s): JSON.escape(s, into: &out)
        case .int(let i): out += String(i).utf8
        case .double(let d): out += (d.isFinite ? String(d) : "null").utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .null: out += "null".utf8
        case .array(let items):
            JSON.writeArray(count: items.count, into: &out, indent: indent, level: level, flush: flush) {
                items[$0].write(into: &$1, indent: indent, level: $2, flush: flush)
            }
        case .written(let count, let element) where count >= 2 * JSON.elementsPerBlock:
            JSON.writeInBlocks(count: count, element: element, into: &out, indent: indent, level: level, flush: flush)
        case .written(let count, let element):
            JSON.writeArray(count: count, into: &out, indent: indent, level: level, flush: flush) {
                element($0, &$1, indent, $2)
            }
        case .object(let fields):
            var o = JSONObjectWriter(&out, indent: indent, level: level)
            for (key, value) in fields {
                o.key(&out) { JSON.escape(key, into: &$0) }
                value.write(into: &out, indent: indent, level: level + 1, flush: flush)
            }
            o.end(&out)
        }
    }

    /// `item(i, &out, level)` writes element `i` at `level`.
    private static func writeArray(
        count: Int, into out: inout [UInt8], indent: Int?, level: Int,
        flush: ((inout [UInt8]) -> Void)?, _ item: (Int, inout [UInt8], Int) -> Void
    ) {
        if count == 0 {
            out += "[]".utf8
            return
        }
        out.append(UInt8(ascii: "["))
        for i in 0..<count {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSON.newline(&out, indent, level + 1)
            item(i, &out, level + 1)
            flush?(&out)
        }
        JSON.newline(&out, indent, level)
        out.append(UInt8(ascii: "]"))
    }

    /// How many elements of a long `.written` array one core writes at a time.
    static let elementsPerBlock = 1024

    /// A long `.written` array (a report's findings), laid out as `writeArray` lays it out: its
    /// elements written two blocks at a time, one per core, each into a buffer of its own, and
    /// the blocks added in order; the same bytes as one element after another.
    private static func writeInBlocks(
        count: Int, element: @escaping @Sendable (Int, inout [UInt8], Int?, Int) -> Void,
        into out: inout [UInt8], indent: Int?, level: Int, flush: ((inout [UInt8]) -> Void)?
    ) {
        out.append(UInt8(ascii: "["))
        var start = 0
        // Each block starts with room for as many bytes as the largest one before it.
        var room = 0
        while start < count {
            let runs = Parallel.runs(min(count - start, Parallel.workers * elementsPerBlock), parts: Parallel.workers)
                .map {
                    ($0.lowerBound + start)..<($0.upperBound + start)
                }
            let blocks = Parallel.map(runs.count) { [room] part -> [UInt8] in
                var block: [UInt8] = []
                block.reserveCapacity(room)
                for i in runs[part] {
                    if i > 0 { block.append(UInt8(ascii: ",")) }
                    JSON.newline(&block, indent, level + 1)
                    element(i, &block, indent, level + 1)
                }
                return block
            }
            for block in blocks {
                out += block
                room = max(room, block.count + block.count / 8)
            }
            flush?(&out)
            start = runs[runs.count - 1].upperBound
        }
        JSON.newline(&out, indent, level)
        out.append(UInt8(ascii: "]"))
    }

    fileprivate static func newline(_ out: inout [UInt8], _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        let width = indent * level
        if width <= spaces.count {
            spaces.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<width])) }
        } else {
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: width))
        }
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    /// Escapes a string into the buffer, byte by byte: `"`, `\\`, control characters, DEL and
    /// U+2028/U+2029 (for JavaScript readers); everything else is copied as UTF-8.
    package static func escape(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { escape(utf8: $0, into: &out) }
    }

    /// `escape` of text given as its UTF-8 bytes.
    fileprivate static func escape(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most strings need no escape: copied whole.
        if !bytes.contains(where: {
            $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == 0x7F || $0 == 0xE2
        }) {
            out.append(contentsOf: bytes)
        } else {
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0..<0x20, 0x7F:
                    out += "\\u00".utf8
                    out += ByteText.hexString([b]).utf8
                case 0xE2
                where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                    out += (bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8
                    i += 2
                default:
                    out.append(b)
                }
                i += 1
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether every byte is ASCII: eight at a time.
    fileprivate static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        var high: UInt64 = 0
        while i + 8 <= raw.count {
            high |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < raw.count {
            high |= UInt64(raw[i])
            i += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}

/// Writes one JSON object straight into a byte buffer, field by field, in the order they are
/// given (compact, or indented as at `level`), without making a `JSON` value (a boxed value per
/// field) first: for output written once per entry or finding. `JSON.object` is written through
/// it too, so both give the same bytes.
package struct JSONObjectWriter {
    private var fields = 0
    private let indent: Int?
    private let level: Int

    package init(_ out: inout [UInt8], indent: Int? = nil, level: Int = 0) {
        self.indent = indent
        self.level = level
        out.append(UInt8(ascii: "{"))
    }

    /// A key the caller writes as a literal: no byte of it needs escaping.
    private mutating func key(_ key: StaticString, _ out: inout [UInt8]) {
        self.key(&out) { out in
            out.append(UInt8(ascii: "\""))
            key.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// The separator before a field, the key `write` writes, and the colon after it.
    fileprivate mutating func key(_ out: inout [UInt8], _ write: (inout [UInt8]) -> Void) {
        if fields > 0 { out.append(UInt8(ascii: ",")) }
        fields += 1
        JSON.newline(&out, indent, level + 1)
        write(&out)
        out.append(UInt8(ascii: ":"))
        if indent != nil { out.append(UInt8(ascii: " ")) }
    }

    package mutating func string(_ key: StaticString, _ value: String?, _ out: inout [UInt8]) {
        self.key(key, &out)
        if let value { JSON.escape(value, into: &out) } else { out += "null".utf8 }
    }

    /// A string field written from `bytes` when they are all ASCII (no `String` made: a path's
    /// bytes, most often), and true; false, writing nothing, otherwise.
    package mutating func asciiString(_ key: StaticString, _ bytes: [UInt8], _ out: inout [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { b in
            guard JSON.isASCII(b) else { return false }
            self.key(key, &out)
            JSON.escape(utf8: b, into: &out)
            return true
        }
    }

    package mutating func int(_ key: StaticString, _ value: Int64?, _ out: inout [UInt8]) {
        self.key(key, &out)
        out += (value.map { String($0) } ?? "null").utf8
    }

    package mutating func bool(_ key: StaticString, _ value: Bool?, _ out: inout [UInt8]) {
        self.key(key, &out)
        out += (value.map { $0 ? "true" : "false" } ?? "null").utf8
    }

    package mutating func value(_ key: StaticString, _ value: JSON, _ out: inout [UInt8]) {
        self.key(key, &out)
        value.write(into: &out, indent: indent, level: level + 1)
    }

    package func end(_ out: inout [UInt8]) {
        if fields > 0 { JSON.newline(&out, indent, level) }
        out.append(UInt8(ascii: "}"))
    }
}
