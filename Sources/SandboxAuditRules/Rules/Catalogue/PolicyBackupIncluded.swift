import SandboxAuditCore
import SandboxAuditSystem

/// `policy-backup-included`: data the policy file says must survive a restore, and would not.
struct PolicyBackupIncluded: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.policyPaths)]
    let description = RuleDescription(
        id: "policy-backup-included",
        name: "Policy: backup included",
        summary:
            "Content a `paths:` entry marks `backup: included` (must survive a restore) is excluded, or sits where a "
            + "restore does not bring it back (Caches, tmp, the system-written Library folders, the data root's "
            + "other items).",
        rationale: """
            A restore onto a new device brings back the backed-up set only, less Saved Application State and \
            SplashBoard: Caches and tmp start empty, items at the data root outside Documents and Library are \
            never backed up, and excluded items are gone (Apple, App Backup Best Practices: \
            https://developer.apple.com/library/archive/documentation/iPhone/Conceptual/iPhoneOSProgrammingGuide/\
            StrategiesforImplementingYourApp/StrategiesforImplementingYourApp.html; \
            what iOS's backup carries: \(References.whatIOSBacksUp)). Data the team has declared irreplaceable must be \
            in it.
            """,
        fix:
            "Clear the exclude attribute (on it or the folder above it), and keep it under Documents or Library, out "
            + "of Library/Caches.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "The user's database under an excluded folder",
                [
                    .directory("Library/Application Support/Store", .exclude()),
                    .file("Library/Application Support/Store/user.sqlite", size: 4096),
                ],
                expect: ["Library/Application Support/Store/user.sqlite"],
                policy: "paths:\n  - path: \"**/user.sqlite\"\n    backup: included\n"),
            RuleExample(
                "Kept in Caches", [.file("Library/Caches/user.sqlite", size: 4096)],
                expect: ["Library/Caches/user.sqlite"],
                policy: "paths:\n  - path: \"**/user.sqlite\"\n    backup: included\n"),
            RuleExample(
                "Kept at the data root", [.file("Data/user.sqlite", size: 4096)],
                expect: ["Data/user.sqlite"],
                policy: "paths:\n  - path: \"**/user.sqlite\"\n    backup: included\n"),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Backed up", [.file("Library/Application Support/user.sqlite", size: 4096)],
                policy: "paths:\n  - path: \"**/user.sqlite\"\n    backup: included\n")
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        PolicyTotals.findings(self, inventory, context, expecting: .included, where: { $0.survivesRestore == false }) {
            size, pattern in
            "\(ByteSize.format(size)) not brought back by a restore (excluded, or where backup or restore does not "
                + "reach), but the policy says '\(pattern)' must survive a restore (backup: included)"
        }
    }
}
