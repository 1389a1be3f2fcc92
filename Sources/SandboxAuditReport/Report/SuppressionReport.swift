import SandboxAuditCore
import SandboxAuditMeasure
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
    static func text(_ report: ScanReport, bold: (String) -> String) -> [String] {
        guard !report.suppressed.isEmpty else { return [] }
        var lines = [
            bold("suppressed")
                + ": \(report.suppressed.count) finding(s), by suppress: in the policy file (not counted toward the "
                + "fail level)"
        ]
        for s in report.suppressed {
            let f = s.finding
            lines.append(
                "  \(f.severity.rawValue) \(f.ruleId)"
                    + (s.subject.map { "  " + TerminalText.escaped($0) } ?? "") + ": "
                    + TerminalText.escaped(s.suppression.map(why) ?? ""))
        }
        return lines
    }

    /// How many the Markdown report lists; the rest are counted.
    static let markdownListLength = 20

    /// The Markdown report's paragraph: a count and the first `markdownListLength`.
    static func markdown(_ report: ScanReport, cell: (String) -> String) -> String {
        guard !report.suppressed.isEmpty else { return "" }
        var md =
            "\n\n**Suppressed** (\(report.suppressed.count), by `suppress:` in the policy file; not counted toward "
            + "the fail level):\n\n"
        for s in report.suppressed.prefix(markdownListLength) {
            md +=
                "- `\(s.finding.ruleId)`" + (s.subject.map { " " + cell($0) } ?? "") + ": "
                + cell(s.suppression.map(why) ?? "") + "\n"
        }
        if report.suppressed.count > markdownListLength {
            md += "- … \(report.suppressed.count - markdownListLength) more\n"
        }
        return md
    }

    /// The HTML report's section: a count, then a table of the findings with their reasons.
    static func html(_ report: ScanReport) -> String {
        guard !report.suppressed.isEmpty else { return "" }
        let x = XMLText.escape
        return
            "<section><h2>Suppressed</h2><p class=\"meta\">\(report.suppressed.count) finding(s), by "
            + "<code>suppress:</code> in the policy file (not counted toward the fail level).</p><div "
            + "class=\"tw\"><table class=\"sortable\"><thead><tr><th>severity</th><th>rule</th><th>path</th><th>"
            + "reason</th></tr></thead><tbody>"
            + report.suppressed.map { s in
                "<tr><td>\(s.finding.severity.rawValue)</td><td><code>\(x(s.finding.ruleId))</code></td><td "
                    + "class=\"path\">\(s.subject.map { "<code>\(x($0))</code>" } ?? "")</td><td>"
                    + "\(x(s.suppression.map(why) ?? ""))</td></tr>"
            }.joined() + "</tbody></table></div></section>\n"
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
