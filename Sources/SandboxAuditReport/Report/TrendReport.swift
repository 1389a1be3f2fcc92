import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// `trend`'s text, Markdown, JSON and HTML (docs/trend-format.md). Every format prints the
/// same things from `Trend`: the points, the verdict of `--fail-on-growth-per-step`, the paths
/// that grew at every step with their cause, then the bytes per domain, zone, owner and the
/// paths grown most. Printers decide nothing.
public enum TrendReport {
    typealias Series = Trend.Series
    typealias PathSeries = Trend.PathSeries

    /// Bumped on any change that could break a reader (docs/trend-format.md).
    static let schemaVersion: Int64 = 1
    /// How many rows each text and Markdown table, and each path list, shows.
    static let listLength = 25

    static func delta(_ d: Int64) -> String { d == 0 ? "±0 B" : (d > 0 ? "+" : "") + ByteSize.format(d) }

    static func point(_ p: Trend.Point, _ i: Int) -> String {
        let what = p.kind == .scan ? "scan report" : "baseline"
        let who = [p.bundleIdentifier, p.version].compactMap { $0 }.joined(separator: " ")
        return "\(i + 1). \(p.location) (\(what)\(who.isEmpty ? "" : ", " + who))"
    }

    /// "1.00 MB → 1.10 MB → 1.20 MB" ("—" where the point lacks it).
    static func values(_ s: Series) -> String {
        s.values.map { $0.map(ByteSize.format) ?? "—" }.joined(separator: " → ")
    }
    static func steps(_ s: Series) -> String { s.steps.map(delta).joined(separator: ", ") }

    /// "the backup footprint grew at most 1.20 MB in a step (step 3), more than the 1.00 MB allowed — FAILED".
    static func verdict(_ t: Trend) -> String? {
        guard let limit = t.stepLimit else { return nil }
        let (step, growth) = t.largestStep
        let l = ByteSize.format(limit)
        let what =
            growth > 0
            ? "grew at most \(ByteSize.format(growth)) in one step (step \(step), file \(step) → \(step + 1)), "
                + "\(t.failed ? "more than" : "within") the \(l) allowed per step"
            : "grew in no step (\(l) allowed per step)"
        return "backup footprint \(what) — \(t.failed ? "FAILED" : "PASSED")"
    }

    static func flaggedLine(_ p: PathSeries, _ t: Trend) -> String {
        let owner = p.owner.map { ", owner \($0)" } ?? ""
        return
            "\(place(p, t)): \(values(p.series)); per step \(steps(p.series)) "
            + "(\(p.backedUp ? "backed up" : "not backed up")\(owner))"
    }

    static func place(_ p: PathSeries, _ t: Trend) -> String {
        let primary = t.domains.first?.id ?? p.key.domain
        return p.key.domain == primary ? p.key.path.display : "\(p.key.domain)/\(p.key.path.display)"
    }

    struct Table {
        let title: String
        let rows: [Series]?
        let unavailable: String?
        var folded = 0
    }

    static func tables(_ t: Trend) -> [Table] {
        func table(_ title: String, _ rows: [Series]?, _ unavailable: String? = nil) -> Table {
            guard let rows else { return Table(title: title, rows: nil, unavailable: unavailable) }
            let shown = rows.filter { !$0.unchanged }
            return Table(title: title, rows: shown, unavailable: nil, folded: rows.count - shown.count)
        }
        return [
            table("By domain", t.domains), table("By zone", t.zones), table("By owner", t.owners, t.ownersUnavailable),
        ]
    }

    static func folded(_ n: Int) -> String? {
        n == 0 ? nil : "\(groupedDigits(Int64(n))) unchanged \(n == 1 ? "row" : "rows") folded"
    }

    /// `trend`'s output in `format` (`text`, `markdown`, `json` or `html`; nil for any other name).
    public static func render(_ t: Trend, as format: String) -> String? {
        switch format {
        case "text": return text(t)
        case "markdown": return markdown(t)
        case "json": return json(t)
        case "html": return html(t)
        default: return nil
        }
    }

    static func text(_ t: Trend) -> String {
        let e = TerminalText.escaped
        var out =
            "sandbox-audit trend over \(t.points.count) points: the bytes backup carries at each, and the growth per "
            + "step\n"
        for (i, p) in t.points.enumerated() { out += "  \(e(point(p, i)))\n" }
        if let v = verdict(t) { out += "  \(v)\n" }
        for n in t.notes { out += "  note: \(e(n))\n" }
        out += "\nWhole app: \(values(t.total))\n  per step: \(steps(t.total))\n"
        out += "\nGrew at every step (\(Trend.GrowthRule.id)): "
        if let why = t.pathsUnavailable {
            out += "not checked: \(why)\n"
        } else {
            out += "\(groupedDigits(Int64(t.grewEveryStep.count)))\n"
            for p in t.grewEveryStep.prefix(listLength) {
                out += "  \(e(flaggedLine(p, t)))\n    likely \(p.cause.text)\n"
            }
            if t.grewEveryStep.count > listLength {
                out += "  and \(groupedDigits(Int64(t.grewEveryStep.count - listLength))) more\n"
            }
            if !t.grewEveryStep.isEmpty { out += "  \(Trend.GrowthRule.summary).\n" }
        }
        for table in tables(t) {
            out += "\n\(table.title):\n"
            guard let rows = table.rows else {
                out += "  not available: \(e(table.unavailable ?? ""))\n"
                continue
            }
            if rows.isEmpty && table.folded == 0 { out += "  none\n" }
            for s in rows.prefix(listLength) {
                out += "  \(e(s.name ?? "(no owner)")): \(values(s))\n    per step: \(steps(s))\n"
            }
            if rows.count > listLength { out += "  and \(groupedDigits(Int64(rows.count - listLength))) more\n" }
            if let f = folded(table.folded) { out += "  \(f)\n" }
        }
        out += "\nPaths grown most, first to last point (\(groupedDigits(Int64(t.grewCount)))):\n"
        if let why = t.pathsUnavailable {
            out += "  not available: \(why)\n"
        } else if t.grewMost.isEmpty {
            out += "  none\n"
        }
        for p in t.grewMost.prefix(listLength) {
            out += "  \(delta(p.series.growth))  \(e(place(p, t))): \(values(p.series))\n"
        }
        if t.grewCount > listLength { out += "  and \(groupedDigits(Int64(t.grewCount - listLength))) more\n" }
        return out
    }

    static func markdown(_ t: Trend) -> String {
        let cell = MarkdownReport.cell
        let grew = t.total.growth
        let mark = t.stepLimit == nil ? "" : t.failed ? " ❌" : " ✅"
        var md = "## sandbox-audit trend: backup footprint \(delta(grew)) over \(t.points.count) points\(mark)\n\n"
        for (i, p) in t.points.enumerated() { md += "\(i + 1 == 1 ? "" : "\n")\(cell(point(p, i)))  " }
        md += "\n\n"
        if let v = verdict(t) {
            md += "| | largest growth in one step | limit per step | verdict |\n|---|---:|---:|---|\n"
            md +=
                "| \(t.failed ? "❌" : "✅") | \(delta(t.largestStep.growth)) | "
                + "\(ByteSize.format(t.stepLimit ?? 0)) | "
                + "\(cell(v)) |\n\n"
        }
        for n in t.notes { md += "> **⚠️ \(cell(n))**\n\n" }
        let header =
            "| | " + t.points.indices.map { "\($0 + 1)" }.joined(separator: " | ") + " | per step |\n|---|"
            + String(repeating: "---:|", count: t.points.count) + "---|\n"
        func row(_ s: Series, _ name: String) -> String {
            "| \(name) | " + s.values.map { $0.map(ByteSize.format) ?? "—" }.joined(separator: " | ")
                + " | \(steps(s)) |\n"
        }
        md += header + row(t.total, "**Whole app**") + "\n"
        md += "### Grew at every step (`\(Trend.GrowthRule.id)`)\n\n"
        if let why = t.pathsUnavailable {
            md += "Not checked: \(cell(why)).\n\n"
        } else if t.grewEveryStep.isEmpty {
            md += "None.\n\n"
        } else {
            for p in t.grewEveryStep.prefix(listLength) {
                md +=
                    "- **\(cell(place(p, t)))**: \(values(p.series)); per step \(steps(p.series)) "
                    + "(\(p.backedUp ? "backed up" : "not backed up")\(p.owner.map { ", owner " + cell($0) } ?? ""))."
                    + " Likely \(cell(p.cause.text)).\n"
            }
            if t.grewEveryStep.count > listLength {
                md += "- *and \(groupedDigits(Int64(t.grewEveryStep.count - listLength))) more*\n"
            }
            md += "\n\(Trend.GrowthRule.summary).\n\n"
        }
        // A section with nothing in it is one name on the last line, not a heading and "None."
        var empty: [String] = []
        for table in tables(t) {
            if let rows = table.rows, rows.isEmpty, table.folded == 0 {
                empty.append(table.title)
                continue
            }
            md += "### \(table.title)\n\n"
            guard let rows = table.rows else {
                md += "Not available: \(cell(table.unavailable ?? "")).\n\n"
                continue
            }
            if !rows.isEmpty {
                md += header
                for s in rows.prefix(listLength) { md += row(s, s.name.map(cell) ?? "*no owner*") }
                if rows.count > listLength {
                    md +=
                        "| *and \(groupedDigits(Int64(rows.count - listLength))) more* |"
                        + String(repeating: " |", count: t.points.count + 1) + "\n"
                }
            }
            if let f = folded(table.folded) { md += (rows.isEmpty ? "" : "\n") + "*\(f)*\n" }
            md += "\n"
        }
        if t.pathsUnavailable == nil && t.grewMost.isEmpty {
            empty.append("Paths grown most")
        } else {
            md += "### Paths grown most, first to last point (\(groupedDigits(Int64(t.grewCount))))\n\n"
            if let why = t.pathsUnavailable { md += "Not available: \(cell(why)).\n" }
            for p in t.grewMost.prefix(listLength) {
                md += "- \(delta(p.series.growth)) \(cell(place(p, t))): \(values(p.series))\n"
            }
            if t.grewCount > listLength { md += "- *and \(groupedDigits(Int64(t.grewCount - listLength))) more*\n" }
        }
        if !empty.isEmpty { md += (md.hasSuffix("\n\n") ? "" : "\n") + MarkdownReport.nothingIn(empty) }
        return md
    }

    static func json(_ t: Trend) -> String {
        func series(_ s: Series) -> [(String, JSON)] {
            [
                ("values", .array(s.values.map { .optional($0) })), ("steps", .array(s.steps.map { .int($0) })),
                ("growth", .int(s.growth)),
            ]
        }
        func rows(_ list: [Series], _ key: String) -> JSON {
            .array(list.map { .object([(key, .optional($0.id))] + series($0)) })
        }
        func path(_ p: PathSeries) -> [(String, JSON)] {
            [("domain", .string(p.key.domain))] + JSONReport.path(p.key.path) + [
                ("zone", .string(p.zone.rawValue)), ("backedUp", .bool(p.backedUp)), ("owner", .optional(p.owner)),
            ] + series(p.series) + [("grewEveryStep", .bool(p.series.grewEveryStep))]
        }
        let check: JSON =
            t.stepLimit.map { limit in
                .object([
                    ("limit", .int(limit)), ("largestStep", .int(Int64(t.largestStep.step))),
                    ("growth", .int(t.largestStep.growth)),
                    ("verdict", .string(t.failed ? "failed" : "passed")),
                ])
            } ?? .null
        return JSON.object([
            ("schemaVersion", .int(schemaVersion)),
            ("kind", .string("sandbox-audit-trend")),
            ("tool", .object([("name", .string("sandbox-audit")), ("version", .string(Audit.toolVersion))])),
            (
                "points",
                .array(
                    t.points.map { p in
                        .object([
                            ("file", .string(p.location)), ("kind", .string(p.kind == .scan ? "scan" : "baseline")),
                            ("bundleIdentifier", .optional(p.bundleIdentifier)), ("version", .optional(p.version)),
                            ("complete", .optional(p.complete)),
                        ])
                    })
            ),
            ("complete", .bool(!t.incomplete)),
            ("notes", .array(t.notes.map { .string($0) })),
            ("growthPerStepCheck", check),
            ("total", .object(series(t.total))),
            ("domains", rows(t.domains, "domain")),
            ("zones", rows(t.zones, "zone")),
            ("owners", t.owners.map { rows($0, "owner") } ?? .null),
            ("ownersUnavailable", .optional(t.ownersUnavailable)),
            ("pathsUnavailable", .optional(t.pathsUnavailable)),
            (
                "rule",
                .object([
                    ("id", .string(Trend.GrowthRule.id)), ("summary", .string(Trend.GrowthRule.summary)),
                    ("references", .array(Trend.GrowthRule.references.map { .string($0) })),
                ])
            ),
            ("grewEveryStepCount", .int(Int64(t.grewEveryStep.count))),
            (
                "grewEveryStep",
                .array(
                    t.grewEveryStep.map { p in
                        .object(path(p) + [("cause", .string(p.cause.rawValue)), ("why", .string(p.cause.text))])
                    })
            ),
            ("grewCount", .int(Int64(t.grewCount))),
            ("grewMost", .array(t.grewMost.map { .object(path($0)) })),
        ]).prettyLine
    }
}
