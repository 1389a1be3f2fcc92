import Foundation
import SandboxAuditMeasure
import SandboxAuditRules

/// docs/owners.md: the owner catalogue as a page, generated from `OwnerCatalogue.all` (the
/// tests check the file against it).
package enum OwnerCatalogueReport {
    package static func markdown() -> String {
        func code(_ s: String) -> String { "`" + s + "`" }
        func match(_ m: OwnerEntry.Match) -> String {
            switch m {
            case .path(let g): return "path " + code(g)
            case .suite(let s): return "suite " + code(s) + " (" + code("Library/Preferences/\(s).plist") + ")"
            case .keyPrefix(let p): return "keys " + code(p + "…") + " in the app's preferences plist"
            case .store(let g): return "store " + code(g)
            }
        }
        var md = """
            # Who owns the bytes: the owner catalogue

            Generated from the catalogue in `Sources/SandboxAuditRules/Observe/Owners` (the tests check this
            page against it). `inventory`, the reports and the findings attribute each path to the
            last line of the policy file's `owners:` that covers it ([policy-file.md](policy-file.md#owners)),
            else to the last entry below that covers it (matches it, or a folder above it): the
            general entries come first, so an SDK's own folder wins over them. A suite is a UserDefaults
            suite's plist, in any of the app's containers; key prefixes name the owners of keys in the
            app's own preferences plist (`large-user-defaults` names them). **Excluded** says whether the
            SDK sets the exclude-from-backup attribute: `not-needed` is Caches or tmp, which backup skips.
            **Evidence**: `code` was read in the SDK's source at the file and lines given, `docs` in its
            documentation, `observed` only seen in public issues or container listings, not read in code.
            Each entry's example paths are built as a real container and attributed by the tests
            (`OwnerCatalogueTests`).

            Names are matched exactly: a vendor's folder by its full name (`Library/Caches/io.sentry`,
            `Library/Application Support/com.microsoft.appcenter`), a database with its `-wal`, `-shm` and
            `-journal` companions by theirs, a vendor prefix only with the rest of the name the SDK builds
            (`Library/mixpanel-TOKEN-events`; `bugsnag-shared-<bundle ID>/` as a folder). An app's own file
            named like an SDK (`Library/mixpanel-export.csv`, `Documents/sentry-notes.txt`,
            `Library/Caches/io.sentry-notes.txt`) has no owner; the tests check such names for every entry.
            A name an app may choose itself (`tmp/models`, `Documents/app_log.txt`, `Library/Cloud`) is the
            SDK's only in a container that also holds a path only that SDK writes ("only beside" below);
            the tests hold a list of generic app names (logs, `db.sqlite3`, `models`, `images`,
            `downloads`, `cache.db`, `data.json` …) that no entry owns.

            Kind `framework`: files iOS writes in the app's container on its behalf (cookies, HTTP
            storages, WebKit data, saved state, snapshots). The app controls them only through the API
            each entry's advice names, cited from Apple's documentation, so a finding about one is at
            most a warning unless the policy file sets its rule's severity (`rules:`): the developer's
            build never fails for bytes the developer did not write.

            For an SDK whose files are backed up, or grew since the baseline (`scan --baseline`), the
            Markdown report adds "What to tell the SDKs' maintainers": per entry, its files with sizes,
            backup and growth, and the source line below, as a block ready to paste into an issue on the
            SDK's repository (the text report lists the same SDKs in one line each).

            \(OwnerCatalogue.all.count) entries, \(Set(OwnerCatalogue.all.map(\.owner)).count) owners.

            | Owner | Kind | Matches | Holds | Excluded | Evidence | Source | What to do |
            |---|---|---|---|---|---|---|---|

            """
        for e in OwnerCatalogue.all {
            var matches = e.matches.map(match).joined(separator: "; ")
            if !e.legacy.isEmpty { matches += "; before it moved: " + e.legacy.map(match).joined(separator: "; ") }
            if !e.confirmedBy.isEmpty {
                matches += "; only beside " + e.confirmedBy.map(code).joined(separator: " or ")
            }
            var holds = e.holds
            if let h = e.history { holds += " (moved: \(h))" }
            if e.debugOnly { holds += " **debug-only**: absent from release builds" }
            let excluded = e.exclusion.rawValue + (e.exclusionNote.map { ": " + $0 } ?? "")
            // Linked as repository/file, so that a file named Sources/… reads as the SDK's, not this project's.
            let source = "[\(e.source.title)](\(e.source.url))" + (e.source.line.map { " " + $0 } ?? "")
            let row = [e.owner, e.kind.rawValue, matches, holds, excluded, e.evidence.rawValue, source, e.advice]
            md += "| " + row.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
        }
        return md
    }
}
