import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// The findings a `suppress:` entry of the policy file covers, as each report shows them: not
/// among the findings and not counted toward the fail level, but listed with the entry's reason
/// (and its `until` day), so that what is accepted stays visible.
enum SuppressionReport {
    /// The entry as JSON (`suppression` of a suppressed finding, docs/json-format.md).
    static func json(_ s: Suppression) -> JSON {
        .object([
            ("rule", .string(s.ruleId)), ("path", .string(s.glob.pattern)), ("reason", .string(s.reason)),
            ("until", .optional(s.until?.description)),
        ])
    }

    /// `reason (until 2026-12-31)`.
    static func why(_ s: Suppression) -> String { s.reason + (s.until.map { " (until \($0))" } ?? "") }

    /// The text report's section: a count, then one line per finding.
    static func text(_ result: AuditResult, bold: (String) -> String) -> [String] {
        guard !result.suppressed.isEmpty else { return [] }
        var lines = [
            bold("suppressed")
                + ": \(result.suppressed.count) finding(s), by suppress: in the policy file (not counted toward the "
                + "fail level)"
        ]
        for s in result.suppressed {
            let f = s.finding
            lines.append(
                "  \(f.severity.rawValue) \(f.ruleId)"
                    + (result.subject(f).map { "  " + TerminalText.escaped($0) } ?? "") + ": "
                    + TerminalText.escaped(why(s.suppression)))
        }
        return lines
    }

    /// How many the Markdown report lists; the rest are counted.
    static let markdownListLength = 20

    /// The Markdown report's paragraph: a count and the first `markdownListLength`.
    static func markdown(_ result: AuditResult, cell: (String) -> String) -> String {
        guard !result.suppressed.isEmpty else { return "" }
        var md =
            "\n\n**Suppressed** (\(result.suppressed.count), by `suppress:` in the policy file; not counted toward "
            + "the fail level):\n\n"
        for s in result.suppressed.prefix(markdownListLength) {
            md +=
                "- `\(s.finding.ruleId)`" + (result.subject(s.finding).map { " " + cell($0) } ?? "") + ": "
                + cell(why(s.suppression)) + "\n"
        }
        if result.suppressed.count > markdownListLength {
            md += "- … \(result.suppressed.count - markdownListLength) more\n"
        }
        return md
    }

    /// SARIF §3.35: a suppressed result carries `suppressions`, each `kind` `external` (it is
    /// stated outside the analysed files, in the policy file) with the reason as `justification`.
    static func sarif(_ s: Suppression) -> (String, JSON) {
        var properties: [(String, JSON)] = [("rule", .string(s.ruleId)), ("path", .string(s.glob.pattern))]
        if let u = s.until { properties.append(("until", .string(u.description))) }
        return (
            "suppressions",
            .array([
                .object([
                    ("kind", .string("external")),
                    ("justification", .string(s.reason)),
                    ("properties", .object(properties)),
                ])
            ])
        )
    }
}
