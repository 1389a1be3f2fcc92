import SandboxAuditSystem

/// What a file's first bytes say it is: a SQLite or a Realm database. The walks record the
/// first bytes of the files that may be one (`wantsHeader`), while the folder is open anyway;
/// the rules and the simulations read the verdict. Recognised by content, not by name.
package enum StoreSignature {
    /// The first 16 bytes of every SQLite 3 database file.
    package static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]
    /// A Realm file's mnemonic, at offset 16 (after two 8-byte top refs).
    package static let realmMnemonic: [UInt8] = Array("T-DB".utf8)
    static let realmMnemonicOffset = 16
    /// Enough for both headers.
    package static let headerLength = 24
    /// The URL cache's database and its companions (the system's own, in any folder).
    static let urlCacheNames: Set<String> = ["Cache.db", "Cache.db-wal", "Cache.db-shm"]

    /// "SQLite" or "Realm" when the first bytes of a file carry that header.
    package static func databaseKind(_ header: [UInt8]) -> String? {
        if header.starts(with: sqliteHeader) { return "SQLite" }
        let end = realmMnemonicOffset + realmMnemonic.count
        if header.count >= end, header[realmMnemonicOffset..<end].elementsEqual(realmMnemonic) { return "Realm" }
        return nil
    }

    /// Whether a database can have this size: a SQLite file is at least one page (512 bytes at
    /// the smallest page size) and a whole number of pages; a Realm file at least 4 KiB and a
    /// multiple of 8 bytes. Other files are not read.
    package static func mayBeDatabase(size: Int64) -> Bool { size >= 512 && size % 8 == 0 }

    /// The files whose first bytes a walk records: those that may be a database in a folder the
    /// system purges (Library/Caches, tmp).
    static func wantsHeader(_ zone: Zone, size: Int64) -> Bool {
        mayBeDatabase(size: size) && (zone == .caches || zone == .tmp)
    }

    static func wantsHeader(_ path: ContainerPath, size: Int64) -> Bool {
        mayBeDatabase(size: size) && wantsHeader(Zone.of(path), size: size)
    }

    /// How many leading bytes a walk records of a file in `zone` (0: none).
    static func headerLength(_ zone: Zone, size: Int64) -> Int {
        wantsHeader(zone, size: size) ? headerLength : 0
    }

    /// How many leading bytes a walk records of `path` (0: none).
    static func headerLength(_ path: ContainerPath, size: Int64) -> Int {
        headerLength(Zone.of(path), size: size)
    }

    /// The system's own stores: the URL cache's files anywhere, and anything inside a
    /// `com.apple.*` folder in Library/Caches (at any depth: frameworks also keep `com.apple.*`
    /// folders inside the app's own cache folder).
    package static func isSystemStore(_ path: ContainerPath) -> Bool {
        if urlCacheNames.contains(String(decoding: path.name, as: UTF8.self)) { return true }
        guard Zone.of(path) == .caches else { return false }
        let components = path.components
        let prefix = Array("com.apple.".utf8)
        // Library/Caches/…: folders are components 2 ..< last.
        return components.dropFirst(2).dropLast().contains { $0.starts(with: prefix) }
    }
}
