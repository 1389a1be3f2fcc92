import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSystem

/// Who owns the bytes, in every format: each container's owners with their files and
/// backed-up bytes, and a finding's owner with its public source and what to do. Formats only:
/// the attribution is `OwnerMap`'s (Observe).
enum OwnerReport {
    /// One line on a finding's owner: who, where it is said, and what to do.
    static func line(_ a: Attribution) -> String {
        guard let e = a.entry else { return "owner: \(a.name) (team, from the policy file's owners)" }
        var s = "owner: \(e.owner) (\(e.kind.rawValue)): \(e.holds)"
        if case .catalogue(_, legacy: true) = a, let h = e.history { s += "; a location it no longer writes: \(h)" }
        if e.debugOnly { s += "; written only by debug builds, absent from release builds" }
        s += ". Source: \(e.source)" + (e.evidence == .observed ? " (observed, not read in code)" : "")
        return s + ". What to do: \(e.advice)"
    }

    /// A finding's owner's catalogue entry in JSON: its source and advice; null for a team or no owner.
    static func json(_ a: Attribution?) -> JSON {
        guard let a, let e = a.entry else { return .null }
        var legacy = false
        if case .catalogue(_, let l) = a { legacy = l }
        return .object([
            ("holds", .string(e.holds)),
            ("excludedBySDK", .string(e.exclusion.rawValue)),
            ("debugOnly", .bool(e.debugOnly)),
            ("legacyLocation", .bool(legacy)),
            ("evidence", .string(e.evidence.rawValue)),
            (
                "source",
                .object([
                    ("repository", .string(e.source.repository)), ("file", .string(e.source.file)),
                    ("line", .optional(e.source.line)),
                    ("commit", .optional(e.source.commit)), ("url", .string(e.source.url)),
                ])
            ),
            ("advice", .string(e.advice)),
        ])
    }

    /// One container's owners in JSON.
    static func json(_ totals: [OwnerMap.Total]) -> JSON {
        .array(
            totals.map { t in
                .object([
                    ("owner", .string(t.owner)), ("kind", .string(t.kind)), ("files", .int(Int64(t.files))),
                    ("backedUpBytes", .int(t.backedUpBytes)), ("size", .int(t.size)),
                ])
            })
    }

    /// The catalogue's page, where reports point.
    static var catalogueURL: String { References.repositoryFile("docs/owners.md") }

    /// The text table: per container, each owner's files, bytes and backed-up bytes.
    static func text(_ report: ScanReport, bold: (String) -> String) -> [String] {
        let (result, all) = (report.result, report.owners)
        guard all.contains(where: { !$0.isEmpty }) else { return [] }
        var lines: [String] = []
        for (inv, rows) in zip(result.inventories, all) where !rows.isEmpty {
            lines.append(
                bold("owners") + (result.isMultiDomain ? " in " + TerminalText.escaped(inv.domain) : "")
                    + " (the catalogue: \(catalogueURL))")
            let width = max(20, rows.map { $0.owner.count }.max() ?? 0)
            lines.append(
                bold(
                    TextReport.pad("owner", width + 2) + TextReport.pad("kind", 10)
                        + TextReport.pad("files", 8, right: true)
                        + TextReport.pad("size", 11, right: true) + TextReport.pad("backed up", 12, right: true)))
            for t in rows {
                lines.append(
                    TextReport.pad(TerminalText.escaped(t.owner), width + 2) + TextReport.pad(t.kind, 10)
                        + TextReport.pad(String(t.files), 8, right: true)
                        + TextReport.pad(ByteSize.format(t.size), 11, right: true)
                        + TextReport.pad(ByteSize.format(t.backedUpBytes), 12, right: true))
            }
            lines.append("")
        }
        let notes = report.maintainerNotes
        if !notes.isEmpty {
            lines.append(bold("what to tell the SDKs' maintainers") + " (the issue text: --format markdown)")
            for n in notes {
                var l =
                    "  " + TerminalText.escaped(n.entry.owner)
                    + ": \(ByteSize.format(n.backedUpBytes)) backed up in \(n.files.filter(\.backedUp).count) file(s)"
                if let g = n.growth { l += ", +\(ByteSize.format(g)) since the baseline" }
                lines.append(l + "; source: \(n.entry.source)")
            }
            lines.append("")
        }
        return lines
    }

    /// Owners per container in the Markdown table (the comment has a size limit).
    static let markdownRows = 15

    /// The Markdown table: one row per container and owner, the largest first.
    static func markdown(_ report: ScanReport, cell: (String) -> String) -> [String] {
        let (result, all) = (report.result, report.owners)
        guard all.contains(where: { !$0.isEmpty }) else { return [] }
        var lines = [
            "### Who owns the bytes", "", "Owners: the policy's `owners:`, then [the catalogue](\(catalogueURL)).", "",
            "| Domain | Owner | Kind | Files | Size | Backed up |", "|---|---|---|--:|--:|--:|",
        ]
        for (inv, rows) in zip(result.inventories, all) {
            for t in rows.prefix(markdownRows) {
                lines.append(
                    "| \(cell(inv.domain)) | \(cell(t.owner)) | \(t.kind) | \(t.files) | \(ByteSize.format(t.size)) "
                        + "| \(ByteSize.format(t.backedUpBytes)) |"
                )
            }
            if rows.count > markdownRows {
                lines.append("| \(cell(inv.domain)) | … \(rows.count - markdownRows) more | | | | |")
            }
        }
        return lines + [""] + maintainerMarkdown(report.maintainerNotes, cell: cell)
    }

    // MARK: What to tell an SDK's maintainers

    /// The notes of a scan (`OwnerMap.maintainerNotes`): SDK entries whose files are backed up
    /// or grew since the baseline.
    static func maintainerNotes(_ result: AuditResult) -> [MaintainerNote] {
        result.context.owners?.maintainerNotes(result.inventories, comparison: result.comparison) ?? []
    }

    /// Files listed per note, notes per report, and the section's bytes at most (the Markdown
    /// report is a pull-request comment with a size limit).
    static let maintainerFiles = 10
    static let maintainerNotesShown = 8
    static let maintainerBytes = 16_000

    /// One note's issue text, Markdown ready to paste into an issue on the SDK's repository:
    /// what the SDK holds, its files with sizes, backup and growth, and where its own source
    /// builds the path.
    static func issueText(_ n: MaintainerNote, cell: (String) -> String) -> [String] {
        let e = n.entry
        var what = "\(ByteSize.format(n.backedUpBytes)) backed up in \(n.files.filter(\.backedUp).count) file(s)"
        if let g = n.growth, g > 0 {
            what += (n.backedUpBytes > 0 ? ", and " : "") + "\(ByteSize.format(g)) of growth since the baseline"
        }
        if n.backedUpBytes == 0 {
            what =
                (n.growth ?? 0) > 0
                ? "\(ByteSize.format(n.growth ?? 0)) of growth since the baseline (not backed up)" : what
        }
        var state: [String] = []
        if n.backedUpBytes > 0 { state.append("in the device and iCloud backup") }
        if let g = n.growth, g > 0 { state.append("grew by \(ByteSize.format(g)) since the baseline") }
        var lines = [
            "**\(cell(e.owner)): \(cell(e.holds)), \(state.joined(separator: ", and "))**",
            "",
            "In an app's container, the SDK's files come to \(what) (\(n.fileCount) file(s) of the SDK's, "
                + "\(ByteSize.format(n.size)) in all):",
            "",
            "| Path | Size | Backed up | Growth since the baseline |",
            "|---|--:|---|--:|",
        ]
        for f in n.files.prefix(maintainerFiles) {
            let growth =
                n.growth == nil
                ? "no baseline"
                : f.added ? "new, +\(ByteSize.format(f.size))" : f.growth > 0 ? "+\(ByteSize.format(f.growth))" : "none"
            lines.append(
                "| \(cell(f.path.display)) | \(ByteSize.format(f.size)) | \(f.backedUp ? "yes" : "no") | \(growth) |")
        }
        if n.files.count > maintainerFiles { lines.append("| … \(n.files.count - maintainerFiles) more | | | |") }
        lines.append("")
        let located =
            "[\(e.source.title)](\(e.source.url))" + (e.source.line.map { ", \($0)" } ?? "")
            + (e.source.commit.map { " (read at commit \($0))" } ?? "")
        lines.append(
            e.evidence == .observed
                ? "Where it was reported before: \(located) (observed, not read in code)."
                : "Where the SDK builds this path: \(located).")
        var exclusion: String
        switch e.exclusion {
        case .excluded:
            exclusion =
                "The SDK sets the exclude-from-backup attribute here, yet these files are backed up: the attribute "
                + "is missing on them (set on other files, or lost when a file was replaced)."
        case .notExcluded: exclusion = "The SDK does not set the exclude-from-backup attribute on them."
        case .partly: exclusion = "The SDK excludes part of what it writes there, not these files."
        case .notNeeded:
            exclusion =
                "The SDK writes them to Caches or tmp, which backup skips; they still take the app's storage on the "
                + "device."
        case .unknown:
            exclusion =
                "Whether the SDK sets the exclude-from-backup attribute is not known (closed source, or not read)."
        }
        if let note = e.exclusionNote { exclusion = exclusion.dropLast() + ": " + note + "." }
        lines.append(exclusion)
        lines.append(
            "Apple asks that data an app can re-create or download again be kept out of backups: "
                + "\(MaintainerNote.backupReference); \(MaintainerNote.exclusionReference)."
        )
        lines.append("")
        lines.append(
            "<sub>Measured with sandbox-audit \(Audit.toolVersion); the SDK's locations: \(catalogueURL).</sub>")
        return lines
    }

    /// The Markdown section: per note, a heading and its issue text in a fenced block.
    static func maintainerMarkdown(_ notes: [MaintainerNote], cell: (String) -> String) -> [String] {
        guard !notes.isEmpty else { return [] }
        var lines = [
            "### What to tell the SDKs' maintainers", "",
            "Files of SDKs that are backed up or grew since the baseline, with where each SDK's own source builds "
                + "the path: each block is ready to paste into an issue on the SDK's repository.",
            "",
        ]
        var bytes = lines.reduce(0) { $0 + $1.utf8.count + 1 }
        var shown = 0
        for n in notes.prefix(maintainerNotesShown) {
            var heading =
                "#### \(cell(n.entry.owner)) "
                + "([\(n.entry.source.documentation == nil ? n.entry.source.repository : "Apple's documentation")]("
                + "\(n.entry.source.home))): \(ByteSize.format(n.backedUpBytes)) backed up"
            if let g = n.growth { heading += ", +\(ByteSize.format(g)) since the baseline" }
            let block = [heading, "", "````markdown"] + issueText(n, cell: cell) + ["````", ""]
            let size = block.reduce(0) { $0 + $1.utf8.count + 1 }
            guard bytes + size <= maintainerBytes else { break }
            bytes += size
            shown += 1
            lines += block
        }
        if shown < notes.count {
            lines += [
                "… \(notes.count - shown) more SDK(s): the JSON report's owners and `inventory` list their "
                    + "files.", "",
            ]
        }
        return lines
    }

    /// Tile colours by owner kind (no owner: grey).
    static let colors = ["sdk": "#2563eb", "framework": "#7c3aed", "team": "#059669", "": "#9ca3af"]

    /// Every owner of a container, backed up or not: a sortable table, largest first.
    static func htmlTable(_ rows: [OwnerMap.Total]) -> String {
        let x = XMLText.escape
        return
            "<div class=\"tw\"><table class=\"sortable\"><thead><tr><th>owner</th><th>kind</th><th "
            + "class=\"num\">files</th><th class=\"num\">size</th><th class=\"num\">backed up</th></tr></thead><tbody>"
            + rows.map { t in
                "<tr><td>\(x(t.owner))</td><td>\(x(t.kind))</td><td class=\"num\">\(t.files)</td><td class=\"num\" "
                    + "data-sort=\"\(t.size)\">\(x(ByteSize.format(t.size)))</td><td class=\"num\" "
                    + "data-sort=\"\(t.backedUpBytes)\">\(x(ByteSize.format(t.backedUpBytes)))</td></tr>"
            }.joined() + "</tbody></table></div>\n"
    }

    /// The HTML section: per container, a treemap of its backed-up bytes grouped by owner,
    /// coloured by kind, the bytes no owner claims as one grey tile.
    static func html(_ report: ScanReport) -> String {
        let (result, all) = (report.result, report.owners)
        guard all.contains(where: { !$0.isEmpty }) else { return "" }
        let x = XMLText.escape
        var h = "<section>\n"
        for (inv, rows) in zip(result.inventories, all) where !rows.isEmpty {
            var tiles = rows.filter { $0.backedUpBytes > 0 }.map {
                (name: $0.owner, kind: $0.kind, bytes: $0.backedUpBytes, files: $0.files)
            }
            let rest = inv.backupFootprint - tiles.reduce(Int64(0)) { $0.addingSaturated($1.bytes) }
            if rest > 0 { tiles.append((name: "no owner", kind: "", bytes: rest, files: 0)) }
            tiles.sort { $0.bytes > $1.bytes }
            let title = (result.isMultiDomain ? x(inv.domain) + ": b" : "B") + "acked-up bytes by owner"
            h += "<h2>\(title)</h2>\n"
            let table = htmlTable(rows)
            guard !tiles.isEmpty else {
                h += "<p>Nothing backed up.</p>\n" + table
                continue
            }
            let height = 160.0
            let rects = Treemap.squarify(
                tiles.map { Double($0.bytes) }, in: Treemap.Rect(x: 0, y: 0, w: Treemap.width, h: height))
            h +=
                "<svg class=\"treemap\" viewBox=\"0 0 \(Int(Treemap.width)) \(Int(height))\" role=\"img\" "
                + "aria-label=\"\(title)\"><title>\(title)</title>"
            for (t, r) in zip(tiles, rects) {
                let tip =
                    "\(t.name)\(t.kind.isEmpty ? "" : " (\(t.kind))"): \(ByteSize.format(t.bytes)) backed up"
                    + (t.files > 0 ? ", \(t.files) files" : "")
                h +=
                    "<g><title>\(x(tip))</title><rect x=\"\(Treemap.f(r.x))\" y=\"\(Treemap.f(r.y))\" "
                    + "width=\"\(Treemap.f(r.w))\" height=\"\(Treemap.f(r.h))\" "
                    + "fill=\"\(colors[t.kind] ?? "#9ca3af")\"/>"
                h +=
                    "<rect x=\"\(Treemap.f(r.x))\" y=\"\(Treemap.f(r.y))\" width=\"\(Treemap.f(r.w))\" "
                    + "height=\"\(Treemap.f(r.h))\" class=\"tile\"/>"
                if r.h >= 14, let name = Treemap.fit(t.name, r.w) {
                    h += "<text x=\"\(Treemap.f(r.x + 4))\" y=\"\(Treemap.f(r.y + 12))\" class=\"tl\">\(x(name))</text>"
                }
                h += "</g>"
            }
            h +=
                "</svg>\n<p class=\"legend\">"
                + [
                    ("sdk", "SDK"), ("framework", "Apple framework"), ("team", "team (policy owners)"),
                    ("", "no owner"),
                ].map {
                    "<span style=\"color:\(colors[$0.0]!)\">■</span> \($0.1)"
                }.joined(separator: " ") + " · <a href=\"\(catalogueURL)\">the owner catalogue</a></p>\n" + table
        }
        return h + "</section>"
    }
}
