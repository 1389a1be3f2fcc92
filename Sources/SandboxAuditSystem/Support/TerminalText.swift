/// Text from the container (file names, attribute values, identity plists) made safe for a
/// terminal or a rendered document: control characters (C0, DEL, C1) and the Unicode bidi
/// overrides are written as visible escapes (`\x1B`, `\u{202E}`), so a hostile name cannot move
/// the cursor, recolour or rewrite the report, or reorder what is shown.
public enum TerminalText {
    public static func escaped(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: needsEscape) else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 8)
        for u in s.unicodeScalars {
            if !needsEscape(u) {
                out.unicodeScalars.append(u)
            } else if u.value < 0x80 {
                out += "\\x" + ByteText.hex(UInt8(u.value))
            } else {
                out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out
    }

    /// `escaped` line by line: line breaks are kept (a message of several lines), every other
    /// control character and bidi override becomes a visible escape.
    public static func escapedKeepingLines(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0 != "\n" && needsEscape($0) }) else { return s }
        return s.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(
            separator: "\n")
    }

    package static func needsEscape(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
