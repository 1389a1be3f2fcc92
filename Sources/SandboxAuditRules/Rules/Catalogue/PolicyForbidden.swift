import SandboxAuditCore
import SandboxAuditSystem

/// `policy-forbidden`: something the policy file says must not exist.
struct PolicyForbidden: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.policyPaths)]
    let description = RuleDescription(
        id: "policy-forbidden",
        name: "Policy: forbidden path",
        summary: "An item matches a `paths:` entry with `forbidden: true`.",
        rationale: """
            Teams know the leftovers they never want to ship again: a debug database, an old folder an update \
            must have migrated, a download that belongs in Caches. The policy file lists them; the scan holds \
            every build to it.
            """,
        fix: "Stop writing it there (or migrate it away on first launch).",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A debug log left in Documents", [.file("Documents/debug.log", size: 300)],
                expect: ["Documents/debug.log"],
                policy: "paths:\n  - path: \"Documents/*.log\"\n    forbidden: true\n"),
            RuleExample(
                "Anything inside tmp", [.file("tmp/a"), .file("tmp/sub/b")], expect: ["tmp/a", "tmp/sub"],
                policy: "paths:\n  - path: \"tmp/**\"\n    forbidden: true\n"),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Nothing matches (tmp itself is not inside tmp)", [.file("Documents/notes.txt")],
                policy:
                    "paths:\n  - path: \"Documents/*.log\"\n    forbidden: true\n  - path: \"tmp/**\"\n "
                    + "   forbidden: true\n"
            )
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let policies = context.paths.filter(\.forbidden)
        return zip(policies, PolicyTotals.matches(inventory, policies.map(\.glob))).flatMap { policy, matches in
            matches.map { path, size in
                finding(
                    path, "forbidden by the policy ('\(policy.glob.pattern)'), yet present (\(ByteSize.format(size)))",
                    size: size)
            }
        }
    }
}
