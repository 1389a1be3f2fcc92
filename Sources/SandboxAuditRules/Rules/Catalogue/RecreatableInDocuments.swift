import SandboxAuditCore
import SandboxAuditSystem

/// `recreatable-in-documents`: content that looks like a cache, by its name, in Documents.
struct RecreatableInDocuments: Rule {
    init() {}

    /// File name endings (compared case-insensitively).
    static let fileSuffixes = [".cache", ".tmp", ".temp", ".part", ".partial", ".download", ".crdownload", ".swp"]
    /// Folder names (case-insensitively).
    static let folderNames: Set<String> = ["tmp", "temp", ".tmp", "thumbnails", ".thumbnails", "thumbs"]
    /// Folder name endings (case-insensitively): `Cache`, `ImageCache`, `url_caches` …
    static let folderSuffixes = ["cache", "caches"]

    let description = RuleDescription(
        id: "recreatable-in-documents",
        name: "Re-creatable content in Documents",
        summary:
            "Cache-like content in Documents, by name: *.cache, *.tmp, *.temp, *.part, *.partial, *.download, "
            + "*.crdownload, *.swp files; tmp, temp, thumbnails, thumbs and *cache / *caches folders.",
        rationale: """
            Documents is for critical data the user created and the app cannot re-create; it is always backed \
            up. Caches, partial downloads and thumbnails there inflate every backup; they belong in \
            Library/Caches (\(References.backupBestPractices); \(References.dataStorageGuidelines)). The rule \
            judges by name only and reports the topmost matching item once.
            """,
        fix: "Move it to Library/Caches (or tmp for partial downloads), where backup does not carry it.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A thumbnail folder",
                [
                    .directory("Documents/Thumbnails"), .file("Documents/Thumbnails/1.jpg"),
                    .file("Documents/Thumbnails/2.jpg"),
                ], expect: ["Documents/Thumbnails"]),
            RuleExample(
                "An interrupted download", [.file("Documents/season1.zip.part", size: 4096)],
                expect: ["Documents/season1.zip.part"]),
            RuleExample(
                "An image cache folder", [.directory("Documents/ImageCache"), .file("Documents/ImageCache/a.cache")],
                expect: ["Documents/ImageCache"]),
        ],
        nonTriggeringExamples: [
            RuleExample("User documents", [.file("Documents/Report.pages"), .file("Documents/cached-thoughts.txt")]),
            RuleExample(
                "A cache where it belongs",
                [.directory("Library/Caches/Thumbnails"), .file("Library/Caches/Thumbnails/1.jpg")]),
            RuleExample("An excluded partial download", [.file("Documents/season1.zip.part", .exclude())]),
        ])

    /// Every pattern is ASCII: names are compared with their ASCII capitals folded, in place; a
    /// String is made only for a match.
    static func matches(name: ArraySlice<UInt8>, kind: WalkEntry.Kind) -> String? {
        switch kind {
        case .file:
            return fileSuffixBytes.firstIndex { endsFolded(name, with: $0) && name.count > $0.count }.map {
                "a *\(fileSuffixes[$0]) file"
            }
        case .directory:
            if folderNameBytes.contains(where: { $0.count == name.count && endsFolded(name, with: $0) })
                || folderSuffixBytes.contains(where: { endsFolded(name, with: $0) })
            {
                return "a \(String(decoding: name.map(folded), as: UTF8.self)) folder"
            }
            return nil
        default:
            return nil
        }
    }

    private static func folded(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// Whether `name`, its ASCII capitals folded, ends with `suffix` (lower case).
    private static func endsFolded(_ name: ArraySlice<UInt8>, with suffix: [UInt8]) -> Bool {
        guard name.count >= suffix.count else { return false }
        var i = name.endIndex - suffix.count
        for b in suffix {
            guard folded(name[i]) == b else { return false }
            i += 1
        }
        return true
    }

    static let fileSuffixBytes = fileSuffixes.map { Array($0.utf8) }
    static let folderNameBytes = folderNames.sorted().map { Array($0.utf8) }
    static let folderSuffixBytes = folderSuffixes.map { Array($0.utf8) }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        // Inside Documents: in a folder below the data root (folder 0).
        Self.topmost(
            in: inventory, where: { e, i in e.zone(i) == .documents && e.folder(i) > 0 }, matches: Self.matches
        ).map { f in
            finding(
                f.path,
                "looks re-creatable (\(f.why)) yet sits in Documents, where it is backed up "
                    + "(\(ByteSize.format(f.size)))",
                size: f.size)
        }
    }

    /// The topmost backed-up entries among those `looked` admits whose name `matches`, each
    /// once with why and its size (a folder: its subtree's, added as the entries come, parents
    /// first; with `onlyBackedUp`, what backup carries of it); what is inside a flagged folder
    /// is not flagged again.
    static func topmost(
        in inventory: Inventory, where looked: (InventoryEntries, Int) -> Bool, onlyBackedUp: Bool = false,
        matches: (ArraySlice<UInt8>, WalkEntry.Kind) -> String?
    ) -> [(path: ContainerPath, why: String, size: Int64)] {
        var flagged: [(path: ContainerPath, why: String, size: Int64)] = []
        // The flagged folder above each folder (folder number to its place in `flagged`),
        // inherited downward: parents sort before children.
        var owner: [Int32: Int] = [:]
        // Siblings come together: the last parent looked up is checked in place first.
        var lastParent: Int32 = 0
        var lastFolder: Int?
        let entries = inventory.entries
        for i in entries.indices where looked(entries, i) {
            let e = entries[i]
            if !owner.isEmpty {
                if e.folder != lastParent {
                    lastParent = e.folder
                    lastFolder = owner[lastParent]
                }
                if let folder = lastFolder {
                    if let own = e.ownFolder { owner[own] = folder }
                    if !onlyBackedUp || e.backedUp == true { flagged[folder].size += e.countedSize }
                    continue
                }
            }
            guard e.backedUp == true, let why = matches(e.name, e.entry.kind) else { continue }
            flagged.append((e.path, why, e.entry.kind == .file && e.countsInTotals ? e.entry.size : 0))
            if let own = e.ownFolder { owner[own] = flagged.count - 1 }
        }
        return flagged
    }
}
