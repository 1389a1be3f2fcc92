import SandboxAuditCore
import SandboxAuditSystem

/// The SQLite and Realm stores of a domain read from a device backup, for the data protection
/// rules: main files named like a store (`.sqlite`, `.sqlite3`, `.db`, `.store`, `.sqlitedb`,
/// `.realm`) or with a `-wal`, `-shm` or `-journal` beside them, confirmed by their first bytes
/// (`StoreSignature`, read through the content reader: only the candidates are read). The
/// system's own stores (the URL cache, `Library/Caches/com.apple.*`) are left out.
enum BackupStores {
    static let storeSuffixes: [[UInt8]] = [".sqlite", ".sqlite3", ".db", ".store", ".sqlitedb", ".realm"].map {
        Array($0.utf8)
    }

    /// The main files that are stores, in path order, with "SQLite" or "Realm".
    static func stores(_ inventory: Inventory, _ context: RuleContext, ruleId: String) -> [(
        entry: InventoryEntry, kind: String
    )] {
        var withCompanions = Set<ContainerPath>()
        let entries = inventory.entries
        for i in entries.indices where entries.kind(i) == .file && SplitStoreBackup.mayBeCompanion(entries.name(i)) {
            if let (main, _) = SplitStoreBackup.mainPath(of: entries[i]) { withCompanions.insert(main) }
        }
        return inventory.entries.compactMap { e in
            guard e.entry.kind == .file, StoreSignature.mayBeDatabase(size: e.entry.size),
                !StoreSignature.isSystemStore(e.path),
                withCompanions.contains(e.path) || storeSuffixes.contains(where: { e.path.bytes.ends(with: $0) }),
                let header = e.entry.header
                    ?? context.content?.read(
                        e.path, limit: StoreSignature.headerLength, for: ruleId,
                        what: "the first bytes", consequence: "\(ruleId) not checked"),
                let kind = StoreSignature.databaseKind(header)
            else { return nil }
            return (e, kind)
        }
    }
}
