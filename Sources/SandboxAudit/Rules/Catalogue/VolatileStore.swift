/// `volatile-store`: a database, known by its header, where the system may delete it.
public struct VolatileStore: Rule {
    public init() {}

    /// The first 16 bytes of every SQLite 3 database file.
    public static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]
    /// A Realm file's mnemonic, at offset 16 (after two 8-byte top refs).
    public static let realmMnemonic: [UInt8] = Array("T-DB".utf8)
    public static let realmMnemonicOffset = 16
    /// Enough for both headers.
    public static let headerLength = 24
    /// The URL cache's database and its companions (exempt in any folder).
    public static let urlCacheNames: Set<String> = ["Cache.db", "Cache.db-wal", "Cache.db-shm"]

    /// A Realm file's first 24 bytes as the examples write them (empty top refs, format 23).
    public static let sampleRealmHeader: [UInt8] = [UInt8](repeating: 0, count: 16) + Array("T-DB".utf8) + [23, 23, 0, 0]
    /// One 4 KiB page behind each header: the smallest real files of each kind, for examples.
    public static let sampleSQLiteFile: [UInt8] = sqliteHeader + [0x10, 0x00, 0x01, 0x01] + [UInt8](repeating: 0, count: 4076)
    public static let sampleRealmFile: [UInt8] = sampleRealmHeader + [UInt8](repeating: 0, count: 4072)

    public let description = RuleDescription(
        id: "volatile-store",
        name: "Database in a purgeable folder",
        summary: "A SQLite or Realm database, recognised by its header, in Library/Caches or tmp (the URL cache's Cache.db and Library/Caches/com.apple.* folders are exempt).",
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
        fix: "Keep a store the app cannot rebuild in Application Support (excluded from backup if re-creatable); keep it in Caches only if the app copes with its loss.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample("A SQLite store in Caches", [.bytes("Library/Caches/offline.sqlite", VolatileStore.sampleSQLiteFile)],
                        expect: ["Library/Caches/offline.sqlite"]),
            RuleExample("A Realm file (`T-DB` at offset 16) in tmp", [.bytes("tmp/session.realm", VolatileStore.sampleRealmFile)], expect: ["tmp/session.realm"]),
            RuleExample("A SQLite database under another name", [.bytes("Library/Caches/com.example.app/state.bin", VolatileStore.sampleSQLiteFile)],
                        expect: ["Library/Caches/com.example.app/state.bin"]),
        ],
        nonTriggeringExamples: [
            RuleExample("The URL cache", [.bytes("Library/Caches/com.example.app/Cache.db", VolatileStore.sampleSQLiteFile), .file("Library/Caches/com.example.app/Cache.db-wal", size: 4096)]),
            RuleExample("A system framework's cache", [.bytes("Library/Caches/com.apple.WebKit.Networking/WebsiteData/observations.db", VolatileStore.sampleSQLiteFile)]),
            RuleExample("A SQLite store in Application Support", [.bytes("Library/Application Support/app.sqlite", VolatileStore.sampleSQLiteFile)]),
            RuleExample("A file named .sqlite that is not SQLite", [.file("Library/Caches/thumbs.sqlite", size: 4096)]),
            RuleExample("A SQLite header on a file of a size no database has", [.bytes("Library/Caches/partial.sqlite", Array(VolatileStore.sampleSQLiteFile.dropLast(3)))]),
        ])

    public func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.entries.compactMap { e in
            guard e.zone == .caches || e.zone == .tmp, e.entry.kind == .file,
                  Self.mayBeDatabase(size: e.entry.size), !Self.isExempt(e.path) else { return nil }
            // The walk records the header of the files this rule looks at (see wantsHeader).
            // Where neither could read it, the reader records what was not checked.
            guard let header = e.entry.header ?? context.content?.read(e.path, limit: Self.headerLength, for: id, what: "the first bytes",
                                                                        consequence: "\(id) not checked"),
                  let kind = Self.databaseKind(header) else { return nil }
            let place = e.zone == .caches
                ? "Library/Caches, which the system may purge when storage is low"
                : "tmp, which the system purges while the app is not running (and an update drops)"
            return finding(e.path, "\(kind) database (\(ByteSize.format(e.entry.size))) in \(place): the app must rebuild it, or keep it elsewhere", size: e.entry.size)
        }
    }

    /// The files whose header the walk should record for this rule.
    public static func wantsHeader(_ path: ContainerPath, size: Int64) -> Bool {
        guard mayBeDatabase(size: size) else { return false }
        let zone = Zone.of(path)
        return zone == .caches || zone == .tmp
    }

    /// Whether a database can have this size: a SQLite file is at least one page (512 bytes at
    /// the smallest page size) and a whole number of pages; a Realm file at least 4 KiB and a
    /// multiple of 8 bytes. Other files are not read.
    static func mayBeDatabase(size: Int64) -> Bool { size >= 512 && size % 8 == 0 }

    /// "SQLite" or "Realm" when the first bytes of a file carry that header.
    public static func databaseKind(_ header: [UInt8]) -> String? {
        if header.starts(with: sqliteHeader) { return "SQLite" }
        let end = realmMnemonicOffset + realmMnemonic.count
        if header.count >= end, header[realmMnemonicOffset..<end].elementsEqual(realmMnemonic) { return "Realm" }
        return nil
    }

    /// The URL cache's files anywhere; anything inside a `com.apple.*` folder in Library/Caches
    /// (at any depth: frameworks also keep `com.apple.*` folders inside the app's own cache folder).
    static func isExempt(_ path: ContainerPath) -> Bool {
        if urlCacheNames.contains(String(decoding: path.name, as: UTF8.self)) { return true }
        guard Zone.of(path) == .caches else { return false }
        let components = path.components
        let prefix = Array("com.apple.".utf8)
        // Library/Caches/…: folders are components 2 ..< last.
        return components.dropFirst(2).dropLast().contains { $0.starts(with: prefix) }
    }
}
