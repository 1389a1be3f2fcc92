import SandboxAuditCore
import SandboxAuditSystem

/// `unprotected-store`: a database a device backup records at data protection class `none`.
struct UnprotectedStore: Rule {
    init() {}

    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the

    /// audit reports the rule "not checked" there.

    let needs: [RuleNeed] = [.requires(.protectionClasses), .requires(.fileHeaders)]

    let description = RuleDescription(
        id: "unprotected-store",
        name: "Database without data protection",
        summary:
            "A SQLite or Realm database (recognised by its header) at data protection class `none` in a device "
            + "backup (backup input only).",
        rationale: """
            A file at `none` is readable whenever the device is on, locked or not, before the first unlock \
            included (\(References.fileProtectionType); \(References.onDiskEncryption)). For a database of \
            the user's data that is weaker than the default, completeUntilFirstUserAuthentication. Only a note: \
            real backups show the stores of many well-known apps at `none`, often on purpose (a store that a \
            background launch must open before the first unlock, such as a push or VoIP handler's), so the class \
            alone says nothing wrong; the policy's `protection:` section (protection-below-policy) is where a \
            team makes it an error. Only a device backup records classes \
            (\(References.backupClassNumbers)): the rule checks backup input only.
            """,
        fix:
            "Unless the store must open before the first unlock, create it at completeUntilFirstUserAuthentication "
            + "or stronger; to require that, add it to the policy's protection: section.",
        defaultSeverity: .note,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A store at none", [.sqlite("Library/Application Support/app.sqlite").at(.none)],
                expect: ["Library/Application Support/app.sqlite"], backupInput: true),
            RuleExample(
                "A Realm file at none", [.bytes("Documents/default.realm", VolatileStore.sampleRealmFile).at(.none)],
                expect: ["Documents/default.realm"], backupInput: true),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "A store at the default class",
                [.sqlite("Library/Application Support/app.sqlite").at(.completeUntilFirstUserAuthentication)],
                backupInput: true),
            RuleExample(
                "Another file at none", [.file("Documents/readme.txt", size: 4096).at(.none)], backupInput: true),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        BackupStores.stores(inventory, context, ruleId: id).compactMap { store, kind in
            guard store.protectionClass == ProtectionClass.none else { return nil }
            return finding(
                store.path,
                "\(kind) database at none: readable whenever the device is on, even before the first unlock",
                size: store.entry.size)
        }
    }
}
