import Foundation
import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// The pre-release report: one self-contained HTML file (inline CSS, SVG and one inline script
/// that sorts tables; no network resource, works offline), readable on a phone and printed.
enum HTMLReport {
    static let largestCount = 20
    /// Findings of a rule shown before the fold.
    static let unfolded = 5

    /// The scan time as the header shows it: `2026-11-23 15:04 UTC`.
    static func scanDate(_ seconds: Double) -> String {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone(identifier: "UTC")!
        let c = cal.dateComponents([.year, .month, .day, .hour, .minute], from: Date(timeIntervalSince1970: seconds))
        func two(_ v: Int?) -> String {
            let n = v ?? 0
            return n < 10 ? "0\(n)" : String(n)
        }
        return "\(c.year ?? 1970)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)) UTC"
    }

    /// The rules the scan could not check, or checked in part, and what they need.
    static func notChecked(_ report: ScanReport) -> String {
        let lines = report.notChecked
        guard !lines.isEmpty else { return "" }
        let x = XMLText.escape
        return
            "<section><h2>Not checked</h2><p class=\"meta\">What this scan could not observe: these rules did not "
            + "run, or ran in part.</p><ul>"
            + lines.map { line in
                "<li>" + (line.domains.map { x($0.joined(separator: ", ")) + ": " } ?? "")
                    + line.rules.map { "<code>\(x($0))</code>" }.joined(separator: ", ") + ": " + x(line.reason)
                    + "</li>"
            }.joined() + "</ul></section>\n"
    }

    /// An offline page's start, up to `<body>`: the doctype, the character set, the viewport,
    /// the title (escaped here) and the inline style. The scan report and `trend`'s page share it.
    static func documentStart(title: String, style: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(XMLText.escape(title))</title>
        <style>\(style)</style>
        </head>
        <body>

        """
    }

    static func render(_ report: ScanReport, date: Double? = nil) -> String {
        let x = XMLText.escape
        let (result, summary, failOn, failed) = (report.result, report.summary, report.failOn, report.failed)
        let title = summary.heading
        let roots = result.inventories.map { i in
            let c = i.container
            return "\(x(i.domain)) (\(x(c.role.rawValue)) container, \(x(c.kindDescription))) · data root "
                + "<code>\(x(c.dataRoot))</code>"
        }.joined(separator: "<br>")
        let policy = result.policy.source.map { " · policy <code>\(x($0))</code>" } ?? ""
        let keptOnUpdate = "Documents and Library (group containers whole)"
        let carries =
            "what iCloud or a computer backup "
            + "carries" + (result.isMultiDomain ? ", every domain of the app" : "")
        let largestTotal = result.inventories.map(\.total.size).max() ?? 0
        let treemaps = result.inventories.map { i in
            treemap(i, domain: result.isMultiDomain ? i.domain : nil, largest: largestTotal)
        }
        let zoneCharts = result.inventories.map { i in
            "<h2>\(result.isMultiDomain ? x(i.domain) + ": f" : "F")ootprint by zone and backup "
                + "state</h2>\n\(zoneChart(i))\n\(stateChart(i))"
        }
        var h =
            documentStart(title: "sandbox-audit: " + title, style: css + Treemap.css) + """
                <header>
                \(result.complete ? "" : "<p class=\"verdict fail\" role=\"alert\">\(x(result.incompleteSummary))</p>")
                <p class="kicker">sandbox-audit \(x(Audit.toolVersion)) · backup and storage \
                report\(date.map { " · " + x(scanDate($0)) } ?? "")</p>
                <h1>\(x(title))\(summary.version.map { " <span class=\"version\">\(x($0))</span>" } ?? "")</h1>
                <p class="meta">\(roots)\(policy)</p>
                <p class="verdict \(failed ? "fail" : "pass")">\(failed ? "Fails" : "Passes") at \
                \(x(failOn.rawValue)): \(x(summary.counts))</p>
                </header>
                <main>
                <section class="cards">
                \(card("Backup footprint", result.backupFootprint, carries, delta: result.comparison?.footprintDelta))
                \(card("Kept on update", result.keptOnUpdate, keptOnUpdate, delta: nil))
                \(card("Kept on restore", result.keptOnRestore, "the backed-up set, on a new device", delta: nil))
                </section>
                <section>
                \(treemaps.joined(separator: "\n"))
                </section>
                \(OwnerReport.html(report))
                <section>
                \(zoneCharts.joined(separator: "\n"))
                </section>

                """
        if !result.budgets.isEmpty { h += budgets(result) }
        if let cmp = result.comparison { h += baseline(cmp) }
        if let b = result.backupComparison { h += BackupComparisonReport.html(b) }
        h += ProtectionReport.html(result)
        for i in result.inventories { h += largest(i, domain: result.isMultiDomain ? i.domain : nil) }
        h += findings(report)
        h += SuppressionReport.html(report)
        h += notChecked(report)
        h += """
            </main>
            <footer><p>\(x(ByteSize.unitsNote)). Rules: <a href="\(x(References.repositoryFile("docs/rules.md")))">the \
            rules catalogue</a>; what iOS backs up: <a \
            href="\(x(References.repositoryFile("docs/what-ios-backs-up.md")))">What iOS backs up</a>; the platform \
            rules: <a href="\(x(References.appProgrammingGuideURL))">Apple's App Programming Guide for iOS</a> (App \
            Backup Best Practices, Files Saved During App Updates). Click a column header to sort.</p></footer>
            <script>\(script)</script>
            </body>
            </html>

            """
        return h
    }

    static func card(_ title: String, _ bytes: Int64, _ note: String, delta: Int64?) -> String {
        let d =
            delta.map {
                " <span class=\"delta\">\($0 >= 0 ? "+" : "")\(XMLText.escape(ByteSize.format($0))) since the "
                    + "baseline</span>"
            } ?? ""
        return
            "<div class=\"card\"><h3>\(title)</h3><p class=\"big\">\(XMLText.escape(ByteSize.format(bytes)))</p><p "
            + "class=\"note\">\(note)\(d)</p></div>"
    }

    /// The backup footprint by folder, as a treemap.
    /// Several domains: each treemap's area follows its domain's share of the largest one.
    static func treemap(_ inv: Inventory, domain: String?, largest: Int64) -> String {
        let label = "Treemap: bytes by folder of \(domain ?? "the container"), coloured by backup state"
        let share = largest > 0 ? Double(inv.total.size) / Double(largest) : 1
        let height = max(120, (Treemap.height * share.squareRoot()).rounded())
        return "<h2>\(domain.map { XMLText.escape($0) + ": b" } ?? "B")ytes by folder</h2>\n"
            + Treemap.svg(inv.footprintTree(), label: label, height: height) + legend()
    }

    static let colors = (backed: "#2563eb", excluded: "#d97706", skipped: "#9ca3af")

    static func legend() -> String {
        """
        <p class="legend"><span style="background:\(colors.backed)"></span>backed up <span \
        style="background:\(colors.excluded)"></span>excluded by the attribute <span \
        style="background:\(colors.skipped)"></span>not backed up where it is (Caches, tmp, the root…)</p>
        """
    }

    /// Per zone: a bar of its bytes, split by backup state.
    static func zoneChart(_ inv: Inventory) -> String {
        let zones = Zone.allCases.filter { $0 != .system }.compactMap { z in inv.zoneTotals[z].map { (z, $0) } }.filter
        { $0.1.size > 0 }
        guard !zones.isEmpty else { return "<p>No file contents.</p>" }
        let maxSize = Double(zones.map(\.1.size).max() ?? 1)
        let rowH = 34
        let labelW = 190
        let barW = 250
        let width = 540
        var svg =
            "<svg class=\"chart\" viewBox=\"0 0 \(width) \(zones.count * rowH + 8)\" role=\"img\" aria-label=\"Bytes "
            + "per zone, by backup state\">"
        for (i, (zone, t)) in zones.enumerated() {
            let y = i * rowH + 4
            let excluded = t.excludedSize
            let backed = t.backedUpSize
            let skipped = max(0, t.size - backed - excluded)
            var xPos = Double(labelW)
            svg += "<text x=\"0\" y=\"\(y + 19)\" class=\"label\">\(XMLText.escape(zone.title))</text>"
            for (value, color) in [(backed, colors.backed), (excluded, colors.excluded), (skipped, colors.skipped)]
            where value > 0 {
                let w = max(1.5, Double(barW) * Double(value) / maxSize)
                svg +=
                    "<rect x=\"\(fmt(xPos))\" y=\"\(y + 6)\" width=\"\(fmt(w))\" height=\"18\" rx=\"2\" "
                    + "fill=\"\(color)\"><title>\(XMLText.escape(zone.title)): "
                    + "\(XMLText.escape(ByteSize.format(value)))</title></rect>"
                xPos += w
            }
            svg +=
                "<text x=\"\(fmt(xPos + 8))\" y=\"\(y + 19)\" "
                + "class=\"value\">\(XMLText.escape(ByteSize.format(t.size)))</text>"
        }
        return svg + "</svg>" + legend()
    }

    /// The whole app in one bar, by backup state.
    static func stateChart(_ inv: Inventory) -> String {
        let t = inv.total
        guard t.size > 0 else { return "" }
        let parts = [
            ("backed up", t.backedUpSize, colors.backed), ("excluded", t.excludedSize, colors.excluded),
            (
                "not backed up where it is (Caches, tmp, the "
                    + "root…)", max(0, t.size - t.backedUpSize - t.excludedSize),
                colors.skipped
            ),
        ]
        var svg = "<svg class=\"chart\" viewBox=\"0 0 540 34\" role=\"img\" aria-label=\"All bytes by backup state\">"
        var xPos = 0.0
        for (name, value, color) in parts where value > 0 {
            let w = max(1.5, 540 * Double(value) / Double(t.size))
            svg +=
                "<rect x=\"\(fmt(xPos))\" y=\"4\" width=\"\(fmt(w))\" height=\"26\" "
                + "fill=\"\(color)\"><title>\(name): \(XMLText.escape(ByteSize.format(value)))</title></rect>"
            xPos += w
        }
        var labels = ""
        for (name, value, _) in parts where value > 0 {
            let pct = Int((100 * Double(value) / Double(t.size)).rounded())
            labels += "\(name) \(XMLText.escape(ByteSize.format(value))) (\(pct)%) · "
        }
        // The caption is text below the chart, not in it: it wraps at any width, where an SVG
        // text line is cut at the chart's right edge.
        svg += "</svg><p class=\"caption\">\(String(labels.dropLast(3)))</p>"
        return "<h3>The container by backup state</h3>" + svg
    }

    static func fmt(_ v: Double) -> String { String(Double(Int(v * 10)) / 10) }

    static func budgets(_ result: AuditResult) -> String {
        var s =
            "<section><h2>Budgets</h2><div class=\"tw\"><table class=\"sortable\"><thead><tr><th>budget</th><th "
            + "class=\"num\">use</th><th class=\"bar\">of limit</th><th></th></tr></thead><tbody>"
        for r in result.budgets {
            guard let m = r.measured, let p = r.percent else {
                s +=
                    "<tr><td>\(XMLText.escape(r.budget.name))</td><td class=\"num\">not "
                    + "measured</td><td></td><td>needs a baseline</td></tr>"
                continue
            }
            let fill = min(100, p.isFinite ? p : 100)
            s += "<tr class=\"\(r.exceeded ? "over" : "ok")\"><td>\(XMLText.escape(r.budget.name))</td>"
            s +=
                "<td class=\"num\" data-sort=\"\(m)\">\(XMLText.escape(ByteSize.format(m))) of "
                + "\(XMLText.escape(ByteSize.format(r.limit)))</td>"
            s +=
                "<td class=\"bar\"><span class=\"meter\"><span style=\"width:\(Int(fill))%\"></span></span> "
                + "\(BudgetText.percent(p))</td>"
            s += "<td>\(r.exceeded ? "over by " + XMLText.escape(ByteSize.format(r.overshoot)) : "within")</td></tr>"
        }
        return s + "</tbody></table></div></section>\n"
    }

    static func baseline(_ c: BaselineComparison) -> String {
        func signed(_ v: Int64) -> String { XMLText.escape((v >= 0 ? "+" : "") + ByteSize.format(v)) }
        var s =
            "<section><h2>Since the baseline</h2><p>Backup footprint "
            + "\(XMLText.escape(ByteSize.format(c.footprintBefore))) → "
            + "\(XMLText.escape(ByteSize.format(c.footprintAfter))) (\(signed(c.footprintDelta))). Churn: "
            + "<strong>\(XMLText.escape(ByteSize.format(c.churn)))</strong> of backed-up files new or "
            + "changed, what the next backup uploads.</p>"
        s +=
            "<div class=\"tw\"><table class=\"sortable\"><thead><tr><th>zone (backed up)</th><th "
            + "class=\"num\">before</th><th class=\"num\">after</th><th "
            + "class=\"num\">change</th></tr></thead><tbody>"
        for z in c.zones where z.before != 0 || z.after != 0 {
            s +=
                "<tr><td>\(XMLText.escape(z.zone.title))</td><td "
                + "class=\"num\">\(XMLText.escape(ByteSize.format(z.before)))</td><td "
                + "class=\"num\">\(XMLText.escape(ByteSize.format(z.after)))</td><td "
                + "class=\"num\">\(signed(z.after - z.before))</td></tr>"
        }
        s += "</tbody></table></div>"
        for (title, list) in [("Grew most", c.grew), ("Added", c.added), ("Removed", c.removed)] where !list.isEmpty {
            s += "<h3>\(title) (\(list.count))</h3><ul class=\"paths\">"
            for ch in list.prefix(10) {
                s += "<li><code>\(XMLText.escape(ch.path.display))</code> \(signed(ch.delta))</li>"
            }
            s += "</ul>"
        }
        return s + "</section>\n"
    }

    static func largest(_ inv: Inventory, domain: String?) -> String {
        let files = inv.entries.filter { $0.countsInTotals && $0.backedUp == true && $0.entry.kind == .file }
            .sorted { $0.entry.size != $1.entry.size ? $0.entry.size > $1.entry.size : $0.path < $1.path }.prefix(
                largestCount)
        guard !files.isEmpty else { return "" }
        var s =
            "<section><h2>\(domain.map { XMLText.escape($0) + ": t" } ?? "T")he \(files.count) largest backed-up "
            + "files</h2><div class=\"tw\"><table class=\"sortable\"><thead><tr><th>path</th><th>zone</th><th "
            + "class=\"num\">size</th></tr></thead><tbody>"
        for f in files {
            s +=
                "<tr><td class=\"path\"><code>\(XMLText.escape(f.path.display))</code></"
                + "td><td>\(XMLText.escape(f.zone.title))</td><td class=\"num\" "
                + "data-sort=\"\(f.entry.size)\">\(XMLText.escape(ByteSize.format(f.entry.size)))</td></tr>"
        }
        return s + "</tbody></table></div></section>\n"
    }

    /// Findings grouped by rule (most severe rules first): a table of counts, then per rule its
    /// fix, why it matters and its findings, folded past the first `unfolded`.
    static func findings(_ report: ScanReport) -> String {
        let (result, summary) = (report.result, report.summary)
        let x = XMLText.escape
        var s = "<section><h2>Findings</h2>"
        if !summary.notReported.isEmpty {
            s += "<p class=\"note\">Not reported: \(summary.notReported.joined(separator: ", ")).</p>"
        }
        if report.findings.isEmpty { return s + "<p>No findings.</p></section>\n" }
        let tallies = result.tallies
        s +=
            "<div class=\"tw\"><table class=\"sortable\"><thead><tr><th>rule</th><th class=\"num\">errors</th><th "
            + "class=\"num\">warnings</th><th class=\"num\">notes</th></tr></thead><tbody>"
        for t in tallies {
            let name = RuleCatalogue.rule(id: t.ruleId)?.description.name ?? t.ruleId
            s +=
                "<tr><td><a href=\"#rule-\(x(t.ruleId))\">\(x(name))</a> <a class=\"rule\" "
                + "href=\"\(x(References.ruleHelp(t.ruleId)))\">\(x(t.ruleId))</a></td>"
            s +=
                "<td class=\"num\">\(t.errors)</td><td class=\"num\">\(t.warnings)</td><td "
                + "class=\"num\">\(t.notes)</td></tr>"
        }
        s += "</tbody></table></div>"
        let byRule = Dictionary(grouping: report.findingsBySeverity, by: \.finding.ruleId)
        let head = "<thead><tr><th>severity</th><th>path</th><th>finding</th><th class=\"num\">size</th></tr></thead>"
        for t in tallies {
            let group = byRule[t.ruleId] ?? []
            let rule = RuleCatalogue.rule(id: t.ruleId)?.description
            let sev = t.severity.rawValue
            s +=
                "<article class=\"rulegroup \(sev)\" id=\"rule-\(x(t.ruleId))\"><h3><span "
                + "class=\"badge\">\(sev)</span> \(x(rule?.name ?? t.ruleId)) "
            s +=
                "<a class=\"rule\" href=\"\(x(References.ruleHelp(t.ruleId)))\">\(x(t.ruleId))</a> <span "
                + "class=\"count\">\(group.count) finding(s)</span></h3>"
            if let rule {
                s +=
                    "<p class=\"fix\"><strong>Fix:</strong> \(x(rule.fix))</p><details class=\"why\"><summary>Why it "
                    + "matters</summary><p>\(x(rule.rationale))</p></details>"
            }
            func rows(_ list: ArraySlice<ReportFinding>) -> String {
                list.map { item in
                    let f = item.finding
                    return "<tr class=\"\(f.severity.rawValue)\"><td "
                        + "data-sort=\"\(Severity.allCases.firstIndex(of: f.severity)!)\"><span "
                        + "class=\"sev\">\(f.severity.rawValue)</span></td>"
                        + "<td class=\"path\">\(item.subject.map { "<code>\(x($0))</code>" } ?? "")</td>"
                        + "<td>\(x(f.message))"
                        + (item.owner.map { "<br><small>\(x(OwnerReport.line($0)))</small>" } ?? "")
                        + (ScanReport.writtenBy(item.source).map { "<br><small>\(x($0))</small>" } ?? "")
                        + "</td>"
                        + "<td class=\"num\" "
                        + "data-sort=\"\(f.size ?? -1)\">\(f.size.map { x(ByteSize.format($0)) } ?? "")</td></tr>"
                }.joined()
            }
            s +=
                "<div class=\"tw\"><table class=\"sortable findings\" "
                + "data-group=\"\(x(t.ruleId))\">\(head)<tbody>\(rows(group.prefix(unfolded)))</tbody></table></div>"
            if group.count > unfolded {
                s +=
                    "<details class=\"more\"><summary>\(group.count - unfolded) more \(x(t.ruleId)) "
                    + "finding(s)</summary>"
                s +=
                    "<div class=\"tw\"><table class=\"sortable findings\" "
                    + "data-group=\"\(x(t.ruleId))\">\(head)<tbody>\(rows(group.dropFirst(unfolded)))</tbody></"
                    + "table></div></details>"
            }
            s += "</article>"
        }
        return s + "</section>\n"
    }
}
