import SandboxAuditCore
import SandboxAuditSystem

/// `policy-max-size`: an item larger than the policy file allows.
struct PolicyMaxSize: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.policyPaths)]
    let description = RuleDescription(
        id: "policy-max-size",
        name: "Policy: maximum size",
        summary:
            "An item (a file, or a folder with everything in it) matching a `paths:` entry is larger than its "
            + "`maxSize`.",
        rationale: """
            Large or fast-growing stores slow backups and fill devices (\(References.backupBestPractices)); a \
            size limit per store or folder catches the growth before users do.
            """,
        fix:
            "Trim or compact it (old entries, VACUUM), or raise the limit in .sandbox-audit.yml if the growth is "
            + "intended.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A database past its limit", [.file("Documents/app.sqlite", size: 3_000_000)],
                expect: ["Documents/app.sqlite"],
                policy: "paths:\n  - path: \"Documents/*.sqlite\"\n    maxSize: 2MB\n")
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Within its limit", [.file("Documents/app.sqlite", size: 1_000_000)],
                policy: "paths:\n  - path: \"Documents/*.sqlite\"\n    maxSize: 2MB\n")
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let policies = context.paths.compactMap { p in p.maxSize.map { (p, $0) } }
        return zip(policies, PolicyTotals.matches(inventory, policies.map(\.0.glob))).flatMap { entry, matches in
            let (policy, limit) = entry
            return matches.filter { $0.1 > limit }.map { path, size in
                finding(
                    path,
                    "\(ByteSize.format(size)), over the policy's maxSize of \(ByteSize.format(limit)) for "
                        + "'\(policy.glob.pattern)' by \(ByteSize.format(size - limit))",
                    size: size)
            }
        }
    }
}
