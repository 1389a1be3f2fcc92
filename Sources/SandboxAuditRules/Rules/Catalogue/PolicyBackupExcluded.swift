import SandboxAuditSystem
import SandboxAuditCore

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
            RuleExample("Downloaded models not yet excluded", [.directory("Library/Application Support/Models"), .file("Library/Application Support/Models/a.bin", size: 5000)],
                        expect: ["Library/Application Support/Models"],
                        policy: "paths:\n  - path: Library/Application Support/Models\n    backup: excluded\n"),
        ],
        nonTriggeringExamples: [
            RuleExample("The folder carries the attribute", [.directory("Library/Application Support/Models", .exclude()), .file("Library/Application Support/Models/a.bin", size: 5000)],
                        policy: "paths:\n  - path: Library/Application Support/Models\n    backup: excluded\n"),
            RuleExample("It lives in Caches", [.file("Library/Caches/Models/a.bin", size: 5000)],
                        policy: "paths:\n  - path: \"**/Models\"\n    backup: excluded\n"),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        PolicyTotals.findings(self, inventory, context, expecting: .excluded, where: { $0.backedUp == true }) { size, pattern in
            "\(ByteSize.format(size)) backed up, but the policy says '\(pattern)' is re-creatable (backup: excluded)"
        }
    }
}

/// Sums file bytes per topmost glob match, for the policy rules.
enum PolicyTotals {
    /// For each topmost match holding at least one file for which `counts` is true: the sum of
    /// those files' sizes, in path order.
    static func byOwner(_ inventory: Inventory, _ glob: Glob, where counts: (InventoryEntry) -> Bool) -> [(ContainerPath, Int64)] {
        var sums: [ContainerPath: Int64] = [:]
        for (e, owner) in zip(inventory.entries, glob.owners(in: inventory)) {
            guard let owner, e.countsInTotals, e.entry.kind != .directory, counts(e) else { continue }
            sums[owner, default: 0] += e.entry.kind == .other ? 0 : e.entry.size
        }
        return sums.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// One finding per topmost match of each path policy saying `backup: expecting` that holds
    /// files for which `violates` is true, with their bytes, worded by `message(size, pattern)`.
    static func findings(_ rule: some Rule, _ inventory: Inventory, _ context: RuleContext, expecting: PathPolicy.Backup,
                         where violates: (InventoryEntry) -> Bool, _ message: (Int64, String) -> String) -> [Finding] {
        context.paths.filter { $0.backup == expecting }.flatMap { policy in
            byOwner(inventory, policy.glob, where: violates).map { owner, size in
                rule.finding(owner, message(size, policy.glob.pattern), size: size)
            }
        }
    }

    /// The topmost matches themselves, with the bytes beneath them.
    static func matches(_ inventory: Inventory, _ glob: Glob) -> [(ContainerPath, Int64)] {
        var sums: [ContainerPath: Int64] = [:]
        for (e, owner) in zip(inventory.entries, glob.owners(in: inventory)) {
            guard let owner else { continue }
            let bytes = e.countedSize
            sums[owner, default: 0] += bytes
        }
        return sums.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
