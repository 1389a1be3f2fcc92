import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// The "against the backup" section of every report format (`scan --against-backup`): the
/// counts, the domains the backup lacks, then every mismatch in domain then path order.
/// Documented in docs/json-format.md (`backupComparison`).
enum BackupComparisonReport {
    /// The Markdown section lists this many mismatches (a pull-request comment has a size limit);
    /// every one is also a `backup-prediction-mismatch` finding and in the JSON report.
    static let markdownRows = 50

    static func headline(_ c: BackupComparison) -> String {
        "\(c.paths) path(s) compared, \(c.agreeing) agreeing, \(c.mismatches.count) mismatch(es)"
    }

    static func missingLine(_ domain: String) -> String {
        "the backup holds no \(domain) domain: every path predicted for it is a mismatch"
    }

    static func text(_ c: BackupComparison, bold: (String) -> String) -> [String] {
        var lines = [bold("against the backup") + " \(TerminalText.escaped(c.backup)): " + headline(c)]
        for d in c.missingDomains { lines.append("  " + TerminalText.escaped(missingLine(d))) }
        for m in c.mismatches {
            lines.append(
                "  \(m.kind.rawValue)  \(TerminalText.escaped(m.domain)): \(TerminalText.escaped(m.path.display))")
            lines.append("        \(TerminalText.escaped(m.line))")
        }
        return lines + [""]
    }

    static func markdown(_ c: BackupComparison) -> String {
        let cell = MarkdownReport.cell
        var md = "### Against the backup\n\n\(cell(c.backup)): " + headline(c) + ".\n\n"
        for d in c.missingDomains { md += "- \(cell(missingLine(d)))\n" }
        if !c.missingDomains.isEmpty { md += "\n" }
        guard !c.mismatches.isEmpty else { return md }
        md += "| domain | path | mismatch | why |\n|---|---|---|---|\n"
        for m in c.mismatches.prefix(markdownRows) {
            md += "| \(cell(m.domain)) | \(cell(m.path.display)) | \(cell(m.kind.rawValue)) | \(cell(m.line)) |\n"
        }
        if c.mismatches.count > markdownRows {
            md +=
                "\n… \(c.mismatches.count - markdownRows) more mismatch(es): see the JSON report "
                + "(`backupComparison`).\n"
        }
        return md + "\n"
    }

    static func html(_ c: BackupComparison) -> String {
        let x = XMLText.escape
        var s = "<section><h2>Against the backup</h2><p><code>\(x(c.backup))</code>: \(x(headline(c))).</p>"
        if !c.missingDomains.isEmpty {
            s += "<ul>" + c.missingDomains.map { "<li>\(x(missingLine($0)))</li>" }.joined() + "</ul>"
        }
        if !c.mismatches.isEmpty {
            s +=
                "<div class=\"tw\"><table "
                + "class=\"sortable\"><thead><tr><th>domain</th><th>path</th><th>mismatch</th><th>why</th></tr></"
                + "thead><tbody>"
            for m in c.mismatches {
                s +=
                    "<tr><td>\(x(m.domain))</td><td><code>\(x(m.path.display))</code></td><td>\(x(m.kind.rawValue))</"
                    + "td><td>\(x(m.line))</td></tr>"
            }
            s += "</tbody></table></div>"
        }
        return s + "</section>\n"
    }

    static func json(_ c: BackupComparison) -> JSON {
        .object([
            ("backup", .string(c.backup)),
            ("paths", .int(Int64(c.paths))),
            ("agreeing", .int(Int64(c.agreeing))),
            (
                "mismatches",
                .array(
                    c.mismatches.map { m in
                        .object(
                            JSONReport.path(m.path) + [
                                ("domain", .string(m.domain)),
                                ("kind", .string(m.kind.rawValue)),
                                (
                                    "predicted",
                                    .object([
                                        ("backedUp", .bool(m.predicted.present)), ("size", .optional(m.predicted.size)),
                                    ])
                                ),
                                (
                                    "actual",
                                    .object([("inBackup", .bool(m.actual.present)), ("size", .optional(m.actual.size))])
                                ),
                                ("why", .string(m.why)),
                            ])
                    })
            ),
            ("missingDomains", .array(c.missingDomains.map { .string($0) })),
        ])
    }
}
