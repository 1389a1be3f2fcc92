import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// Escaping for XML and HTML text and attributes: `&`, `<`, `>`, quotes; control characters
/// XML 1.0 cannot carry become U+FFFD (`\xHH` path escapes keep the bytes visible anyway); C1
/// controls and bidi overrides become visible escapes (`\u{202E}`), so a name cannot reorder a page.
enum XMLText {
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            case let c where c.value < 0x20 || (0xFFFE...0xFFFF).contains(c.value): out += "\u{FFFD}"
            // C1 controls and the bidi overrides: visible escapes, as TerminalText writes them.
            case let c where TerminalText.needsEscape(c): out += TerminalText.escaped(String(c))
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
