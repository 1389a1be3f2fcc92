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

    public static func optional(_ s: String?) -> JSON { s.map { .string($0) } ?? .null }
    public static func optional(_ b: Bool?) -> JSON { b.map { .bool($0) } ?? .null }
    public static func optional(_ i: Int64?) -> JSON { i.map { .int($0) } ?? .null }

    /// Compact serialisation (one line).
    public var compact: String {
        var out = ""
        write(into: &out, indent: nil, level: 0)
        return out
    }

    /// Indented serialisation, two spaces.
    public var pretty: String {
        var out = ""
        write(into: &out, indent: "  ", level: 0)
        return out
    }

    private func write(into out: inout String, indent: String?, level: Int) {
        switch self {
        case .string(let s): JSON.escape(s, into: &out)
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? String(d) : "null"
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                item.write(into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                JSON.escape(key, into: &out)
                out += indent == nil ? ":" : ": "
                value.write(into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private func newline(_ out: inout String, _ indent: String?, _ level: Int) {
        guard let indent else { return }
        out += "\n"
        for _ in 0..<level { out += indent }
    }

    static func escape(_ s: String, into out: inout String) {
        out += "\""
        // Fast path: nothing to escape (0xE2 starts U+2028/U+2029, escaped for JavaScript readers).
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xE2 }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20 || c.value == 0x7F || c.value == 0x2028 || c.value == 0x2029:
                let hex = String(c.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
