import SandboxAuditSystem
import SandboxAuditCore

/// `split-store-backup`: the files of one database that backup treats differently.
struct SplitStoreBackup: Rule {
    init() {}

    /// Companion name suffixes, appended to the main file's name. SQLite: any main file (the
    /// companions are regular files); Realm: a main file named `*.realm` (`.management` is a folder).
    static let sqliteMembers = ["-wal", "-shm", "-journal"]
    static let realmMembers = [".lock", ".note", ".management"]

    let description = RuleDescription(
        id: "split-store-backup",
        name: "Database split by backup",
        summary: "A database whose files differ in backup state: SQLite X with X-wal, X-shm, X-journal; Realm X.realm with X.realm.lock, X.realm.note, X.realm.management/.",
        rationale: """
            A database is its main file and its companions together: SQLite keeps committed transactions \
            in the -wal file until a checkpoint, and a -journal file holds what a crash must roll back; Realm \
            keeps its lock, notification and management files beside the .realm file. Exclusion works per \
            item (\(References.isExcludedFromBackup)), and a restore brings back the backed-up set only \
            (\(References.whatIOSBacksUp)): when some files of one store are backed up and others are not, a \
            restore brings back a torn database, losing transactions or failing to open. Reported once per \
            store, at the main file; only groups whose main file and at least one companion sit in the same folder.
            """,
        fix: "Put the store in its own folder and set isExcludedFromBackup on the folder (or on none of its files), not file by file.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample("SQLite main file excluded, WAL backed up", [
                .file("Library/Application Support/index.sqlite", size: 4096, .exclude()),
                .file("Library/Application Support/index.sqlite-wal", size: 4096),
                .file("Library/Application Support/index.sqlite-shm", size: 4096, .exclude()),
            ], expect: ["Library/Application Support/index.sqlite"]),
            RuleExample("Realm file excluded, its management folder not", [
                .file("Documents/default.realm", size: 4096, .exclude()),
                .file("Documents/default.realm.lock", size: 1024, .exclude()),
                .directory("Documents/default.realm.management"),
                .file("Documents/default.realm.management/access_control.control.mx"),
            ], expect: ["Documents/default.realm"]),
        ],
        nonTriggeringExamples: [
            RuleExample("The store's folder excluded", [
                .directory("Library/Application Support/Store", .exclude()),
                .file("Library/Application Support/Store/index.sqlite", size: 4096),
                .file("Library/Application Support/Store/index.sqlite-wal", size: 4096),
            ]),
            RuleExample("All files backed up", [.file("Documents/app.db", size: 4096), .file("Documents/app.db-wal"), .file("Documents/app.db-shm")]),
            RuleExample("A WAL with no main file beside it", [.file("Documents/orphan.db-wal", .exclude()), .file("Documents/Other/orphan.db")]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        // Companions first, keyed by the main file they belong to; then the main files.
        // A main file sorts before its companions (its path is a prefix of theirs), most often
        // just before: it is looked for backwards from the first companion's position.
        var members: [ContainerPath: (companions: [InventoryEntry], first: Int)] = [:]
        var realm: Set<ContainerPath> = []
        for (i, e) in inventory.entries.enumerated() where e.backedUp != nil {
            guard let (main, isRealm) = Self.mainPath(of: e) else { continue }
            members[main, default: ([], i)].companions.append(e)
            if isRealm { realm.insert(main) }
        }
        guard !members.isEmpty else { return [] }
        var findings: [Finding] = []
        for (main, (companions, first)) in members {
            guard let at = inventory.index(of: main, before: first), case let e = inventory.entries[at], e.entry.kind == .file, e.backedUp != nil,
                  companions.contains(where: { $0.backedUp != e.backedUp }) else { continue }
            let group = [e] + companions
            let backed = group.filter { $0.backedUp == true }
            let notBacked = group.filter { $0.backedUp == false }
            guard !backed.isEmpty, !notBacked.isEmpty else { continue }
            let kind = realm.contains(e.path) ? "Realm" : "SQLite"
            func names(_ list: [InventoryEntry]) -> String {
                list.map { ByteText.display($0.path.name) + ($0.entry.kind == .directory ? "/" : "") }.joined(separator: ", ")
            }
            findings.append(finding(e.path, "\(kind) store split by backup: backed up: \(names(backed)); not backed up (excluded): \(names(notBacked)); a restore would bring back a torn database"))
        }
        return findings
    }

    /// The path of the main file `e` would be a companion of, when its name and kind fit, and
    /// whether that is a Realm store.
    /// Every member suffix as bytes, to reject most names before any allocation.
    static let memberSuffixes: [[UInt8]] = sqliteMembers.map { Array($0.utf8) } + realmMembers.map { Array((".realm" + $0).utf8) }
    static let memberTails = Array(Set(memberSuffixes.map { UInt16($0[$0.count - 2]) << 8 | UInt16($0[$0.count - 1]) }))

    static func mainPath(of e: InventoryEntry) -> (ContainerPath, Bool)? {
        // Every suffix ends in al, hm, ck, te or nt: most names are rejected by their last two
        // bytes, read in place (no path is made for them).
        let bytes = e.name
        let n = bytes.count, end = bytes.endIndex
        guard n > 2, memberTails.contains(UInt16(bytes[end - 2]) << 8 | UInt16(bytes[end - 1])),
              memberSuffixes.contains(where: { n > $0.count && bytes.suffix($0.count).elementsEqual($0) }) else { return nil }
        let name = Array(bytes)
        guard let parent = e.path.parent else { return nil }
        let isDirectory = e.entry.kind == .directory
        guard e.entry.kind != .symlink else { return nil }
        for suffix in sqliteMembers where !isDirectory && e.entry.kind == .file {
            let s = Array(suffix.utf8)
            if name.count > s.count, name.ends(with: s) { return (parent.appending(name.dropLast(s.count)), false) }
        }
        for suffix in realmMembers {
            // The management folder is a folder; the lock file a file; the note file a FIFO
            // (a regular file where a copy flattened it).
            guard (suffix == ".management") == isDirectory else { continue }
            let s = Array((".realm" + suffix).utf8)
            if name.count > s.count, name.ends(with: s) { return (parent.appending(name.dropLast(suffix.utf8.count)), true) }
        }
        return nil
    }
}
