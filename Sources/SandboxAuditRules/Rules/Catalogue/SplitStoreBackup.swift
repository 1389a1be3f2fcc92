import SandboxAuditCore
import SandboxAuditSystem

/// `split-store-backup`: the files of one database that backup treats differently.
struct SplitStoreBackup: Rule {
    init() {}

    /// Companion name suffixes, appended to the main file's name. SQLite: any main file (the
    /// companions are regular files); Realm: a main file named `*.realm` (`.management` is a folder).
    static let sqliteMembers = ["-wal", "-shm", "-journal"]
    static let realmMembers = [".lock", ".note", ".management"]

    /// A device backup holds none of what this rule is about (`Observation.itemsNotBackedUp`).
    let needs: [RuleNeed] = [.requires(.itemsNotBackedUp)]
    let description = RuleDescription(
        id: "split-store-backup",
        name: "Database split by backup",
        summary:
            "A database whose files differ in backup state: SQLite X with X-wal, X-shm, X-journal; Realm X.realm "
            + "with X.realm.lock, X.realm.note, X.realm.management/.",
        rationale: """
            A database is its main file and its companions together: SQLite keeps committed transactions \
            in the -wal file until a checkpoint, and a -journal file holds what a crash must roll back; Realm \
            keeps its lock, notification and management files beside the .realm file. Exclusion works per \
            item (\(References.isExcludedFromBackup)), and a restore brings back the backed-up set only \
            (\(References.whatIOSBacksUp)): when some files of one store are backed up and others are not, a \
            restore brings back a torn database, losing transactions or failing to open. Reported once per \
            store, at the main file; only groups whose main file and at least one companion sit in the same folder.
            """,
        fix:
            "Put the store in its own folder and set isExcludedFromBackup on the folder (or on none of its files), "
            + "not file by file.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "SQLite main file excluded, WAL backed up",
                [
                    .file("Library/Application Support/index.sqlite", size: 4096, .exclude()),
                    .file("Library/Application Support/index.sqlite-wal", size: 4096),
                    .file("Library/Application Support/index.sqlite-shm", size: 4096, .exclude()),
                ], expect: ["Library/Application Support/index.sqlite"]),
            RuleExample(
                "Realm file excluded, its management folder not",
                [
                    .file("Documents/default.realm", size: 4096, .exclude()),
                    .file("Documents/default.realm.lock", size: 1024, .exclude()),
                    .directory("Documents/default.realm.management"),
                    .file("Documents/default.realm.management/access_control.control.mx"),
                ], expect: ["Documents/default.realm"]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "The store's folder excluded",
                [
                    .directory("Library/Application Support/Store", .exclude()),
                    .file("Library/Application Support/Store/index.sqlite", size: 4096),
                    .file("Library/Application Support/Store/index.sqlite-wal", size: 4096),
                ]),
            RuleExample(
                "All files backed up",
                [.file("Documents/app.db", size: 4096), .file("Documents/app.db-wal"), .file("Documents/app.db-shm")]),
            RuleExample(
                "A WAL with no main file beside it",
                [.file("Documents/orphan.db-wal", .exclude()), .file("Documents/Other/orphan.db")]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        // The companions in path order, grouped by the main file they belong to. The paths that
        // are a main file's path followed by `-` or `.` lie together (`-` and `.` are adjacent
        // bytes), just after it: a group is complete once a companion outside that run comes,
        // and a group inside it (x.db-wal-wal's, inside x.db's) completes first. One stack, and
        // a name that is no companion is turned away by its last bytes.
        var open: [Group] = []
        var findings: [Finding] = []
        let entries = inventory.entries
        for i in entries.indices where entries.zone(i) != .system && Self.mayBeCompanion(entries.name(i)) {
            let e = entries[i]
            guard e.backedUp != nil, let (drop, isRealm) = Self.companionSuffix(of: e) else { continue }
            let path = e.path
            let mainLength = path.bytes.count - drop
            while let top = open.last, !top.holds(path) {
                open.removeLast()
                if let f = complete(top, inventory) { findings.append(f) }
            }
            if let top = open.last, top.mainLength == mainLength {
                open[open.count - 1].companions.append(i)
                if isRealm { open[open.count - 1].isRealm = true }
            } else {
                open.append(Group(path: path, mainLength: mainLength, companions: [i], isRealm: isRealm))
            }
        }
        while let top = open.popLast() {
            if let f = complete(top, inventory) { findings.append(f) }
        }
        return findings
    }

    /// The companions of one main file, in path order: its path is the first companion's path's
    /// first `mainLength` bytes.
    private struct Group {
        let path: ContainerPath
        let mainLength: Int
        var companions: [Int]
        var isRealm: Bool

        /// Whether `other` lies in the run of paths this group's companions lie in: the main
        /// file's path, then `-` or `.`.
        func holds(_ other: ContainerPath) -> Bool {
            other.bytes.count > mainLength
                && Bytes.equal(other.bytes[...], from: 0, path.bytes, from: 0, count: mainLength)
                && (other.bytes[mainLength] == UInt8(ascii: "-") || other.bytes[mainLength] == UInt8(ascii: "."))
        }
    }

    /// The finding about a group, when its main file is there, beside its companions, and backup
    /// treats them differently. A main file sorts before its companions (its path is a prefix of
    /// theirs), most often just before: it is looked for backwards from the first companion.
    private func complete(_ group: Group, _ inventory: Inventory) -> Finding? {
        let main = ContainerPath(bytes: Array(group.path.bytes[..<group.mainLength]))
        let entries = inventory.entries
        guard let at = inventory.index(of: main, before: group.companions[0]), entries.kind(at) == .file,
            entries.zone(at) != .system,
            // Read by position first: most stores are whole (the companions are never system entries).
            group.companions.contains(where: { entries.isBackedUp($0) != entries.isBackedUp(at) })
        else { return nil }
        let e = entries[at]
        let companions = group.companions.map { entries[$0] }
        let members = [e] + companions
        let backed = members.filter { $0.backedUp == true }
        let notBacked = members.filter { $0.backedUp == false }
        guard !backed.isEmpty, !notBacked.isEmpty else { return nil }
        let kind = group.isRealm ? "Realm" : "SQLite"
        func names(_ list: [InventoryEntry]) -> String {
            list.map { ByteText.display($0.path.name) + ($0.entry.kind == .directory ? "/" : "") }.joined(
                separator: ", ")
        }
        return finding(
            e.path,
            "\(kind) store split by backup: backed up: \(names(backed)); not backed up (excluded): "
                + "\(names(notBacked)); a restore would bring back a torn database"
        )
    }

    /// Every member suffix as bytes, to reject most names before any allocation.
    static let sqliteSuffixes: [[UInt8]] = sqliteMembers.map { Array($0.utf8) }
    /// Realm's, each with `.realm` before it (the main file's own suffix, which it keeps).
    static let realmSuffixes: [(member: String, bytes: [UInt8])] = realmMembers.map {
        ($0, Array((".realm" + $0).utf8))
    }
    static let memberTails = Array(
        Set(
            (sqliteSuffixes + realmSuffixes.map(\.bytes)).map {
                UInt16($0[$0.count - 2]) << 8 | UInt16($0[$0.count - 1])
            }))

    /// How many bytes at the end of `e`'s path name it as a companion of a main file (its path
    /// the rest), when its name and kind fit, and whether that is a Realm store. Reads the name
    /// alone, in place (no path made): every suffix ends in al, hm, ck, te or nt, and most names
    /// are rejected by their last two bytes.
    /// Whether a name ends as a companion's does (its last two bytes), read in place.
    static func mayBeCompanion(_ name: ArraySlice<UInt8>) -> Bool {
        name.count > 2 && memberTails.contains(UInt16(name[name.endIndex - 2]) << 8 | UInt16(name[name.endIndex - 1]))
    }

    static func companionSuffix(of e: InventoryEntry) -> (drop: Int, isRealm: Bool)? {
        let kind = e.entry.kind
        guard kind != .symlink else { return nil }
        let name = e.name
        let n = name.count
        guard n > 2, memberTails.contains(UInt16(name[name.endIndex - 2]) << 8 | UInt16(name[name.endIndex - 1])) else {
            return nil
        }
        func ends(with s: [UInt8]) -> Bool { n > s.count && name.suffix(s.count).elementsEqual(s) }
        if kind == .file {
            for s in sqliteSuffixes where ends(with: s) { return (s.count, false) }
        }
        let isDirectory = kind == .directory
        for (member, bytes) in realmSuffixes {
            // The management folder is a folder; the lock file a file; the note file a FIFO
            // (a regular file where a copy flattened it).
            guard (member == ".management") == isDirectory else { continue }
            if ends(with: bytes) { return (member.utf8.count, true) }
        }
        return nil
    }

    /// The path of the main file `e` would be a companion of, when its name and kind fit, and
    /// whether that is a Realm store.
    static func mainPath(of e: InventoryEntry) -> (ContainerPath, Bool)? {
        guard let (drop, isRealm) = companionSuffix(of: e) else { return nil }
        return (ContainerPath(bytes: Array(e.path.bytes.dropLast(drop))), isRealm)
    }
}
