/// `policy-backup-included`: data the policy file says must survive a restore, and would not.
public struct PolicyBackupIncluded: Rule {
    public init() {}
    public let description = RuleDescription(
        id: "policy-backup-included",
        name: "Policy: backup included",
        summary: "Content a `paths:` entry marks `backup: included` (must survive a restore) is excluded, or sits in Caches or tmp.",
        rationale: """
            A restore onto a new device brings back the backed-up set only: Caches and tmp start empty and \
            excluded items are gone (domain.md §1). Data the team has declared irreplaceable must be in it.
            """,
        fix: "Clear the exclude attribute (on it or the folder above it), and keep it out of Caches and tmp.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample("The user's database under an excluded folder", [.directory("Library/Application Support/Store", .exclude()), .file("Library/Application Support/Store/user.sqlite", size: 4096)],
                        expect: ["Library/Application Support/Store/user.sqlite"],
                        policy: "paths:\n  - path: \"**/user.sqlite\"\n    backup: included\n"),
            RuleExample("Kept in Caches", [.file("Library/Caches/user.sqlite", size: 4096)],
                        expect: ["Library/Caches/user.sqlite"],
                        policy: "paths:\n  - path: \"**/user.sqlite\"\n    backup: included\n"),
        ],
        nonTriggeringExamples: [
            RuleExample("Backed up", [.file("Library/Application Support/user.sqlite", size: 4096)],
                        policy: "paths:\n  - path: \"**/user.sqlite\"\n    backup: included\n"),
        ])

    public func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        context.policy.paths.filter { $0.backup == .included }.flatMap { policy in
            PolicyTotals.byOwner(inventory, policy.glob) { $0.backedUp == false }.map { owner, size in
                finding(owner, "\(ByteSize.format(size)) not backed up (excluded, or in Caches or tmp), but the policy says '\(policy.glob.pattern)' must survive a restore (backup: included)", size: size)
            }
        }
    }
}
