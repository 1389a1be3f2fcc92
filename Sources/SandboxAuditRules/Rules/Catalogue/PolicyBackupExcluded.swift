import SandboxAuditCore
import SandboxAuditSystem

/// `policy-backup-excluded`: content the policy file says backup must not carry.
struct PolicyBackupExcluded: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.policyPaths)]
    let description = RuleDescription(
        id: "policy-backup-excluded",
        name: "Policy: backup excluded",
        summary: "Content a `paths:` entry marks `backup: excluded` (re-creatable, known to the team) is backed up.",
        rationale: """
            Whether a file is re-creatable is the app's knowledge, not the file system's: a copied container \
            cannot tell, and the policy file is where a team writes it down. Re-creatable content that backup \
            carries costs every user backup time and iCloud quota and invites an App Review rejection \
            (\(References.dataStorageGuidelines); \(References.optimizingForICloudBackup)).
            """,
        fix: "Exclude it from backup (isExcludedFromBackup on its folder), or move it to Library/Caches.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "Downloaded models not yet excluded",
                [
                    .directory("Library/Application Support/Models"),
                    .file("Library/Application Support/Models/a.bin", size: 5000),
                ],
                expect: ["Library/Application Support/Models"],
                policy: "paths:\n  - path: Library/Application Support/Models\n    backup: excluded\n")
        ],
        nonTriggeringExamples: [
            RuleExample(
                "The folder carries the attribute",
                [
                    .directory("Library/Application Support/Models", .exclude()),
                    .file("Library/Application Support/Models/a.bin", size: 5000),
                ],
                policy: "paths:\n  - path: Library/Application Support/Models\n    backup: excluded\n"),
            RuleExample(
                "It lives in Caches", [.file("Library/Caches/Models/a.bin", size: 5000)],
                policy: "paths:\n  - path: \"**/Models\"\n    backup: excluded\n"),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        PolicyTotals.findings(self, inventory, context, expecting: .excluded, where: { $0.backedUp == true }) {
            size, pattern in
            "\(ByteSize.format(size)) backed up, but the policy says '\(pattern)' is re-creatable (backup: excluded)"
        }
    }
}

/// Sums file bytes per topmost glob match, for the policy rules: every glob of a rule in one
/// pass (`GlobSet`), so that a policy costs its entries plus its matches, not lines × entries.
enum PolicyTotals {
    /// For each glob, each topmost match holding at least one file for which `counts` is true:
    /// the sum of those files' sizes, in path order.
    static func byOwner(_ inventory: Inventory, _ globs: [Glob], where counts: @Sendable (InventoryEntry) -> Bool)
        -> [[(path: ContainerPath, size: Int64)]]
    {
        GlobSet(globs).totals(inventory) { e in
            guard e.countsInTotals, e.entry.kind != .directory, counts(e) else { return nil }
            return e.entry.kind == .other ? 0 : e.entry.size
        }
    }

    /// One finding per topmost match of each path policy saying `backup: expecting` that holds
    /// files for which `violates` is true, with their bytes, worded by `message(size, pattern)`.
    static func findings(
        _ rule: some Rule, _ inventory: Inventory, _ context: RuleContext, expecting: PathPolicy.Backup,
        where violates: @Sendable (InventoryEntry) -> Bool, _ message: (Int64, String) -> String
    ) -> [Finding] {
        let policies = context.paths.filter { $0.backup == expecting }
        return zip(policies, byOwner(inventory, policies.map(\.glob), where: violates)).flatMap { policy, owners in
            owners.map { owner, size in rule.finding(owner, message(size, policy.glob.pattern), size: size) }
        }
    }

    /// For each glob, the topmost matches themselves, with the bytes beneath them.
    static func matches(_ inventory: Inventory, _ globs: [Glob]) -> [[(path: ContainerPath, size: Int64)]] {
        GlobSet(globs).totals(inventory) { $0.countedSize }
    }
}
