import SandboxAuditCore
import SandboxAuditSystem

/// `budget-exceeded`: a size budget of the policy file is exceeded.
struct BudgetExceeded: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.policyBudgets)]
    let description = RuleDescription(
        id: RuleCatalogue.budgetExceededID,
        name: "Budget exceeded",
        summary:
            "A budget of the policy file (backup footprint, a zone, a glob, churn or growth since the baseline) is "
            + "exceeded; one finding per budget, with the largest contributors. A budget holds the whole app, so "
            + "its finding has no path: the message names the budget.",
        rationale: """
            Every backed-up byte costs the user backup time and iCloud quota; apps that grow without bound \
            are the ones users delete or stop backing up (\(References.backupBestPractices); a user's 50 GB \
            backup of one app: \(References.issue("kiwix/kiwix-apple", 1307))). A budget turns that into a number CI \
            can hold.
            """,
        fix:
            "Shrink or exclude the largest contributors, or raise the budget in .sandbox-audit.yml if the growth is "
            + "intended.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A backup footprint over its budget",
                [.file("Documents/a.bin", size: 3000), .file("Documents/b.bin", size: 2000)], expect: ["."],
                policy: "budgets:\n  backup: 4kB\n"),
            RuleExample(
                "A zone over its budget", [.file("Library/Caches/blob", size: 5000)], expect: ["."],
                policy: "budgets:\n  zones:\n    caches: {max: 1kB, measure: size}\n"),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Within every budget",
                [.file("Documents/a.bin", size: 3000), .file("Library/Caches/blob", size: 5000)],
                policy: "budgets:\n  backup: 4kB\n  zones:\n    documents: 10kB\n")
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        context.budgets.filter(\.exceeded).map { r in
            let largest = r.contributors.map { "\($0.path.display) (\(ByteSize.format($0.size)))" }.joined(
                separator: ", ")
            let percent = r.percent.map { $0.isFinite ? String(Int($0.rounded())) + "%" : "∞" } ?? "?"
            // No path: a budget (even a zone's or a glob's) is measured over every container
            // of the app, so no one entry is its subject.
            return finding(
                nil,
                "\(r.budget.name): \(ByteSize.format(r.measured ?? 0)) of \(ByteSize.format(r.limit)) (\(percent)), "
                    + "over by \(ByteSize.format(r.overshoot))"
                    + (largest.isEmpty ? "" : "; largest: \(largest)"),
                size: r.measured)
        }
    }
}

extension RuleCatalogue {
    /// The rule's id, for the reports that show budgets as a section of their own.
    package static let budgetExceededID = "budget-exceeded"
}
