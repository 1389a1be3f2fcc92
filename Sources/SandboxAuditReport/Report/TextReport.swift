import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// The human report of `scan`: zones, the three headline numbers, then findings with a fix.
struct TextReport {
    var useColor: Bool

    init(useColor: Bool) { self.useColor = useColor }

    private func paint(_ s: String, _ code: String) -> String { useColor ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    private func bold(_ s: String) -> String { paint(s, "1") }

    private func color(_ severity: Severity) -> String {
        switch severity {
        case .error: return "31"
        case .warning: return "33"
        case .note: return "36"
        }
    }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let n = s.count
        guard n < width else { return s }
        let space = String(repeating: " ", count: width - n)
        return right ? space + s : s + space
    }

    func render(_ report: ScanReport) -> String {
        let result = report.result
        var lines = header(report)
        lines += zoneTables(result)
        lines += headlineNumbers(result)
        lines += ProtectionReport.text(result, bold: bold)
        lines += OwnerReport.text(report, bold: bold)
        lines += budgets(result)
        lines += baselineComparison(result)
        if let b = result.backupComparison { lines += BackupComparisonReport.text(b, bold: bold) }
        lines += findings(report)
        lines += notChecked(report)
        lines += verdict(report)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The tool and the app, how many containers, and what the scan could not read.
    private func header(_ report: ScanReport) -> [String] {
        let (result, summary) = (report.result, report.summary)
        let c = result.inventory.container
        var lines = [
            bold("sandbox-audit \(Audit.toolVersion)")
                + ": \(TerminalText.escaped(summary.identity)) (\(TerminalText.escaped(c.kindDescription)))"
        ]
        if result.isMultiDomain {
            lines.append("\(result.inventories.count) containers, each its own backup domain")
        }
        if !result.complete {
            lines.append(paint(result.incompleteSummary, report.allowIncomplete ? "33;1" : "31;1"))
            let shown = 5
            for m in result.missed.prefix(shown) {
                lines.append("  not read: " + TerminalText.escaped(result.place(m)))
            }
            if result.missed.count > shown {
                lines.append("  … \(result.missed.count - shown) more (see the unreadable-entry findings)")
            }
        }
        return lines + [""]
    }

    /// Per container: its files and bytes by zone, then its total.
    private func zoneTables(_ result: AuditResult) -> [String] {
        let header =
            TextReport.pad("zone", 30) + TextReport.pad("files", 8, right: true)
            + TextReport.pad("size", 11, right: true)
            + TextReport.pad("backed up", 12, right: true) + TextReport.pad("excluded", 11, right: true)
        func row(_ title: String, _ t: ZoneTotals) -> String {
            TextReport.pad(title, 30) + TextReport.pad(String(t.files), 8, right: true)
                + TextReport.pad(ByteSize.format(t.size), 11, right: true)
                + TextReport.pad(ByteSize.format(t.backedUpSize), 12, right: true)
                + TextReport.pad(ByteSize.format(t.excludedSize), 11, right: true)
        }
        var lines: [String] = []
        for inv in result.inventories {
            let ic = inv.container
            lines.append(
                bold(TerminalText.escaped(ic.domain))
                    + "  \(ic.role.rawValue) container, "
                    + "\(ic.source.capabilities.recordsBackup ? "in the backup folder" : "data root"): "
                    + "\(TerminalText.escaped(ic.dataRoot))"
            )
            lines.append(bold(header))
            for zone in Zone.allCases where zone != .system {
                guard let t = inv.zoneTotals[zone] else { continue }
                lines.append(row(zone.title, t))
            }
            lines.append(row("total", inv.total))
            let system = inv.systemEntries
            if system > 0 {
                lines.append(
                    "(\(groupedDigits(Int64(system))) system \(system == 1 ? "entry" : "entries") listed but not "
                        + "counted)"
                )
            }
            if result.isMultiDomain {
                lines.append(
                    "backup \(ByteSize.format(inv.backupFootprint)), kept on update "
                        + "\(ByteSize.format(inv.keptOnUpdate)), kept on restore \(ByteSize.format(inv.keptOnRestore))"
                )
            }
            lines.append("")
        }
        return lines
    }

    /// Backup footprint, kept on update, kept on restore, and the scan's notes.
    private func headlineNumbers(_ result: AuditResult) -> [String] {
        let scope = result.isMultiDomain ? "  (the app: every domain)" : ""
        var lines = [
            "backup footprint  " + TextReport.pad(ByteSize.format(result.backupFootprint), 10, right: true)
                + "  what iCloud or a computer backup carries" + scope,
            "kept on update    " + TextReport.pad(ByteSize.format(result.keptOnUpdate), 10, right: true)
                + "  Documents and Library (group containers whole)",
            "kept on restore   " + TextReport.pad(ByteSize.format(result.keptOnRestore), 10, right: true)
                + "  the backed-up set, on a new device",
        ]
        for note in result.notes { lines.append("note: \(note)") }
        return lines + [""]
    }

    /// Each budget's use against its limit (nothing when the policy sets none).
    private func budgets(_ result: AuditResult) -> [String] {
        guard !result.budgets.isEmpty else { return [] }
        var lines = [bold("budgets")]
        let width = result.budgets.map(\.budget.name.count).max() ?? 0
        for r in result.budgets {
            let name = TextReport.pad(r.budget.name, width + 2)
            guard let measured = r.measured, let percent = r.percent else {
                if case .domain = r.budget.scope {
                    lines.append(name + "not measured: that domain was not scanned")
                } else {
                    lines.append(name + "not measured: needs --baseline")
                }
                continue
            }
            let use = "\(ByteSize.format(measured)) of \(ByteSize.format(r.limit)), " + BudgetText.percent(percent)
            // Two spaces at least between the use and the verdict, however long the use.
            lines.append(
                name + TextReport.pad(use, 26) + "  "
                    + (r.exceeded ? paint("EXCEEDED by \(ByteSize.format(r.overshoot))", "31") : "ok"))
        }
        return lines + [""]
    }

    /// What changed since the baseline (nothing without one).
    private func baselineComparison(_ result: AuditResult) -> [String] {
        guard let c = result.comparison else { return [] }
        func signed(_ v: Int64) -> String { (v >= 0 ? "+" : "") + ByteSize.format(v) }
        var lines = [
            bold("since the baseline")
                + ": backup footprint \(ByteSize.format(c.footprintBefore)) → \(ByteSize.format(c.footprintAfter)) "
                + "(\(signed(c.footprintDelta)))"
        ]
        let moved = c.zones.filter { $0.before != $0.after }
        if !moved.isEmpty {
            lines.append(
                "  backed up per zone: "
                    + moved.map { "\($0.zone.title) \(signed($0.after - $0.before))" }.joined(separator: ", "))
        }
        lines.append(
            "  churn: \(ByteSize.format(c.churn)) of backed-up files new or changed (what the next backup uploads)")
        let n = 5
        for (title, list, value) in [
            ("added", c.added, { (ch: BaselineComparison.Change) in ByteSize.format(ch.after ?? 0) }),
            ("removed", c.removed, { ByteSize.format($0.before ?? 0) }),
            ("grew most", c.grew, { signed($0.delta) }),
        ] where !list.isEmpty {
            let shown = list.prefix(n).map { "\(TerminalText.escaped($0.path.display)) (\(value($0)))" }.joined(
                separator: ", ")
            lines.append("  \(title) (\(list.count)): \(shown)\(list.count > n ? ", …" : "")")
        }
        return lines + [""]
    }

    /// The findings with their fixes, then what was found but not reported.
    private func findings(_ report: ScanReport) -> [String] {
        let summary = report.summary
        var lines: [String] = []
        if report.findings.isEmpty {
            lines.append("no findings")
        } else {
            lines.append(bold("findings") + ": " + summary.counts)
            for item in report.findings {
                let f = item.finding
                let tag = paint(TextReport.pad(f.severity.rawValue, 8), color(f.severity))
                lines.append("\(tag)\(f.ruleId)" + (item.subject.map { "  " + TerminalText.escaped($0) } ?? ""))
                lines.append("        \(TerminalText.escaped(f.message))")
                if let owner = item.owner {
                    lines.append("        \(TerminalText.escaped(OwnerReport.line(owner)))")
                }
                if let written = ScanReport.writtenBy(item.source) {
                    lines.append("        \(TerminalText.escaped(written))")
                }
                if let fix = f.fixText {
                    lines.append("        fix: \(TerminalText.escaped(fix))")
                }
            }
        }
        if !summary.notReported.isEmpty { lines.append("not reported: " + summary.notReported.joined(separator: ", ")) }
        lines += SuppressionReport.text(report, bold: bold)
        return lines + [""]
    }

    /// The rules the scan could not check, or checked in part, and what they need.
    private func notChecked(_ report: ScanReport) -> [String] {
        let lines = report.notChecked
        guard !lines.isEmpty else { return [] }
        return [bold("not checked") + " (what this scan could not observe)"]
            + lines.map { "  " + TerminalText.escaped($0.text) } + [""]
    }

    /// The policy, the units, and PASSED or FAILED with why.
    private func verdict(_ report: ScanReport) -> [String] {
        let (result, failOn) = (report.result, report.failOn)
        var lines: [String] = []
        if let source = result.policy.source { lines.append("policy: \(source)") }
        lines.append(ByteSize.unitsNote)
        let failed = report.failedByFindings
        let incomplete = result.complete ? "" : "; incomplete scan: \(result.missed.count) not read"
        if failed {
            lines.append(paint("FAILED", "31;1") + ": findings at or above \(failOn.rawValue)" + incomplete)
        } else if report.failed {
            lines.append(
                paint("FAILED", "31;1")
                    + ": incomplete scan, \(result.missed.count) not read (nothing read is at or above "
                    + "\(failOn.rawValue); --allow-incomplete accepts this)"
            )
        } else {
            lines.append(
                paint("PASSED", "32;1") + ": nothing at or above \(failOn.rawValue)"
                    + (result.complete ? "" : incomplete + ", accepted by --allow-incomplete"))
        }
        return lines
    }
}
