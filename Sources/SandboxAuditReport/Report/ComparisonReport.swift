import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSources
import SandboxAuditSystem

/// `compare`'s text and Markdown (docs/compare-format.md). Both print the same sections from
/// `ReportComparison`; lists are cut with an "and N more" line, and the Markdown is cut
/// further until it fits a GitHub comment. Printers decide nothing.
public enum ComparisonReport {
    typealias Row = ReportComparison.Row
    typealias PathChange = ReportComparison.PathChange
    typealias FindingRecord = ComparedReport.FindingRecord

    /// How many paths and findings each list shows, and domains and owners each table, in text.
    static let textListLength = 25
    /// Longest path or message a Markdown line shows, in characters, before "…".
    static let markdownItemLength = 300

    static func delta(_ d: Int64?) -> String {
        guard let d else { return "n/a" }
        return d == 0 ? "±0 B" : (d > 0 ? "+" : "") + ByteSize.format(d)
    }

    static func count(_ d: Int64) -> String { d == 0 ? "±0" : (d > 0 ? "+" : "") + groupedDigits(d) }

    /// "1.20 MB → 3.40 MB": "—" where the side lacks the row, "n/a" where it lacks the figure.
    static func span(_ r: Row, _ figure: (ComparedReport.Figures) -> Int64?, _ format: (Int64) -> String) -> String {
        func one(_ f: ComparedReport.Figures?) -> String { f.map { figure($0).map(format) ?? "n/a" } ?? "—" }
        return "\(one(r.before)) → \(one(r.after))"
    }

    static func side(_ s: ComparedReport) -> String {
        let what = s.kind == .scan ? "scan report" : "baseline"
        let who = [s.bundleIdentifier, s.version].compactMap { $0 }.joined(separator: " ")
        return "\(s.location) (\(what)\(who.isEmpty ? "" : ", " + who))"
    }

    /// The path as the reports write it: `DOMAIN/PATH` outside the app's data container.
    static func place(domain: String, path: ContainerPath?, in c: ReportComparison) -> String {
        let primary = c.head.domains.first ?? domain
        let shown = path?.display ?? "(no path)"
        return domain == primary ? shown : "\(domain)/\(shown)"
    }

    static func pathLine(_ p: PathChange, _ c: ReportComparison) -> String {
        let sizes =
            "\(p.before.map { ByteSize.format($0.size) } ?? "new") → "
            + "\(p.after.map { ByteSize.format($0.size) } ?? "removed")"
        let backedUp = (p.after ?? p.before)?.backedUp == true ? "backed up" : "not backed up"
        let owner = p.owner.map { ", owner \($0)" } ?? ""
        let written = ScanReport.writtenBy(source(p, c)).map { ", " + $0 } ?? ""
        return
            "\(delta(p.delta))  \(place(domain: p.key.domain, path: p.key.path, in: c)) "
            + "(\(sizes), \(backedUp)\(owner)\(written))"
    }

    /// The lines of the app that build a listed path (`compare --sources`); empty without sources.
    static func source(_ p: PathChange, _ c: ReportComparison) -> [SourceLocation] {
        c.sources?.candidates(p.key.path, domain: p.key.domain, owner: p.owner) ?? []
    }

    static func findingLine(_ f: FindingRecord, _ c: ReportComparison) -> String {
        let head = [f.severity, f.ruleId].compactMap { $0 }.joined(separator: " ")
        let message = f.message.map { ": \($0)" } ?? ""
        let owner = f.owner.map { " (owner \($0))" } ?? ""
        return "\(head) \(place(domain: f.domain, path: f.path, in: c))\(message)\(owner)"
    }

    /// The sections both formats print, each a title and its lines (or why it has none).
    struct Section {
        let title: String
        let rows: [Row]?
        let lines: [String]
        let total: Int
        let unavailable: String?
        /// Rows left out because nothing in them changed (`--show-unchanged` lists them).
        var folded = 0
        /// The title without its counts.
        var name: String? = nil
    }

    /// A row whose figures are the same on both sides (`Library/Caches 0 B → 0 B ±0`).
    static func unchanged(_ r: Row) -> Bool { r.before != nil && r.before == r.after }

    /// The verdict line of `--fail-on-growth`: "grew 15.6 MB, more than the 1.00 MB allowed — FAILED".
    static func verdict(_ v: ReportComparison.Verdict) -> String {
        let limit = ByteSize.format(v.limit)
        let what =
            v.growth > 0
            ? "grew \(ByteSize.format(v.growth)), \(v.failed ? "more than" : "within") the \(limit) allowed"
            : v.growth == 0
                ? "did not grow (\(limit) allowed)" : "shrank \(ByteSize.format(-v.growth)) (\(limit) allowed)"
        return "backup footprint \(what) — \(v.failed ? "FAILED" : "PASSED")"
    }

    static func sections(_ c: ReportComparison, showUnchanged: Bool = false) -> [Section] {
        func table(_ title: String, _ rows: [Row]?, unavailable: String? = nil) -> Section {
            guard let rows else {
                return Section(title: title, rows: nil, lines: [], total: 0, unavailable: unavailable)
            }
            let shown = showUnchanged ? rows : rows.filter { !unchanged($0) }
            return Section(
                title: title, rows: shown, lines: [], total: shown.count, unavailable: unavailable,
                folded: rows.count - shown.count)
        }
        func paths(_ title: String, _ list: [PathChange], bytes: ((PathChange) -> Int64)? = nil) -> Section {
            let sum = bytes.map { b in ", " + delta(list.reduce(Int64(0)) { $0.addingSaturated(b($1)) }) } ?? ""
            return Section(
                title: "\(title) (\(groupedDigits(Int64(list.count)))\(sum))", rows: nil,
                lines: list.prefix(500).map { pathLine($0, c) }, total: list.count,
                unavailable: c.pathsUnavailable, name: title)
        }
        func findings(_ title: String, _ list: [FindingRecord]) -> Section {
            Section(
                title: "\(title) (\(groupedDigits(Int64(list.count))))", rows: nil,
                lines: list.prefix(500).map { findingLine($0, c) }, total: list.count,
                unavailable: nil, name: title)
        }
        return [
            table("By domain", c.domains),
            table("By zone", c.zones),
            table("By owner", c.owners, unavailable: c.ownersUnavailable),
            paths("Paths grown most", c.grew),
            paths("New paths", c.added),
            paths("Removed paths", c.removed),
            paths("Newly backed up", c.newlyBackedUp, bytes: { $0.after?.size ?? 0 }),
            paths("No longer backed up", c.noLongerBackedUp, bytes: { -($0.before?.size ?? 0) }),
            paths(
                "Exclusions lost (exclusion-lost: excluded in BASE, backed up in HEAD)", c.exclusionLost,
                bytes: { $0.after?.size ?? 0 }),
            findings("Findings new in HEAD", c.newFindings),
            findings("Findings fixed since BASE", c.fixedFindings),
        ]
    }

    static func more(_ shown: Int, of total: Int) -> String? {
        total > shown ? "and \(groupedDigits(Int64(total - shown))) more" : nil
    }

    static func folded(_ n: Int) -> String? {
        n == 0
            ? nil
            : "\(groupedDigits(Int64(n))) unchanged \(n == 1 ? "row" : "rows") folded (--show-unchanged lists "
                + "\(n == 1 ? "it" : "them"))"
    }

    /// `compare`'s output in `format` (`text`, `markdown` or `json`; nil for any other name).
    /// `showUnchanged`: list the rows whose figures did not change (text and Markdown);
    /// `reportURL`: where the HTML report of HEAD's scan is (a CI artifact), linked near the top.
    public static func render(
        _ c: ReportComparison, as format: String, showUnchanged: Bool = false, reportURL: String? = nil
    ) -> String? {
        switch format {
        case "text": return text(c, showUnchanged: showUnchanged, reportURL: reportURL)
        case "markdown": return markdown(c, showUnchanged: showUnchanged, reportURL: reportURL)
        case "json": return json(c, reportURL: reportURL)
        default: return nil
        }
    }

    static func text(_ c: ReportComparison, showUnchanged: Bool = false, reportURL: String? = nil) -> String {
        var out =
            "sandbox-audit compare\n  BASE \(TerminalText.escaped(side(c.base)))\n  HEAD "
            + "\(TerminalText.escaped(side(c.head)))\n"
        if let v = c.verdict { out += "  \(verdict(v))\n" }
        if let url = reportURL { out += "  report: \(TerminalText.escaped(url))\n" }
        for n in c.notes { out += "  note: \(TerminalText.escaped(n))\n" }
        func row(_ r: Row, _ name: String) -> String {
            "  \(TerminalText.escaped(name))\n      backup \(span(r, \.backupFootprint, ByteSize.format)) "
                + "(\(delta(r.footprintDelta)))"
                + "; kept on update \(span(r, \.keptOnUpdate, ByteSize.format)) (\(delta(r.keptOnUpdateDelta)))"
                + "; files \(span(r, { $0.files }, groupedDigits)) (\(count(r.filesDelta)))\n"
        }
        out += "\n" + row(c.total, "Whole app")
        for s in sections(c, showUnchanged: showUnchanged) {
            out += "\n\(s.title):\n"
            if let why = s.unavailable, s.rows == nil && s.lines.isEmpty {
                out += "  not compared: \(why)\n"
                continue
            }
            let shown = min(s.total, textListLength)
            if let rows = s.rows {
                if rows.isEmpty && s.folded == 0 { out += "  none\n" }
                for r in rows.prefix(shown) { out += row(r, r.name ?? "(no owner)") }
                if let f = folded(s.folded) { out += "  \(f)\n" }
            } else {
                if s.total == 0 { out += "  none\n" }
                for l in s.lines.prefix(shown) { out += "  \(TerminalText.escaped(l))\n" }
            }
            if let m = more(shown, of: s.total) { out += "  \(m)\n" }
        }
        return out
    }

    static func markdown(_ c: ReportComparison, showUnchanged: Bool = false, reportURL: String? = nil) -> String {
        let all = sections(c, showUnchanged: showUnchanged)
        // The longest lists first; shorter until the comment fits GitHub's limit.
        for length in [50, 20, 10, 5, 2, 0] {
            let md = markdown(c, all, listLength: length, reportURL: reportURL)
            if md.utf8.count <= MarkdownReport.maxLength { return md }
        }
        let cut = "\n\n*Cut to fit a GitHub comment: run `sandbox-audit compare --format text` for everything.*\n"
        let md = markdown(c, all, listLength: 0, reportURL: reportURL)
        var end = md.utf8.index(md.utf8.startIndex, offsetBy: MarkdownReport.maxLength - cut.utf8.count)
        while end > md.startIndex, md[end] != "\n" { end = md.index(before: end) }
        return String(md[..<end]) + cut
    }

    static func clipped(_ s: String) -> String {
        s.count <= markdownItemLength ? s : String(s.prefix(markdownItemLength)) + "…"
    }

    /// A URL as a Markdown link target, with the characters that could end it (or a line) percent-escaped.
    static func linkTarget(_ url: String) -> String {
        var out = ""
        for u in url.unicodeScalars {
            if u.value < 0x21 || u.value == 0x7F || "<>\\`|()[]".unicodeScalars.contains(u) || u.value > 0x7E {
                for b in String(u).utf8 { out += (b < 16 ? "%0" : "%") + String(b, radix: 16, uppercase: true) }
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    static func markdown(_ c: ReportComparison, _ all: [Section], listLength: Int, reportURL: String? = nil) -> String {
        let cell = MarkdownReport.cell
        let grew = c.footprintGrowth
        let mark = c.verdict.map { $0.failed ? " ❌" : " ✅" } ?? ""
        var md =
            "## sandbox-audit: backup footprint "
            + "\(delta(grew)) \(grew > 0 ? "📈" : grew < 0 ? "📉" : "")\(mark)\n\n"
        md += "BASE \(cell(clipped(side(c.base)))) → HEAD \(cell(clipped(side(c.head))))\n\n"
        if let v = c.verdict {
            // One row, as size-limit's pull-request comment gives per check.
            md += "| | backup footprint growth | limit | verdict |\n|---|---:|---:|---|\n"
            md +=
                "| \(v.failed ? "❌" : "✅") | \(delta(v.growth)) | \(ByteSize.format(v.limit)) | "
                + "\(cell(verdict(v))) "
                + "|\n\n"
        }
        if let url = reportURL { md += "[The HEAD scan's full report (HTML)](\(linkTarget(url)))\n\n" }
        for n in c.notes { md += "> **⚠️ \(cell(n))**\n\n" }
        let header =
            "| | backup footprint | Δ | kept on update | Δ | files | Δ |\n|---|---:|---:|---:|---:|---:|---:|\n"
        func row(_ r: Row, _ name: String) -> String {
            "| \(name) | \(span(r, \.backupFootprint, ByteSize.format)) | \(delta(r.footprintDelta)) "
                + "| \(span(r, \.keptOnUpdate, ByteSize.format)) | \(delta(r.keptOnUpdateDelta)) "
                + "| \(span(r, { $0.files }, groupedDigits)) | \(count(r.filesDelta)) |\n"
        }
        md += header + row(c.total, "**Whole app**") + "\n"
        // A section with nothing in it is one name on the last line, not a heading and "None."
        var empty: [String] = []
        for s in all {
            if s.unavailable == nil, s.total == 0, s.folded == 0, s.rows?.isEmpty ?? s.lines.isEmpty {
                empty.append(s.name ?? s.title)
                continue
            }
            md += "### \(s.title)\n\n"
            if let why = s.unavailable, s.rows == nil && s.lines.isEmpty {
                md += "Not compared: \(cell(why)).\n\n"
                continue
            }
            let shown = min(s.total, listLength)
            if let rows = s.rows {
                if rows.isEmpty {
                    md += s.folded == 0 ? "None.\n" : ""
                } else {
                    md += header
                    for r in rows.prefix(shown) { md += row(r, r.name.map { cell(clipped($0)) } ?? "*no owner*") }
                    if let m = more(shown, of: s.total) { md += "| *\(m)* | | | | | | |\n" }
                }
                if let f = folded(s.folded) { md += (rows.isEmpty ? "" : "\n") + "*\(f)*\n" }
            } else {
                if s.total == 0 { md += "None.\n" }
                for l in s.lines.prefix(shown) { md += "- \(cell(clipped(l)))\n" }
                if let m = more(shown, of: s.total) { md += "- *\(m)*\n" }
            }
            md += "\n"
        }
        md += MarkdownReport.nothingIn(empty)
        return md
    }
}
