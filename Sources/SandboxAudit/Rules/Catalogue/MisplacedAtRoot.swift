/// `misplaced-at-root`: an item at the data root outside Documents, Library, tmp and the
/// system items.
public struct MisplacedAtRoot: Rule {
    public init() {}
    public let description = RuleDescription(
        id: "misplaced-at-root",
        name: "Misplaced at the data root",
        summary: "An item at the data root outside Documents, Library and tmp: an app update does not keep it.",
        rationale: """
            An update carries over Documents/ and Library/ only; "files in other directories may be moved, \
            but do not rely on them" (domain.md §1, seed 004 "Files Saved During App Updates"). Anything \
            the app writes beside those folders can vanish with the next release.
            """,
        fix: "Move it under Documents/ (user data) or Library/Application Support/ (app data).",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample("A downloads folder beside Documents", [.directory("Downloads"), .file("Downloads/episode.mp3", size: 2048)], expect: ["Downloads"]),
            RuleExample("A database written at the root", [.file("store.sqlite")], expect: ["store.sqlite"]),
        ],
        nonTriggeringExamples: [
            RuleExample("User data in Documents", [.file("Documents/notes.txt")]),
            RuleExample("The Simulator's system items", [.file(".com.apple.mobile_container_manager.metadata.plist"), .directory("SystemData"), .file("SystemData/state")]),
        ])

    public func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let top = inventory.entries.filter { $0.zone == .root && $0.path.depth == 1 }
        guard !top.isEmpty else { return [] }
        let sizes = inventory.topLevelSizes()
        return top.map { e in
            let size = sizes[e.path] ?? 0
            let what = e.entry.kind == .directory ? "folder" : e.entry.kind.rawValue
            return finding(e.path, "\(what) at the data root, outside Documents, Library and tmp: an app update does not keep it (\(ByteSize.format(size)))", size: size)
        }
    }
}
