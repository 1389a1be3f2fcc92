import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// The data protection census of a scan, in every format that lays out sections (text, JSON,
/// Markdown, HTML, SARIF run properties): per backup domain, the entries, files and bytes at
/// each class a device backup records. A scan of anything but a backup says once that the
/// classes need a device backup to be seen. Documented in docs/json-format.md (`protection`).
enum ProtectionReport {
    /// What a scan of a container, an archive or a Simulator says instead of a census.
    static let notObservable =
        "data protection classes (complete, completeUntilFirstUserAuthentication …) are not observable in a copied "
        + "container, an archive or a Simulator: only a device backup records them; scan a backup folder of the "
        + "app to see them"

    /// The censuses of the backup domains, in scan order.
    static func censuses(_ result: AuditResult) -> [(domain: String, census: ProtectionCensus)] {
        result.inventories.compactMap { inv in ProtectionCensus(inv).map { (inv.domain, $0) } }
    }

    /// The note, when no container of the scan was read from a backup.
    static func note(_ result: AuditResult) -> String? {
        result.inventories.contains { $0.container.source.capabilities.protectionClasses } ? nil : notObservable
    }

    static func json(_ census: ProtectionCensus?) -> JSON {
        guard let census else { return .null }
        return .array(
            census.rows.map { row in
                .object([
                    ("protectionClass", row.protectionClass.map { .string($0.name) } ?? .null),
                    ("entries", .int(Int64(row.entries))), ("files", .int(Int64(row.files))), ("size", .int(row.size)),
                ])
            })
    }

    /// The scan's top-level `protection` object.
    static func json(_ result: AuditResult) -> JSON {
        .object([("observable", .bool(note(result) == nil)), ("note", .optional(note(result)))])
    }

    static func text(_ result: AuditResult, bold: (String) -> String) -> [String] {
        if let note = note(result) { return ["note: " + note, ""] }
        var lines: [String] = []
        for (domain, census) in censuses(result) {
            lines.append(bold("data protection") + " \(TerminalText.escaped(domain)) (as the backup records it)")
            lines.append(
                bold(
                    TextReport.pad("class", 40) + TextReport.pad("entries", 9, right: true)
                        + TextReport.pad("files", 8, right: true) + TextReport.pad("size", 11, right: true)))
            for row in census.rows {
                lines.append(
                    TextReport.pad(row.label, 40) + TextReport.pad(String(row.entries), 9, right: true)
                        + TextReport.pad(String(row.files), 8, right: true)
                        + TextReport.pad(ByteSize.format(row.size), 11, right: true))
            }
            lines.append("")
        }
        return lines
    }

    static func markdown(_ result: AuditResult) -> String {
        let cell = MarkdownReport.cell
        if let note = note(result) { return "> \(cell(note)).\n\n" }
        var md = ""
        for (domain, census) in censuses(result) {
            md += "### Data protection: \(cell(domain))\n\n| class | entries | files | size |\n|---|---:|---:|---:|\n"
            for row in census.rows {
                md += "| \(cell(row.label)) | \(row.entries) | \(row.files) | \(ByteSize.format(row.size)) |\n"
            }
            md += "\n"
        }
        return md
    }

    static func html(_ result: AuditResult) -> String {
        let x = XMLText.escape
        if let note = note(result) { return "<section><p class=\"meta\">\(x(note)).</p></section>\n" }
        var h = ""
        for (domain, census) in censuses(result) {
            h +=
                "<section><h2>Data protection: \(x(domain))</h2>\n<div "
                + "class=\"tw\"><table><thead><tr><th>class</th><th class=\"num\">entries</th><th "
                + "class=\"num\">files</th><th class=\"num\">size</th></tr></thead><tbody>"
            for row in census.rows {
                h +=
                    "<tr><td>\(x(row.label))</td><td class=\"num\">\(row.entries)</td><td "
                    + "class=\"num\">\(row.files)</td><td class=\"num\">\(x(ByteSize.format(row.size)))</td></tr>"
            }
            h += "</tbody></table></div></section>\n"
        }
        return h
    }

    /// JUnit properties of the `scan` suite: per backup domain and class, its files and bytes
    /// (`protection DOMAIN CLASS` = `FILES files, BYTES bytes`), or the note.
    static func junitProperties(_ result: AuditResult) -> [(String, String)] {
        if let note = note(result) { return [("protection", note)] }
        return censuses(result).flatMap { domain, census in
            census.rows.map {
                ("protection \(domain) \($0.label)", "\($0.files) files, \($0.size) bytes (\($0.entries) entries)")
            }
        }
    }

    /// SARIF run properties: each backup domain's census, or the note.
    static func sarifProperties(_ result: AuditResult) -> [(String, JSON)] {
        if let note = note(result) { return [("protectionNote", .string(note))] }
        return [("protection", .object(censuses(result).map { ($0.domain, json($0.census)) }))]
    }
}
