import SandboxAuditCore
import SandboxAuditSystem

/// `store-protection-mismatch`: a SQLite database whose -wal, -shm or -journal file a device
/// backup records at another data protection class than the database.
struct StoreProtectionMismatch: Rule {
    init() {}

    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the

    /// audit reports the rule "not checked" there.

    let needs: [RuleNeed] = [.requires(.protectionClasses)]

    let description = RuleDescription(
        id: "store-protection-mismatch",
        name: "Database files at different protection classes",
        summary:
            "A SQLite file and its -wal, -shm or -journal at different data protection classes in a device backup "
            + "(backup input only).",
        rationale: """
            SQLite reads a database in WAL mode through its -wal and -shm files as much as through the main \
            file (\(References.sqliteWAL)). When the companions are at a stronger class than the database, \
            the store opens while the device is locked and fails at its first read or write of the \
            companion; when weaker, what the database protects sits readable in the -wal. The classes come \
            from the file each was created as: a -wal created by a process that set another class, or a main \
            file re-created by a copy, splits them (\(References.fileProtectionType); \
            \(References.mixpanelFileProtection)). Only a device backup records classes \
            (\(References.backupClassNumbers)): the rule checks backup input only. Reported once per \
            database, at the main file.
            """,
        fix:
            "Open the database with one SQLITE_OPEN_FILEPROTECTION_* flag (or set the class on its folder before "
            + "creating it), so its companions get the class of the main file.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A WAL weaker than its database",
                [
                    .sqlite("Library/Application Support/db.sqlite").at(.complete),
                    .file("Library/Application Support/db.sqlite-wal", size: 4096).at(.none),
                    .file("Library/Application Support/db.sqlite-shm", size: 4096).at(.complete),
                ], expect: ["Library/Application Support/db.sqlite"], backupInput: true),
            RuleExample(
                "A journal stronger than its database",
                [
                    .sqlite("Documents/app.db").at(.completeUntilFirstUserAuthentication),
                    .file("Documents/app.db-journal", size: 512).at(.complete),
                ], expect: ["Documents/app.db"], backupInput: true),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Every file at one class",
                [
                    .sqlite("Library/Application Support/db.sqlite").at(.completeUntilFirstUserAuthentication),
                    .file("Library/Application Support/db.sqlite-wal", size: 4096).at(
                        .completeUntilFirstUserAuthentication),
                    .file("Library/Application Support/db.sqlite-shm", size: 4096).at(
                        .completeUntilFirstUserAuthentication),
                ], backupInput: true),
            RuleExample(
                "A WAL without its database",
                [
                    .file("Documents/orphan.db-wal", size: 4096).at(.none),
                    .sqlite("Documents/Other/orphan.db").at(.complete),
                ],
                backupInput: true),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        var companions: [ContainerPath: [InventoryEntry]] = [:]
        let entries = inventory.entries
        for i in entries.indices where entries.kind(i) == .file && SplitStoreBackup.mayBeCompanion(entries.name(i)) {
            let e = entries[i]
            guard e.protectionClass != nil else { continue }
            guard let (main, isRealm) = SplitStoreBackup.mainPath(of: e), !isRealm else { continue }
            companions[main, default: []].append(e)
        }
        return companions.keys.sorted().compactMap { main in
            guard let m = inventory.entry(at: main), m.entry.kind == .file, let c = m.protectionClass,
                let others = companions[main], others.contains(where: { $0.protectionClass != c })
            else { return nil }
            let list = others.map { "\(ByteText.display($0.path.name)) at \($0.protectionClass!.name)" }.joined(
                separator: ", ")
            return finding(
                main, "SQLite database at \(c.name), its companions at other classes: \(list)", size: m.entry.size)
        }
    }
}
