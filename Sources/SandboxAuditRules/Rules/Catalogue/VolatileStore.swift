import SandboxAuditCore
import SandboxAuditSystem

/// `volatile-store`: a database, known by its header, where the system may delete it.
struct VolatileStore: Rule {
    init() {}

    /// A Realm file's first 24 bytes as the examples write them (empty top refs, format 23).
    static let sampleRealmHeader: [UInt8] =
        [UInt8](repeating: 0, count: 16) + StoreSignature.realmMnemonic + [23, 23, 0, 0]
    /// One 4 KiB page behind each header: the smallest real files of each kind, for examples.
    static let sampleSQLiteFile: [UInt8] =
        StoreSignature.sqliteHeader + [0x10, 0x00, 0x01, 0x01] + [UInt8](repeating: 0, count: 4076)
    static let sampleRealmFile: [UInt8] = sampleRealmHeader + [UInt8](repeating: 0, count: 4072)

    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the

    /// audit reports the rule "not checked" there.

    let needs: [RuleNeed] = [.requires(.fileHeaders), .requires(.itemsNotBackedUp)]

    let description = RuleDescription(
        id: "volatile-store",
        name: "Database in a purgeable folder",
        summary:
            "A SQLite or Realm database, recognised by its header, in Library/Caches or tmp (the URL cache's "
            + "Cache.db and Library/Caches/com.apple.* folders are exempt).",
        rationale: """
            The system may purge Library/Caches when storage is low, and purges tmp whenever the app is not \
            running; neither is backed up, an update drops tmp, and a restore starts both empty \
            (\(References.fileSystemBasics)). \
            A database there can vanish between launches, or with its -wal file but not its main file (or the \
            reverse). That suits a cache the app rebuilds; it loses data for anything else. Recognised by \
            content, not by name: the 16-byte `SQLite format 3` header, or a Realm file's `T-DB` mnemonic at \
            offset 16 (the rule reads 24 bytes of a file). Only files whose size a database can have are read: \
            a SQLite database is a whole number of pages of 512 to 65,536 bytes, and Realm refuses a file whose \
            size is not a multiple of 8 ("Realm file has bad size"). The URL cache (Cache.db) and the system \
            frameworks' folders (Library/Caches/com.apple.*, WebKit's among them) are the system's own.
            """,
        fix:
            "Keep a store the app cannot rebuild in Application Support (excluded from backup if re-creatable); keep "
            + "it in Caches only if the app copes with its loss.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A SQLite store in Caches", [.bytes("Library/Caches/offline.sqlite", VolatileStore.sampleSQLiteFile)],
                expect: ["Library/Caches/offline.sqlite"]),
            RuleExample(
                "A Realm file (`T-DB` at offset 16) in tmp",
                [.bytes("tmp/session.realm", VolatileStore.sampleRealmFile)], expect: ["tmp/session.realm"]),
            RuleExample(
                "A SQLite database under another name",
                [.bytes("Library/Caches/com.example.app/state.bin", VolatileStore.sampleSQLiteFile)],
                expect: ["Library/Caches/com.example.app/state.bin"]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "The URL cache",
                [
                    .bytes("Library/Caches/com.example.app/Cache.db", VolatileStore.sampleSQLiteFile),
                    .file("Library/Caches/com.example.app/Cache.db-wal", size: 4096),
                ]),
            RuleExample(
                "A system framework's cache",
                [
                    .bytes(
                        "Library/Caches/com.apple.WebKit.Networking/WebsiteData/observations.db",
                        VolatileStore.sampleSQLiteFile)
                ]),
            RuleExample(
                "A SQLite store in Application Support",
                [.bytes("Library/Application Support/app.sqlite", VolatileStore.sampleSQLiteFile)]),
            RuleExample("A file named .sqlite that is not SQLite", [.file("Library/Caches/thumbs.sqlite", size: 4096)]),
            RuleExample(
                "A SQLite header on a file of a size no database has",
                [.bytes("Library/Caches/partial.sqlite", Array(VolatileStore.sampleSQLiteFile.dropLast(3)))]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.entries.findings(where: { c, i in
            (c.zone(i) == .caches || c.zone(i) == .tmp) && c.kind(i) == .file
                && StoreSignature.mayBeDatabase(size: c.size(i))
        }) { e in
            guard e.zone == .caches || e.zone == .tmp, e.entry.kind == .file,
                StoreSignature.mayBeDatabase(size: e.entry.size), !StoreSignature.isSystemStore(e.path)
            else { return nil }
            // The walk records the header of the files this rule looks at (StoreSignature.wantsHeader).
            // Where neither could read it, the reader records what was not checked.
            guard
                let header = e.entry.header
                    ?? context.content?.read(
                        e.path, limit: StoreSignature.headerLength, for: id, what: "the first bytes",
                        consequence: "\(id) not checked"),
                let kind = StoreSignature.databaseKind(header)
            else { return nil }
            let place =
                e.zone == .caches
                ? "Library/Caches, which the system may purge when storage is low"
                : "tmp, which the system purges while the app is not running (and an update drops)"
            return finding(
                e.path,
                "\(kind) database (\(ByteSize.format(e.entry.size))) in \(place): the app must rebuild it, or keep "
                    + "it elsewhere",
                size: e.entry.size)
        }
    }
}
