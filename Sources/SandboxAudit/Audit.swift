import Foundation

/// The pipeline in one call: input → walk → classify → inventory → rules.
public enum Audit {
    public static let toolVersion = "0.1.0"

    /// Walks and classifies the container at `input` (a data container or `.xcappdata`).
    /// Throws `InputError` for input that is not a container.
    public static func inventory(of input: String) throws -> Inventory {
        if ArchiveWalk.isArchive(input), Container.fileExists(input) {
            let (container, walk) = try ArchiveWalk.read(input)
            return Inventory(container: container, walk: walk)
        }
        let container = try Container.locate(input)
        return Inventory(container: container, walk: try FolderWalk.read(container))
    }

    /// Scans, checks every enabled rule, then applies the policy: severities, ignored paths,
    /// budgets and, with a baseline, suppression of known findings and the comparison.
    public static func run(_ input: String, policy: Policy = Policy(), baseline: Baseline? = nil,
                           scanTime: Double = Date().timeIntervalSince1970) throws -> AuditResult {
        let inventory = try Self.inventory(of: input)
        let comparison = baseline.map { BaselineComparison(baseline: $0, inventory: inventory) }
        var context = RuleContext(settings: policy.settings, scanTime: scanTime)
        context.policy = policy
        context.budgets = Budgets.evaluate(policy, inventory, comparison)

        // The rules are independent: run them side by side, each with its own content reader.
        let rules = RuleCatalogue.all.filter { !policy.disabledRules.contains($0.id) }
        let perRule = WorkerSlots<[Finding]>(count: rules.count, initial: [])
        DispatchQueue.concurrentPerform(iterations: rules.count) { i in
            var own = context
            own.content = ContentReader(dataRoot: inventory.container.dataRoot)
            perRule.store(rules[i].check(inventory, own), at: i)
        }
        var findings: [Finding] = []
        var ignored = 0
        for ruleFindings in perRule.results {
            for var f in ruleFindings {
                if let path = f.path, !path.isRoot, policy.isIgnored(path) { ignored += 1; continue }
                if let s = policy.severities[f.ruleId] { f = f.with(severity: s) }
                findings.append(f)
            }
        }
        // Sorted by position, then gathered once: sorting the values moves every finding
        // through the merge buffers.
        findings = findings.indices.sorted { Finding.ordered(findings[$0], findings[$1]) }.map { findings[$0] }
        var reported = findings
        var known = 0
        if let baseline {
            reported = findings.filter { !baseline.findings.contains(Baseline.FindingKey(ruleId: $0.ruleId, path: $0.path ?? .root)) }
            known = findings.count - reported.count
        }
        return AuditResult(inventory: inventory, findings: reported, allFindings: findings, context: context,
                           ignoredFindings: ignored, baselineFindings: known, comparison: comparison)
    }
}

/// An inventory, what the rules found in it, and what the policy made of it.
public struct AuditResult: Sendable {
    public let inventory: Inventory
    /// The findings to report: after rule switches, severities, ignored paths and the baseline.
    public let findings: [Finding]
    /// Before baseline suppression: what a new baseline records.
    public let allFindings: [Finding]
    public let context: RuleContext
    /// Findings dropped because their path is in `ignore`.
    public let ignoredFindings: Int
    /// Findings already in the baseline, not reported again.
    public let baselineFindings: Int
    public let comparison: BaselineComparison?

    public var budgets: [BudgetResult] { context.budgets }

    // By index: iterating would copy every finding (tens of thousands on large containers).
    public func count(_ severity: Severity) -> Int {
        var n = 0
        for i in findings.indices where findings[i].severity == severity { n += 1 }
        return n
    }

    /// True when a finding is at or above `level`.
    public func fails(at level: Severity) -> Bool { findings.indices.contains { findings[$0].severity >= level } }
}
