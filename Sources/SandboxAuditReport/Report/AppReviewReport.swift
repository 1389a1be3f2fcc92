import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSystem

/// `--format app-review`: App Review's measurement of the scan (Markdown, readable as text):
/// what the app stores in the backup, in the words of the rejections under guideline 2.23, the
/// places and owners that make it up and what to do with each. Formats only: the figures are
/// `AppReviewMeasurement`'s (Observe). Described in docs/app-review.md.
enum AppReviewReport {
    /// Places listed before the rest are summed on one line.
    static let shownPlaces = 15

    /// The rejections' wording, quoted with their public sources.
    static let rejectionWording =
        "In particular, we found that on launch and/or content download, your app stores N MB."
    static let rejectionSources = [
        "SDWebImage/SDWebImage#343: https://github.com/SDWebImage/SDWebImage/issues/343",
        "microsoft/react-native-code-push#320 (\"On launch and content download, your app stores 8.14MB on the "
            + "user's iCloud\"): https://github.com/microsoft/react-native-code-push/issues/320",
    ]

    static func render(_ report: ScanReport) -> String {
        let result = report.result
        let m = AppReviewMeasurement(result.inventories, owners: result.context.owners)
        let cell = MarkdownReport.cell
        let summary = report.summary
        var md = "## App Review's measurement: \(cell(summary.identity))\n\n"
        if !result.complete { md += "> **⚠️ \(cell(result.incompleteSummary))**\n\n" }
        md +=
            "**On launch and content download, your app stores \(ByteSize.format(m.bytes))** "
            + "(\(groupedDigits(m.bytes)) bytes in \(groupedDigits(Int64(m.files))) "
            + "file\(m.files == 1 ? "" : "s")) in the backup"
        md += result.isMultiDomain ? ", over its \(m.domains.count) backup domains.\n\n" : ".\n\n"
        md +=
            "That is App Review's figure for the containers as scanned: the bytes an iCloud or computer backup "
            + "carries. "
        md +=
            "App Review measures it after install and first launch, or after a content download, and its rejections "
            + "tell "
        md +=
            "developers to check it the same way (\"Install and launch your app; Go to Settings > iCloud > Storage & "
            + "Backup > Manage Storage\"). Rejections under guideline 2.23 (\"Apps must follow the iOS Data "
            + "Storage Guidelines or they "
        md += "will be rejected\") quote it: \"\(rejectionWording)\" (\(rejectionSources.joined(separator: "; "))). "
        md +=
            "Scan the app's containers at that moment to see the same figure (docs/app-review.md, Producing App "
            + "Review's moment on the Simulator).\n\n"
        if result.isMultiDomain {
            md += "| Backup domain | Files | Backed up |\n|---|--:|--:|\n"
            for d in m.domains { md += "| \(cell(d.domain)) | \(d.files) | \(ByteSize.format(d.bytes)) |\n" }
            md += "\n"
        }
        guard m.bytes > 0 || m.files > 0 else {
            return md + "Nothing is backed up: the guideline's measurement finds nothing to report.\n\n" + sources()
                + MarkdownReport.notChecked(report)
        }
        md += "### Where the backed-up bytes are\n\n"
        md += "Each place: a folder two levels below a container's root (three under Library), or a file higher up; "
        md += "split by owner (the policy's `owners:`, then [the owner catalogue](\(OwnerReport.catalogueURL))).\n\n"
        md += "| Backed up | Files | Path | " + (result.isMultiDomain ? "Domain | " : "") + "Owner | What to do |\n"
        md += "|--:|--:|---|" + (result.isMultiDomain ? "---|" : "") + "---|---|\n"
        for p in m.places.prefix(shownPlaces) {
            let path = p.path.display + (p.isFolder ? "/" : "")
            let owner = p.owner.map { "\(cell($0)) (\(p.ownerKind ?? ""))" } ?? "no owner"
            md += "| \(ByteSize.format(p.bytes)) | \(p.files) | `\(path.replacingOccurrences(of: "`", with: "'"))` | "
            md += (result.isMultiDomain ? "\(cell(p.domain)) | " : "") + "\(owner) | \(cell(p.advice.text)) |\n"
        }
        if m.places.count > shownPlaces {
            let rest = m.places.dropFirst(shownPlaces)
            let bytes = rest.reduce(Int64(0)) { $0.addingSaturated($1.bytes) }
            let files = rest.reduce(0) { $0 + $1.files }
            md +=
                "| \(ByteSize.format(bytes)) | \(files) | … \(rest.count) more places | "
                + (result.isMultiDomain ? "| " : "") + "| |\n"
        }
        md += "\n### Whose bytes they are\n\n| Owner | Kind | Files | Backed up |\n|---|---|--:|--:|\n"
        for o in m.owners {
            md +=
                "| \(o.owner.map(cell) ?? "no owner") | \(o.kind ?? "") | \(o.files) | \(ByteSize.format(o.bytes)) |\n"
        }
        md += "\n### What to do\n\n"
        var seen = Set<String>()
        for p in m.places.prefix(shownPlaces) where seen.insert(p.advice.text).inserted {
            md += "- \(cell(p.advice.text)) Sources: " + p.advice.sources.joined(separator: "; ") + "\n"
        }
        return md + "\n" + sources() + MarkdownReport.notChecked(report)
    }

    static func sources() -> String {
        "Apple's rules for where data goes: " + AppReviewMeasurement.guidelineSources.joined(separator: "; ") + ".\n"
    }
}
