import SandboxAuditCore
import SandboxAuditSystem

/// `shared-store-complete-protection`: a database in an App Group or extension container that a
/// device backup records at `complete`.
struct SharedStoreCompleteProtection: Rule {
    init() {}

    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the

    /// audit reports the rule "not checked" there.

    let needs: [RuleNeed] = [.requires(.protectionClasses), .requires(.fileHeaders)]

    let description = RuleDescription(
        id: "shared-store-complete-protection",
        name: "Shared database locked with the device",
        summary:
            "A SQLite or Realm database (recognised by its header) in an App Group or extension container at data "
            + "protection class `complete` in a device backup (backup input only).",
        rationale: """
            A file at `complete` is readable only while the device is unlocked (\(References.fileProtectionType)). \
            Stores in an App Group container are opened by extensions, widgets and background tasks that run \
            while the device is locked: a `complete` store there cannot be read then (SQLite's reads of its \
            -wal fail with "Operation not permitted", and closing the database crashed the app in \
            \(References.grdbLockedGroupStore)). Mixpanel's SDK opens its store with \
            SQLITE_OPEN_FILEPROTECTION_COMPLETEUNTILFIRSTUSERAUTHENTICATION so that the database and its WAL \
            and SHM files stay readable in the background after the first unlock \
            (\(References.mixpanelFileProtection)). Only a device backup records classes \
            (\(References.backupClassNumbers)): the rule checks backup input only, and a store is \
            recognised by its first bytes.
            """,
        fix:
            "Create shared stores at completeUntilFirstUserAuthentication "
            + "(SQLITE_OPEN_FILEPROTECTION_COMPLETEUNTILFIRSTUSERAUTHENTICATION, or "
            + ".completeUntilFirstUserAuthentication on the folder), or keep data that must stay locked out "
            + "of the shared container.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A shared store at complete", [.sqlite("Library/Application Support/shared.sqlite").at(.complete)],
                expect: ["Library/Application Support/shared.sqlite"], role: .group, backupInput: true),
            RuleExample(
                "An extension's store at complete", [.sqlite("Library/Application Support/widget.db").at(.complete)],
                expect: ["Library/Application Support/widget.db"], role: .extension, backupInput: true),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "A shared store at the default class",
                [.sqlite("Library/Application Support/shared.sqlite").at(.completeUntilFirstUserAuthentication)],
                role: .group, backupInput: true),
            RuleExample(
                "The app's own store at complete", [.sqlite("Library/Application Support/app.sqlite").at(.complete)],
                backupInput: true),
            RuleExample(
                "A file named .sqlite that is not SQLite", [.file("shared.sqlite", size: 4096).at(.complete)],
                role: .group, backupInput: true),
        ])

    var roles: Set<ContainerRole> { [.group, .extension] }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        BackupStores.stores(inventory, context, ruleId: id).compactMap { store, kind in
            guard store.protectionClass == ProtectionClass.complete else { return nil }
            let container = inventory.container.role == .group ? "an App Group container" : "an extension's container"
            return finding(
                store.path,
                "\(kind) database at complete in \(container): unreadable while the device is locked, when "
                    + "extensions and background tasks run",
                size: store.entry.size)
        }
    }
}
