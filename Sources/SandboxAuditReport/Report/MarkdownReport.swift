import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// Markdown for a pull-request comment or a GitHub job summary: headline numbers, budgets with
/// use, baseline deltas, counts by rule (each linked to its section of docs/rules.md), and the
/// most severe findings (folded past the first 20) as many as fit in `maxLength`.
enum MarkdownReport {
    static let unfolded = 20
    /// GitHub refuses comment bodies longer than 65,536 characters; counted here in UTF-8 bytes,
    /// which is never fewer than characters, so the whole report always fits.
    static let maxLength = 65_536

    /// The closing line that names the sections with nothing in them (none: no line), where a
    /// heading and "None." each would be.
    static func nothingIn(_ sections: [String]) -> String {
        sections.isEmpty ? "" : "*Nothing in: \(sections.map(cell).joined(separator: ", ")).*\n"
    }

    /// Escapes text for a GitHub-flavoured Markdown table cell.
    static func cell(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "|": out += "&#124;"
            case "\n", "\r": out += "<br>"
            case "\\", "`", "*", "_", "[", "]", "#", "~", "!": out += "\\" + String(ch)
            default:
                // Control characters from the container, as visible escapes (\x1B → \\x1B).
                for c in TerminalText.escaped(String(ch)) { out += c == "\\" && ch != "\\" ? "\\\\" : String(c) }
            }
        }
        return out
    }

    static func render(_ report: ScanReport) -> String {
        let (result, summary, failOn, failed) = (report.result, report.summary, report.failOn, report.failed)
        var md = "## sandbox-audit: \(cell(summary.identity)) \(failed ? "❌" : "✅")\n\n"
        if let b = summary.backup { md += "Read from a \(cell(b)).\n\n" }
        if !result.complete { md += "> **⚠️ \(cell(result.incompleteSummary))**\n\n" }
        md += "\(summary.counts); fails at \(failOn.rawValue).\n\n"
        let delta: (Int64) -> String = { $0 == 0 ? "±0 B" : ($0 > 0 ? "+" : "") + ByteSize.format($0) }
        md +=
            "| | size |" + (result.comparison != nil ? " since the baseline |" : "") + "\n|---|---:|"
            + (result.comparison != nil ? "---:|" : "") + "\n"
        let domains = result.isMultiDomain ? " (\(result.inventories.count) domains)" : ""
        md +=
            "| Backup footprint\(domains) | **\(ByteSize.format(result.backupFootprint))** |"
            + (result.comparison.map { " \(delta($0.footprintDelta)) |" } ?? "") + "\n"
        md +=
            "| Kept on update | \(ByteSize.format(result.keptOnUpdate)) |" + (result.comparison != nil ? " |" : "")
            + "\n"
        md +=
            "| Kept on restore | \(ByteSize.format(result.keptOnRestore)) |" + (result.comparison != nil ? " |" : "")
            + "\n"
        if result.isMultiDomain {
            for i in result.inventories {
                md +=
                    "| \(cell(i.domain)) backup | \(ByteSize.format(i.backupFootprint)) |"
                    + (result.comparison != nil ? " |" : "") + "\n"
            }
        }
        if let cmp = result.comparison {
            md += "| Churn (new or changed, backed up) | \(ByteSize.format(cmp.churn)) | |\n"
        }
        md += "\n"

        if !result.budgets.isEmpty {
            md += "### Budgets\n\n| budget | use | % | |\n|---|---:|---:|---|\n"
            for r in result.budgets {
                guard let m = r.measured, let p = r.percent else {
                    if case .domain = r.budget.scope {
                        md += "| \(cell(r.budget.name)) | not measured | | domain not scanned |\n"
                        continue
                    }
                    md += "| \(cell(r.budget.name)) | not measured | | needs a baseline |\n"
                    continue
                }
                md +=
                    "| \(cell(r.budget.name)) | \(ByteSize.format(m)) of \(ByteSize.format(r.limit)) | "
                    + "\(BudgetText.percent(p)) | "
                md += r.exceeded ? "❌ over by \(ByteSize.format(r.overshoot)) |\n" : "✅ |\n"
            }
            md += "\n"
        }

        if let cmp = result.comparison {
            let moved = cmp.zones.filter { $0.before != $0.after }
            if !moved.isEmpty {
                md +=
                    "### Backed up per zone, since the baseline\n\n| zone | before | after | change "
                    + "|\n|---|---:|---:|---:|\n"
                for z in moved {
                    md +=
                        "| \(cell(z.zone.title)) | \(ByteSize.format(z.before)) | \(ByteSize.format(z.after)) | "
                        + "\(delta(z.after - z.before)) |\n"
                }
                md += "\n"
            }
            if !cmp.grew.isEmpty || !cmp.added.isEmpty {
                md +=
                    "Grew most: "
                    + cmp.grew.prefix(5).map { "\(cell($0.path.display)) (\(delta($0.delta)))" }.joined(separator: ", ")
                md += cmp.grew.isEmpty ? "none" : ""
                md += ". Added: \(cmp.added.count) file(s), removed: \(cmp.removed.count).\n\n"
            }
        }

        if let b = result.backupComparison { md += BackupComparisonReport.markdown(b) }
        md += ProtectionReport.markdown(result)
        md += OwnerReport.markdown(report, cell: cell).joined(separator: "\n") + "\n"

        var tail =
            summary.notReported.isEmpty ? "" : "\nNot reported: " + summary.notReported.joined(separator: ", ") + "."
        tail += SuppressionReport.markdown(report, cell: cell)
        tail += notChecked(report)
        tail += "\n\n<sub>\(ByteSize.unitsNote). sandbox-audit \(Audit.toolVersion).</sub>\n"
        if report.findings.isEmpty { return md + "No findings." + tail }

        md += "### Findings by rule\n\n| rule | errors | warnings | notes | fix |\n|---|---:|---:|---:|---|\n"
        for t in result.tallies {
            let fix = RuleCatalogue.rule(id: t.ruleId)?.description.fix ?? ""
            md +=
                "| [`\(t.ruleId)`](\(References.ruleHelp(t.ruleId))) | \(t.errors) | \(t.warnings) | \(t.notes) | "
                + "\(cell(fix)) |\n"
        }
        md += "\n"

        // The most severe findings, as many as fit: the whole comment stays within maxLength.
        let header = "| severity | rule | path | finding |\n|---|---|---|---|\n"
        func row(_ item: ReportFinding) -> String {
            let f = item.finding
            let icon = f.severity == .error ? "🛑" : (f.severity == .warning ? "⚠️" : "ℹ️")
            let owner =
                (item.owner.map { " (owner: \($0.name))" } ?? "")
                + (ScanReport.writtenBy(item.source).map { " — " + $0 } ?? "")
            // The rule's fix is in the table above; a finding's own (a command, the carrier
            // the scan saw) follows its message.
            let fix = f.fix.map { "<br>**Fix:** " + cell($0) } ?? ""
            return
                "| \(icon) \(f.severity.rawValue) | \(cell(f.ruleId)) | \(cell(item.subject ?? "")) | "
                + "\(cell(f.message + owner))\(fix) |\n"
        }
        let ordered = report.findingsBySeverity
        let title = "### Most severe findings\n\n"
        let reserve = 400  // the fold's summary and the "… N more" line
        var room = maxLength - md.utf8.count - tail.utf8.count - title.utf8.count - 2 * header.utf8.count - reserve
        var rows: [String] = []
        for f in ordered {
            let r = row(f)
            guard r.utf8.count <= room else { break }
            room -= r.utf8.count
            rows.append(r)
        }
        md += title + header + rows.prefix(unfolded).joined()
        if rows.count > unfolded {
            md += "\n<details><summary>\(rows.count - unfolded) more finding(s)</summary>\n\n" + header
            md += rows.dropFirst(unfolded).joined() + "\n</details>\n"
        }
        if rows.count < ordered.count {
            md +=
                "\n… \(ordered.count - rows.count) more finding(s) — see the HTML report / SARIF (`--output "
                + "html=PATH --output sarif=PATH`).\n"
        }
        md += tail
        return md
    }

    /// The rules the scan could not check, or checked in part, and what they need: a short list.
    static func notChecked(_ report: ScanReport) -> String {
        let lines = report.notChecked
        guard !lines.isEmpty else { return "" }
        return "\n\n**Not checked** (what this scan could not observe):\n\n"
            + lines.map { line in
                "- " + (line.domains.map { cell($0.joined(separator: ", ")) + ": " } ?? "")
                    + line.rules.map { "`\($0)`" }.joined(separator: ", ") + ": " + cell(line.reason) + "\n"
            }.joined()
    }
}
