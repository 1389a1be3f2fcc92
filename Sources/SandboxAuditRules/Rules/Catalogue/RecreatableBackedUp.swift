import SandboxAuditCore
import SandboxAuditSystem

/// `recreatable-backed-up`: content that looks re-creatable or downloaded, by its name, backed up
/// outside Documents (Library outside Caches, an App Group's or extension's container).
struct RecreatableBackedUp: Rule {
    init() {}

    /// Besides `recreatable-in-documents`' names: folders of downloads (case-insensitively).
    /// In Documents such a folder may be the user's own downloads; elsewhere it is the app's.
    static let downloadFolders: Set<String> = ["downloads", "download", "downloaded"]

    let description = RuleDescription(
        id: "recreatable-backed-up",
        name: "Re-creatable content backed up outside Documents",
        summary:
            "Cache-like or downloaded content, by name, backed up outside Documents: in Library outside Caches, or "
            + "anywhere in an App Group's or extension's container (its *.cache, *.part … files and tmp, "
            + "thumbnails, *cache and downloads folders); the finding gives what each backup saves without it.",
        rationale: """
            Everything in Library outside Caches, and everything in an App Group container, is backed up \
            unless excluded. Downloaded models, media and caches kept there fill every user's iCloud backup \
            though they can be fetched again; Apple asks for them in Library/Caches or marked \
            isExcludedFromBackup (\(References.dataStorageGuidelines); \(References.optimizingForICloudBackup)). \
            Real apps meet this: downloaded ZIM files (\(References.issue("kiwix/kiwix-apple", 1307))) and \
            audio (\(References.issue("quran/quran-ios", 675))) filling users' backups. The rule judges by \
            name only and reports the topmost matching item once, with its size.
            """,
        fix:
            "Move it to Library/Caches, or set isExcludedFromBackup on it (on its folder, after each write) if it "
            + "must persist.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "Downloaded images at an App Group's root",
                [
                    .directory("Downloads"), .directory("Downloads/feed"), .directory("Downloads/feed/Images"),
                    .file("Downloads/feed/Images/1.jpg", size: 40_000),
                ],
                expect: ["Downloads"], role: .group),
            RuleExample(
                "A model cache in Application Support",
                [
                    .directory("Library/Application Support/ModelCache"),
                    .file("Library/Application Support/ModelCache/m.bin", size: 9000),
                ],
                expect: ["Library/Application Support/ModelCache"]),
            RuleExample(
                "A partial download in Library", [.file("Library/episode.mp3.download", size: 5000)],
                expect: ["Library/episode.mp3.download"]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Downloads where they belong",
                [.directory("Library/Caches/Downloads"), .file("Library/Caches/Downloads/1.jpg")]),
            RuleExample(
                "Excluded downloads",
                [
                    .directory("Library/Application Support/Downloads", .exclude()),
                    .file("Library/Application Support/Downloads/1.jpg"),
                ]),
            RuleExample(
                "The app's own data",
                [
                    .file("Library/Application Support/store.sqlite"),
                    .file("Library/Application Support/Images.xcassets.json"),
                ]),
            RuleExample(
                "The user's downloads in Documents (recreatable-in-documents judges Documents)",
                [.directory("Documents/Downloads"), .file("Documents/Downloads/a.pdf")]),
        ])

    static let downloadFolderBytes = downloadFolders.sorted().map { Array($0.utf8) }

    /// Why the item at `name` looks re-creatable: the names of `recreatable-in-documents`, or a
    /// downloads folder; nil otherwise.
    static func matches(name: ArraySlice<UInt8>, kind: WalkEntry.Kind) -> String? {
        if let why = RecreatableInDocuments.matches(name: name, kind: kind) { return why }
        guard kind == .directory,
            downloadFolderBytes.contains(where: {
                $0.count == name.count
                    && zip($0, name).allSatisfy { a, b in a == (b >= 0x41 && b <= 0x5A ? b | 0x20 : b) }
            })
        else { return nil }
        return "a downloads folder"
    }

    /// The zones this rule looks in: backed up unless excluded, and not Documents (its own rule).
    static func looksIn(_ zone: Zone) -> Bool { zone == .applicationSupport || zone == .library || zone == .root }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        RecreatableInDocuments.topmost(
            in: inventory, where: { e, i in Self.looksIn(e.zone(i)) }, onlyBackedUp: true,
            matches: Self.matches
        ).filter { $0.size > 0 }.map { f in
            finding(
                f.path,
                "looks re-creatable (\(f.why)) yet is backed up: each backup would be \(ByteSize.format(f.size)) "
                    + "smaller without it",
                size: f.size)
        }
    }
}
