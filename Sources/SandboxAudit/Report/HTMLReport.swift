/// The pre-release report: one self-contained HTML file (inline CSS and SVG, no scripts, no
/// network), readable on a phone and printed.
public enum HTMLReport {
    public static let largestCount = 20

    public static func render(_ result: AuditResult, failOn: Severity) -> String {
        let x = XMLText.escape
        let c = result.inventory.container
        let title = c.bundleIdentifier ?? "Unidentified app"
        let failed = result.fails(at: failOn)
        var h = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>sandbox-audit: \(x(title))</title>
            <style>\(css)</style>
            </head>
            <body>
            <header>
            \(result.complete ? "" : "<p class=\"verdict fail\" role=\"alert\">\(x(result.incompleteSummary))</p>")
            <p class="kicker">sandbox-audit \(x(Audit.toolVersion)) · backup and storage report</p>
            <h1>\(x(title))\(c.version.map { " <span class=\"version\">\(x($0))</span>" } ?? "")</h1>
            <p class="meta">\(result.inventories.map { "\(x($0.domain)) (\(x($0.container.role.rawValue)) container, \(x($0.container.kind.rawValue))) · data root <code>\(x($0.container.dataRoot))</code>" }.joined(separator: "<br>"))\(result.context.policy.source.map { " · policy <code>\(x($0))</code>" } ?? "")</p>
            <p class="verdict \(failed ? "fail" : "pass")">\(failed ? "Fails" : "Passes") at \(x(failOn.rawValue)): \(result.count(.error)) error(s), \(result.count(.warning)) warning(s), \(result.count(.note)) note(s)</p>
            </header>
            <main>
            <section class="cards">
            \(card("Backup footprint", result.backupFootprint, result.isMultiDomain ? "what iCloud or a computer backup carries, every domain of the app" : "what iCloud or a computer backup carries", delta: result.comparison?.footprintDelta))
            \(card("Kept on update", result.keptOnUpdate, "Documents and Library (group containers whole)", delta: nil))
            \(card("Kept on restore", result.keptOnRestore, "the backed-up set, on a new device", delta: nil))
            </section>
            <section>
            \(result.inventories.map { i in "<h2>\(result.isMultiDomain ? x(i.domain) + ": f" : "F")ootprint by zone and backup state</h2>\n\(zoneChart(i))\n\(stateChart(i))" }.joined(separator: "\n"))
            </section>

            """
        if !result.budgets.isEmpty { h += budgets(result) }
        if let cmp = result.comparison { h += baseline(cmp) }
        for i in result.inventories { h += largest(i, domain: result.isMultiDomain ? i.domain : nil) }
        h += findings(result)
        h += """
            </main>
            <footer><p>\(x(ByteSize.unitsNote)). Zones, verdicts and rules: docs/rules.md; the platform rules: Apple's App Programming Guide for iOS (App Backup Best Practices, Files Saved During App Updates).</p></footer>
            </body>
            </html>

            """
        return h
    }

    static func card(_ title: String, _ bytes: Int64, _ note: String, delta: Int64?) -> String {
        let d = delta.map { " <span class=\"delta\">\($0 >= 0 ? "+" : "")\(XMLText.escape(ByteSize.format($0))) since the baseline</span>" } ?? ""
        return "<div class=\"card\"><h3>\(title)</h3><p class=\"big\">\(XMLText.escape(ByteSize.format(bytes)))</p><p class=\"note\">\(note)\(d)</p></div>"
    }

    static let colors = (backed: "#2563eb", excluded: "#d97706", skipped: "#9ca3af")

    static func legend() -> String {
        """
        <p class="legend"><span style="background:\(colors.backed)"></span>backed up <span style="background:\(colors.excluded)"></span>excluded by the attribute <span style="background:\(colors.skipped)"></span>not backed up where it is (Caches, tmp, the root…)</p>
        """
    }

    /// Per zone: a bar of its bytes, split by backup state.
    static func zoneChart(_ inv: Inventory) -> String {
        let zones = Zone.allCases.filter { $0 != .system }.compactMap { z in inv.zoneTotals[z].map { (z, $0) } }.filter { $0.1.size > 0 }
        guard !zones.isEmpty else { return "<p>No file contents.</p>" }
        let maxSize = Double(zones.map(\.1.size).max() ?? 1)
        let rowH = 34, labelW = 190, barW = 250, width = 540
        var svg = "<svg class=\"chart\" viewBox=\"0 0 \(width) \(zones.count * rowH + 8)\" role=\"img\" aria-label=\"Bytes per zone, by backup state\">"
        for (i, (zone, t)) in zones.enumerated() {
            let y = i * rowH + 4
            let excluded = t.excludedSize
            let backed = t.backedUpSize
            let skipped = max(0, t.size - backed - excluded)
            var xPos = Double(labelW)
            svg += "<text x=\"0\" y=\"\(y + 19)\" class=\"label\">\(XMLText.escape(zone.title))</text>"
            for (value, color) in [(backed, colors.backed), (excluded, colors.excluded), (skipped, colors.skipped)] where value > 0 {
                let w = max(1.5, Double(barW) * Double(value) / maxSize)
                svg += "<rect x=\"\(fmt(xPos))\" y=\"\(y + 6)\" width=\"\(fmt(w))\" height=\"18\" rx=\"2\" fill=\"\(color)\"><title>\(XMLText.escape(zone.title)): \(XMLText.escape(ByteSize.format(value)))</title></rect>"
                xPos += w
            }
            svg += "<text x=\"\(fmt(xPos + 8))\" y=\"\(y + 19)\" class=\"value\">\(XMLText.escape(ByteSize.format(t.size)))</text>"
        }
        return svg + "</svg>" + legend()
    }

    /// The whole app in one bar, by backup state.
    static func stateChart(_ inv: Inventory) -> String {
        let t = inv.total
        guard t.size > 0 else { return "" }
        let parts = [("backed up", t.backedUpSize, colors.backed), ("excluded", t.excludedSize, colors.excluded),
                     ("not backed up where it is (Caches, tmp, the root…)", max(0, t.size - t.backedUpSize - t.excludedSize), colors.skipped)]
        var svg = "<svg class=\"chart\" viewBox=\"0 0 540 64\" role=\"img\" aria-label=\"All bytes by backup state\">"
        var xPos = 0.0
        for (name, value, color) in parts where value > 0 {
            let w = max(1.5, 540 * Double(value) / Double(t.size))
            svg += "<rect x=\"\(fmt(xPos))\" y=\"4\" width=\"\(fmt(w))\" height=\"26\" fill=\"\(color)\"><title>\(name): \(XMLText.escape(ByteSize.format(value)))</title></rect>"
            xPos += w
        }
        var labels = ""
        for (name, value, _) in parts where value > 0 {
            let pct = Int((100 * Double(value) / Double(t.size)).rounded())
            labels += "\(name) \(XMLText.escape(ByteSize.format(value))) (\(pct)%) · "
        }
        svg += "<text x=\"0\" y=\"52\" class=\"value\">\(String(labels.dropLast(3)))</text></svg>"
        return "<h3>The container by backup state</h3>" + svg
    }

    static func fmt(_ v: Double) -> String { String(Double(Int(v * 10)) / 10) }

    static func budgets(_ result: AuditResult) -> String {
        var s = "<section><h2>Budgets</h2><table><thead><tr><th>budget</th><th class=\"num\">use</th><th class=\"bar\">of limit</th><th></th></tr></thead><tbody>"
        for r in result.budgets {
            guard let m = r.measured, let p = r.percent else {
                s += "<tr><td>\(XMLText.escape(r.budget.name))</td><td class=\"num\">not measured</td><td></td><td>needs a baseline</td></tr>"
                continue
            }
            let fill = min(100, p.isFinite ? p : 100)
            s += "<tr class=\"\(r.exceeded ? "over" : "ok")\"><td>\(XMLText.escape(r.budget.name))</td>"
            s += "<td class=\"num\">\(XMLText.escape(ByteSize.format(m))) of \(XMLText.escape(ByteSize.format(r.limit)))</td>"
            s += "<td class=\"bar\"><span class=\"meter\"><span style=\"width:\(Int(fill))%\"></span></span> \(p.isFinite ? String(Int(p.rounded())) : "∞")%</td>"
            s += "<td>\(r.exceeded ? "over by " + XMLText.escape(ByteSize.format(r.overshoot)) : "within")</td></tr>"
        }
        return s + "</tbody></table></section>\n"
    }

    static func baseline(_ c: BaselineComparison) -> String {
        func signed(_ v: Int64) -> String { XMLText.escape((v >= 0 ? "+" : "") + ByteSize.format(v)) }
        var s = "<section><h2>Since the baseline</h2><p>Backup footprint \(XMLText.escape(ByteSize.format(c.footprintBefore))) → \(XMLText.escape(ByteSize.format(c.footprintAfter))) (\(signed(c.footprintDelta))). Churn: <strong>\(XMLText.escape(ByteSize.format(c.churn)))</strong> of backed-up files new or changed, what the next backup uploads.</p>"
        s += "<table><thead><tr><th>zone (backed up)</th><th class=\"num\">before</th><th class=\"num\">after</th><th class=\"num\">change</th></tr></thead><tbody>"
        for z in c.zones where z.before != 0 || z.after != 0 {
            s += "<tr><td>\(XMLText.escape(z.zone.title))</td><td class=\"num\">\(XMLText.escape(ByteSize.format(z.before)))</td><td class=\"num\">\(XMLText.escape(ByteSize.format(z.after)))</td><td class=\"num\">\(signed(z.after - z.before))</td></tr>"
        }
        s += "</tbody></table>"
        for (title, list) in [("Grew most", c.grew), ("Added", c.added), ("Removed", c.removed)] where !list.isEmpty {
            s += "<h3>\(title) (\(list.count))</h3><ul class=\"paths\">"
            for ch in list.prefix(10) { s += "<li><code>\(XMLText.escape(ch.path.display))</code> \(signed(ch.delta))</li>" }
            s += "</ul>"
        }
        return s + "</section>\n"
    }

    static func largest(_ inv: Inventory, domain: String?) -> String {
        let files = inv.entries.filter { $0.countsInTotals && $0.backedUp == true && $0.entry.kind == .file }
            .sorted { $0.entry.size != $1.entry.size ? $0.entry.size > $1.entry.size : $0.path < $1.path }.prefix(largestCount)
        guard !files.isEmpty else { return "" }
        var s = "<section><h2>\(domain.map { XMLText.escape($0) + ": t" } ?? "T")he \(files.count) largest backed-up files</h2><table><thead><tr><th>path</th><th>zone</th><th class=\"num\">size</th></tr></thead><tbody>"
        for f in files {
            s += "<tr><td class=\"path\"><code>\(XMLText.escape(f.path.display))</code></td><td>\(XMLText.escape(f.zone.title))</td><td class=\"num\">\(XMLText.escape(ByteSize.format(f.entry.size)))</td></tr>"
        }
        return s + "</tbody></table></section>\n"
    }

    static func findings(_ result: AuditResult) -> String {
        var s = "<section><h2>Findings</h2>"
        var notReported: [String] = []
        if result.baselineFindings > 0 { notReported.append("\(result.baselineFindings) already in the baseline") }
        if result.ignoredFindings > 0 { notReported.append("\(result.ignoredFindings) on ignored paths") }
        if !notReported.isEmpty { s += "<p class=\"note\">Not reported: \(notReported.joined(separator: ", ")).</p>" }
        if result.findings.isEmpty { return s + "<p>No findings.</p></section>\n" }
        for severity in [Severity.error, .warning, .note] {
            let group = result.findings.filter { $0.severity == severity }
            guard !group.isEmpty else { continue }
            s += "<h3>\(severity.rawValue.capitalized)s (\(group.count))</h3>"
            for f in group {
                let rule = RuleCatalogue.rule(id: f.ruleId)?.description
                s += "<article class=\"finding \(severity.rawValue)\"><p class=\"head\"><span class=\"badge\">\(severity.rawValue)</span> <strong>\(XMLText.escape(rule?.name ?? f.ruleId))</strong> <span class=\"rule\">\(XMLText.escape(f.ruleId))</span></p>"
                s += "<p class=\"path\"><code>\(XMLText.escape(result.place(f)))</code></p><p>\(XMLText.escape(f.message))</p>"
                if let rule {
                    s += "<p class=\"fix\"><strong>Fix:</strong> \(XMLText.escape(rule.fix))</p><p class=\"why\"><strong>Why it matters:</strong> \(XMLText.escape(rule.rationale))</p>"
                }
                s += "</article>"
            }
        }
        return s + "</section>\n"
    }

    static let css = """
        :root{--fg:#111827;--muted:#6b7280;--line:#e5e7eb;--err:#b91c1c;--warn:#b45309;--note:#1d4ed8;--ok:#15803d}
        *{box-sizing:border-box}body{margin:0;font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:#f9fafb}
        header,main,footer{max-width:960px;margin:0 auto;padding:0 20px}header{padding-top:28px}
        h1{font-size:28px;margin:4px 0}h2{font-size:20px;margin:32px 0 12px;border-bottom:1px solid var(--line);padding-bottom:6px}h3{font-size:16px;margin:18px 0 8px}
        .kicker,.meta,.note{color:var(--muted);margin:2px 0}.version{color:var(--muted);font-weight:400;font-size:20px}
        code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
        .verdict{display:inline-block;padding:6px 12px;border-radius:6px;font-weight:600;margin:12px 0 0}.verdict.fail{background:#fee2e2;color:var(--err)}.verdict.pass{background:#dcfce7;color:var(--ok)}
        .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:12px;margin-top:24px}
        .card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 16px}.card h3{margin:0;font-size:14px;color:var(--muted);font-weight:600}
        .big{font-size:28px;font-weight:700;margin:4px 0}.delta{display:block;color:var(--fg)}
        .chart{width:100%;max-width:720px;height:auto;display:block;background:#fff;border:1px solid var(--line);border-radius:8px;padding:8px}
        .chart .label{font-size:13px;fill:var(--fg)}.chart .value{font-size:12px;fill:var(--muted)}
        .legend{font-size:13px;color:var(--muted)}.legend span{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px}
        table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line);border-radius:8px;display:block;overflow-x:auto}
        thead,tbody{display:table;width:100%;table-layout:auto}th,td{text-align:left;padding:7px 10px;border-bottom:1px solid var(--line);vertical-align:top}
        th{font-size:13px;color:var(--muted);font-weight:600}.num{text-align:right;white-space:nowrap}td.path{word-break:break-all}
        tr.over td{color:var(--err)}.meter{display:inline-block;width:90px;height:8px;background:var(--line);border-radius:4px;vertical-align:middle;overflow:hidden}
        .meter span{display:block;height:100%;background:var(--ok)}tr.over .meter span{background:var(--err)}
        .finding{background:#fff;border:1px solid var(--line);border-left:4px solid var(--note);border-radius:6px;padding:10px 14px;margin:10px 0;break-inside:avoid}
        .finding.error{border-left-color:var(--err)}.finding.warning{border-left-color:var(--warn)}.finding p{margin:4px 0}
        .badge{display:inline-block;font-size:11px;font-weight:700;text-transform:uppercase;padding:1px 6px;border-radius:4px;color:#fff;background:var(--note)}
        .error .badge{background:var(--err)}.warning .badge{background:var(--warn)}.rule{color:var(--muted);font-size:13px}.fix{color:var(--fg)}
        .why{color:var(--muted);font-size:13px}ul.paths{padding-left:18px}footer{color:var(--muted);font-size:12px;padding:24px 20px 40px}
        @media (max-width:600px){body{font-size:14px}h1{font-size:22px}.big{font-size:22px}header,main,footer{padding:0 12px}.meter{display:none}th,td{padding:6px}}
        @media print{body{background:#fff;font-size:12px}.card,.finding,table,.chart{border-color:#ccc}h2{break-after:avoid}.finding,tr{break-inside:avoid}}
        """
}
