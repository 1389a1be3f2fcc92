import SandboxAuditCore
import SandboxAuditSystem

/// `protection-below-policy`: a file a device backup records at a weaker data protection class
/// than the policy's `protection:` section allows for it.
struct ProtectionBelowPolicy: Rule {
    init() {}

    static let policy =
        "protection:\n  \"Documents/Private\": complete\n  \"Library/Application Support/*.sqlite\": "
        + "completeUntilFirstUserAuthentication\n"

    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the

    /// audit reports the rule "not checked" there.

    let needs: [RuleNeed] = [.requires(.protectionClasses), .requires(.policyProtection)]

    let description = RuleDescription(
        id: "protection-below-policy",
        name: "Policy: data protection below the allowed class",
        summary:
            "A file a device backup records at a weaker data protection class than the policy's `protection:` entry "
            + "covering it allows (backup input only).",
        rationale: """
            The data protection class decides when the device can read a file: `complete` only while it is \
            unlocked, `completeUnlessOpen` while unlocked or while open from before the lock, \
            `completeUntilFirstUserAuthentication` (the default) after the first unlock since the device \
            started, `none` always (\(References.fileProtectionType); \(References.onDiskEncryption)). A \
            team that keeps health records or credentials behind `complete` writes that down in the policy; \
            one file created without the option, or re-created by an atomic write that drops it, silently \
            weakens it. Only a device backup records each file's class (its Manifest.db, \
            \(References.backupClassNumbers)): a copied container or a Simulator shows none, so the rule \
            checks backup input only. Classes other than the four cannot be compared and are not reported; \
            neither are entries without a class (most folders and symlinks).
            """,
        fix:
            "Create the file with the class the policy asks (Data.write(options: .completeFileProtection), "
            + "FileManager attributes [.protectionKey: …], or SQLite's SQLITE_OPEN_FILEPROTECTION_* flags), or "
            + "relax the policy.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A private file at the default class",
                [
                    .file("Documents/Private/record.json", size: 300).at(.completeUntilFirstUserAuthentication),
                    .file("Documents/Private/key.bin", size: 32).at(.complete),
                ], expect: ["Documents/Private/record.json"], policy: ProtectionBelowPolicy.policy, backupInput: true),
            RuleExample(
                "A store at none", [.sqlite("Library/Application Support/app.sqlite").at(.none)],
                expect: ["Library/Application Support/app.sqlite"], policy: ProtectionBelowPolicy.policy,
                backupInput: true),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "At the class asked or stronger",
                [
                    .file("Documents/Private/record.json", size: 300).at(.complete),
                    .sqlite("Library/Application Support/app.sqlite").at(.completeUnlessOpen),
                    .file("Documents/notes.txt").at(.none),
                ], policy: ProtectionBelowPolicy.policy, backupInput: true),
            RuleExample(
                "A class that is none of the four",
                [.file("Documents/Private/record.json").at(ProtectionClass(recorded: 9)!)],
                policy: ProtectionBelowPolicy.policy, backupInput: true),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        guard !context.protection.isEmpty else { return [] }
        return inventory.entries.compactMap { e in
            guard let c = e.protectionClass else { return nil }
            // The strictest entry covering the file decides.
            let violated = context.protection.filter { c.isWeaker(than: $0.weakest) && $0.glob.covers(e.path) }
            guard let worst = violated.max(by: { ($0.weakest.strength ?? 0) < ($1.weakest.strength ?? 0) }) else {
                return nil
            }
            return finding(
                e.path,
                "the backup records \(c.name) (readable \(c.readable)); the policy allows nothing weaker than "
                    + "\(worst.weakest.name) here ('\(worst.glob.pattern)')",
                size: e.entry.kind == .file ? e.entry.size : nil)
        }
    }
}
