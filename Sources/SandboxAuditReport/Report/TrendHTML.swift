import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

extension TrendReport {
    /// How many owners and flagged paths get a chart of their own (the tables list them all).
    static let chartCount = 20

    /// `trend --format html`: one page, offline (inline CSS and SVG, no script), in the scan
    /// report's style: the verdict, the whole app's line chart, the paths that grew at every
    /// step, then a line chart per domain and per owner.
    static func html(_ t: Trend) -> String {
        let x = XMLText.escape
        let incomplete = t.notes.first { $0.hasPrefix("INCOMPLETE") } ?? "INCOMPLETE SCAN"
        let banner = t.incomplete ? "<p class=\"verdict fail\" role=\"alert\">\(x(incomplete))</p>" : ""
        let points = t.points.enumerated().map { i, p in
            let identity = [p.bundleIdentifier, p.version].compactMap { $0 }.map { ", " + $0 }.joined()
            return
                "<li><code>\(x(p.location))</code> (\(p.kind == .scan ? "scan report" : "baseline")\(x(identity)))</li>"
        }.joined()
        var h =
            HTMLReport.documentStart(
                title: "sandbox-audit trend: " + (t.points.first?.bundleIdentifier ?? "the app"),
                style: HTMLReport.css + css) + """
                <header>
                \(banner)
                <p class="kicker">sandbox-audit \(x(Audit.toolVersion)) · backup footprint over \(t.points.count) \
                points</p>
                <h1>\(x(t.points.first?.bundleIdentifier ?? "The app")): \(x(delta(t.total.growth))) from the first \
                point to the last</h1>
                <ol class="meta">\(points)</ol>
                \(verdict(t).map { "<p class=\"verdict \(t.failed ? "fail" : "pass")\">\(x($0))</p>" } ?? "")
                \(t.notes.map { "<p class=\"note\">\(x($0))</p>" }.joined(separator: "\n"))
                </header>
                <main>
                <section class="cards">
                <div class="card"><h3>First point</h3><p class="big">\(x(ByteSize.format(t.total.first)))</p><p \
                class="note">what backup carries, every domain</p></div>
                <div class="card"><h3>Last point</h3><p class="big">\(x(ByteSize.format(t.total.last)))</p><p \
                class="note"><span class="delta">\(x(delta(t.total.growth))) since the first</span></p></div>
                <div class="card"><h3>Largest step</h3><p class="big">\(x(delta(t.largestStep.growth)))</p><p \
                class="note">step \(t.largestStep.step) (point \(t.largestStep.step) → \
                \(t.largestStep.step + 1))</p></div>
                </section>
                <section><h2>The whole app</h2>
                \(chart(t.total, label: "The whole app's backup footprint at each point", points: t.points.count))
                </section>

                """
        h += "<section><h2>Grew at every step (<code>\(Trend.GrowthRule.id)</code>)</h2>\n"
        if let why = t.pathsUnavailable {
            h += "<p>Not checked: \(x(why)).</p>"
        } else if t.grewEveryStep.isEmpty {
            h += "<p>No path grew at every step.</p>"
        } else {
            h += "<p>\(x(Trend.GrowthRule.summary)).</p>\n"
            for p in t.grewEveryStep.prefix(chartCount) {
                h +=
                    "<div class=\"finding warning\"><p><span class=\"badge\">grows</span> "
                    + "<code>\(x(place(p, t)))</code> <span "
                    + "class=\"rule\">\(p.backedUp ? "backed up" : "not backed up")"
                    + "\(x(p.owner.map { " · owner " + $0 } ?? ""))</span></p>"
                h +=
                    "<p>\(x(values(p.series))); per step \(x(steps(p.series)))</p><p class=\"why\">Likely "
                    + "\(x(p.cause.text)).</p>"
                h += chart(p.series, label: "Size of \(place(p, t)) at each point", points: t.points.count) + "</div>\n"
            }
            if t.grewEveryStep.count > chartCount {
                h +=
                    "<p class=\"note\">and \(groupedDigits(Int64(t.grewEveryStep.count - chartCount))) more (the "
                    + "JSON lists every one)</p>"
            }
            h += "<p class=\"why\">Sources: \(Trend.GrowthRule.references.map(link).joined(separator: "; ")).</p>"
        }
        h += "</section>\n"
        h +=
            "<section><h2>By domain</h2>\n"
            + t.domains.map {
                chart($0, label: "\($0.name ?? "") at each point", points: t.points.count, title: $0.name)
            }.joined(separator: "\n") + "</section>\n"
        h += "<section><h2>By owner</h2>\n"
        if let owners = t.owners {
            let shown = owners.filter { !$0.values.allSatisfy { ($0 ?? 0) == 0 } }
            h += shown.prefix(chartCount).map {
                chart(
                    $0, label: "\($0.name ?? "Files no owner covers") at each point", points: t.points.count,
                    title: $0.name ?? "(no owner)")
            }.joined(separator: "\n")
            if shown.isEmpty { h += "<p>No owner holds bytes that backup carries.</p>" }
            if shown.count > chartCount {
                h +=
                    "<p class=\"note\">and \(groupedDigits(Int64(shown.count - chartCount))) more owners (the JSON "
                    + "lists every one)</p>"
            }
        } else {
            h += "<p>Not available: \(x(t.ownersUnavailable ?? "")).</p>"
        }
        h += "</section>\n"
        h += "<section><h2>By zone</h2>\(table(t.zones, points: t.points.count))</section>\n"
        h += "<section><h2>Paths grown most, first to last point (\(groupedDigits(Int64(t.grewCount))))</h2>"
        if let why = t.pathsUnavailable {
            h += "<p>Not available: \(x(why)).</p>"
        } else {
            h += table(
                t.grewMost.prefix(listLength).map { Series(name: place($0, t), id: nil, values: $0.series.values) },
                points: t.points.count)
        }
        h += """
            </section>
            </main>
            <footer><p>\(x(ByteSize.unitsNote)). Bytes are what backup carries (for a path: the file's size). The \
            format: <a href="\(x(References.repositoryFile("docs/trend-format.md")))">trend-format.md</a>.</p></footer>
            </body>
            </html>

            """
        return h
    }

    static func link(_ reference: String) -> String {
        guard let r = reference.range(of: ": http") else { return XMLText.escape(reference) }
        let url = String(reference[reference.index(after: r.lowerBound)...]).trimmingCharacters(in: .whitespaces)
        return "<a href=\"\(XMLText.escape(url))\">\(XMLText.escape(String(reference[..<r.lowerBound])))</a>"
    }

    /// A table of series, one column per point and the change per step.
    static func table(_ rows: [Series], points: Int) -> String {
        let x = XMLText.escape
        guard !rows.isEmpty else { return "<p>None.</p>" }
        var s =
            "<div class=\"tw\"><table><thead><tr><th></th>"
            + (1...points).map { "<th class=\"num\">\($0)</th>" }.joined() + "<th>per step</th></tr></thead><tbody>"
        for r in rows {
            s +=
                "<tr><td class=\"path\">\(x(r.name ?? "(no owner)"))</td>"
                + r.values.map { "<td class=\"num\">\(x($0.map(ByteSize.format) ?? "—"))</td>" }.joined()
                + "<td>\(x(steps(r)))</td></tr>"
        }
        return s + "</tbody></table></div>"
    }

    /// A line chart of one series: a point per file, the y axis from 0 to its largest value.
    static func chart(_ s: Series, label: String, points: Int, title: String? = nil) -> String {
        let x = XMLText.escape
        let width = 720.0
        let height = 200.0
        let left = 78.0
        let right = 16.0
        let top = 14.0
        let bottom = 30.0
        let top0 = s.values.compactMap { $0 }.max() ?? 0
        let scale = Double(max(top0, 1))
        func px(_ i: Int) -> Double {
            points == 1 ? left : left + (width - left - right) * Double(i) / Double(points - 1)
        }
        func py(_ v: Int64) -> Double { top + (height - top - bottom) * (1 - Double(v) / scale) }
        var svg =
            "<svg class=\"chart line\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
            + "aria-label=\"\(x(label))\">"
        for v in top0 > 0 ? [0, top0 / 2, top0] : [Int64(0)] {
            let name = ByteSize.format(v)
            svg +=
                "<line x1=\"\(HTMLReport.fmt(left))\" y1=\"\(HTMLReport.fmt(py(v)))\" "
                + "x2=\"\(HTMLReport.fmt(width - right))\" y2=\"\(HTMLReport.fmt(py(v)))\" class=\"grid\"/>"
            svg +=
                "<text x=\"\(HTMLReport.fmt(left - 8))\" y=\"\(HTMLReport.fmt(py(v) + 4))\" class=\"value\" "
                + "text-anchor=\"end\">\(x(name))</text>"
        }
        for i in 0..<points {
            svg +=
                "<text x=\"\(HTMLReport.fmt(px(i)))\" y=\"\(Int(height - 8))\" class=\"value\" "
                + "text-anchor=\"middle\">\(i + 1)</text>"
        }
        // One polyline per run of points that have a value.
        var run: [String] = []
        func flush() {
            if run.count > 1 { svg += "<polyline points=\"\(run.joined(separator: " "))\" class=\"series\"/>" }
            run = []
        }
        for (i, v) in s.values.enumerated() {
            guard let v else {
                flush()
                continue
            }
            run.append("\(HTMLReport.fmt(px(i))),\(HTMLReport.fmt(py(v)))")
        }
        flush()
        for (i, v) in s.values.enumerated() {
            guard let v else { continue }
            let step = i == 0 ? "" : ", " + delta(s.steps[i - 1]) + " since point \(i)"
            svg +=
                "<circle cx=\"\(HTMLReport.fmt(px(i)))\" cy=\"\(HTMLReport.fmt(py(v)))\" r=\"3.5\" "
                + "class=\"dot\"><title>point \(i + 1): \(x(ByteSize.format(v)))\(x(step))</title></circle>"
        }
        svg += "</svg>"
        let heading = title.map { "<h3>\(x($0)) <span class=\"count\">\(x(values(s)))</span></h3>" } ?? ""
        return heading + svg
    }

    static let css = """
        .chart.line .grid{stroke:var(--line);stroke-width:1}.chart.line \
        .series{fill:none;stroke:#2563eb;stroke-width:2.5;stroke-linejoin:round}
        .chart.line .dot{fill:#2563eb;stroke:#fff;stroke-width:1.5}.finding \
        .chart{margin-top:8px}ol.meta{padding-left:22px}
        """
}
