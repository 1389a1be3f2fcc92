import SandboxAuditCore
import SandboxAuditSystem

/// `many-backed-up-files`: a folder whose subtree puts many files into every backup.
struct ManyBackedUpFiles: Rule {
    static let count = RuleOption(
        key: "count", flag: "many-files", json: "manyFilesThreshold", setting: \.manyFilesThreshold, kind: .count,
        default: "10000", counts: "files", help: "many-backed-up-files threshold, files in one backed-up folder")
    let options = [Self.count]
    init() {}
    let description = RuleDescription(
        id: "many-backed-up-files",
        name: "Many backed-up files",
        summary:
            "A backed-up folder holding 10,000 or more backed-up regular files in its subtree; only the deepest such "
            + "folders (policy: count).",
        rationale: """
            Backup carries every file of the backed-up set one by one (\(References.whatIOSBacksUp)); many \
            small files slow every backup and every restore, however few bytes they hold, and Apple asks apps to \
            keep backups lean (\(References.backupBestPractices)). One store (a database, an archive) serves \
            better, or an excluded folder when the files can be re-created. A folder is reported when its subtree \
            reaches the threshold but none of its subfolders does on its own, so the finding points at the folder \
            that fills up, not at all its ancestors.
            """,
        fix:
            "Keep such items in one store (SQLite, an archive), or exclude their folder from backup if the app can "
            + "re-create them.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "Article pages in two shard folders",
                [
                    .files("Library/Application Support/Pages/00", count: 6_000, size: 2_000),
                    .files("Library/Application Support/Pages/01", count: 4_000, size: 2_000),
                ], expect: ["Library/Application Support/Pages"])
        ],
        nonTriggeringExamples: [
            RuleExample("A few hundred notes", [.files("Documents/Notes", count: 500, size: 1_000)]),
            RuleExample(
                "The pages kept in one store", [.file("Library/Application Support/pages.sqlite", size: 20_000_000)]),
        ])

    struct Tally {
        var files = 0
        var bytes: Int64 = 0
        mutating func add(_ other: Tally) {
            files += other.files
            bytes += other.bytes
        }
    }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let threshold = context.settings.manyFilesThreshold
        // Backed-up regular files per folder, then summed up the tree, deepest folders first.
        // Siblings come in runs (path order): count a run, then add it to its folder.
        // Folders by number (`InventoryEntry.folder`): no path is made but the findings'.
        let entries = inventory.entries
        var direct: [Int32: Tally] = [:]
        var run = Tally()
        var runParent: Int32 = 0
        for i in entries.indices where entries.kind(i) == .file && entries.isBackedUp(i) {
            let e = entries[i]
            let folder = e.folder
            guard folder > 0 else { continue }  // at the root
            if folder != runParent {
                if run.files > 0 { direct[runParent, default: Tally()].add(run) }
                runParent = folder
                run = Tally()
            }
            run.files += 1
            if e.countsInTotals { run.bytes += e.entry.size }
        }
        if run.files > 0 { direct[runParent, default: Tally()].add(run) }
        guard direct.values.reduce(0, { $0 + $1.files }) >= threshold else { return [] }
        let folders = entries.indices.filter { entries.kind($0) == .directory && entries.zone($0) != .system }.map {
            entries[$0]
        }
        .map { (entry: $0, depth: $0.folder < 0 ? 0 : entries.depth(ofFolder: $0.folder) + 1) }
        .sorted { $0.depth > $1.depth }
        var subtree: [Int32: Tally] = [:]
        var childReached: Set<Int32> = []
        var findings: [Finding] = []
        for (e, _) in folders {
            guard let own = e.ownFolder else { continue }  // nothing inside it
            var t = subtree[own] ?? Tally()
            if let mine = direct[own] {
                t.files += mine.files
                t.bytes += mine.bytes
            }
            guard t.files > 0 else { continue }
            let reached = t.files >= threshold
            if reached, e.backedUp == true, !childReached.contains(own) {
                findings.append(
                    finding(
                        e.path,
                        "\(groupedDigits(Int64(t.files))) backed-up files (\(ByteSize.format(t.bytes))) in this "
                            + "folder's subtree: each one slows every backup and restore; one store or an excluded "
                            + "folder serves better",
                        size: t.bytes))
            }
            let parent = e.folder
            if parent > 0 {
                subtree[parent, default: Tally()].files += t.files
                subtree[parent, default: Tally()].bytes += t.bytes
                if reached { childReached.insert(parent) }
            }
        }
        return findings
    }
}

extension RuleSettings {
    /// `many-backed-up-files`: a backed-up folder holding this many files or more.
    public var manyFilesThreshold: Int {
        get { self[ManyBackedUpFiles.count].number }
        set { self[ManyBackedUpFiles.count] = .count(newValue) }
    }
}
