import SandboxAuditSystem
import SandboxAuditCore

/// The policy applied to what the rules found: findings about ignored paths dropped, each
/// rule's severity set, the findings put in report order (domain in scan order, then path and
/// rule), and, with a baseline, the findings it already holds suppressed. The rule switches
/// (`Policy.enables`) are applied before, by not running the rules switched off.
struct PolicyApplication {
    /// Every finding after ignores and severities, in report order: what a new baseline records.
    let findings: [Finding]
    /// The findings to report: `findings` less those the baseline holds.
    let reported: [Finding]
    /// Findings dropped because their path is in `ignore`.
    let ignored: Int
    /// Findings the baseline holds, not reported again.
    let known: Int

    /// `found`: the rules' findings, in any grouping; `domains`: the containers' backup domains
    /// in scan order, the app's data container first.
    init(_ policy: Policy, to found: [[Finding]], domains: [String], baseline: Baseline?) {
        var findings: [Finding] = []
        var ignored = 0
        let ignore = GlobSet(policy.ignore)
        for group in found {
            for var f in group {
                if let path = f.path, !path.isRoot, ignore.anyCovers(path) { ignored += 1; continue }
                if let s = policy.severities[f.ruleId] { f = f.with(severity: s) }
                findings.append(f)
            }
        }
        // Sorted by index, then gathered once: sorting the values moves every finding through
        // the merge buffers.
        let domainOrder = Dictionary(domains.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let rank = findings.map { domainOrder[$0.domain ?? ""] ?? 0 }
        findings = findings.indices.sorted { a, b in
            rank[a] != rank[b] ? rank[a] < rank[b] : Finding.ordered(findings[a], findings[b])
        }.map { findings[$0] }
        var reported = findings
        if let baseline {
            let primary = domains.first
            reported = findings.filter { !baseline.findings.contains(Baseline.FindingKey($0, primary: primary)) }
        }
        self.findings = findings
        self.reported = reported
        self.ignored = ignored
        self.known = findings.count - reported.count
    }
}
