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
    /// Findings a `suppress:` entry in force covers: not reported as findings, not counted
    /// toward the fail level, not recorded in a new baseline; reports list them with the reason.
    let suppressed: [SuppressedFinding]
    /// The suppressions in force that covered no finding (a note says so: it may be stale).
    let unused: [Suppression]

    /// `found`: the rules' findings, in any grouping; `domains`: the containers' backup domains
    /// in scan order, the app's data container first.
    /// `today`: expired suppressions (`until` before it) suppress nothing.
    init(_ policy: Policy, to found: [[Finding]], domains: [String], baseline: Baseline?, today: CalendarDay? = nil) {
        var findings: [Finding] = []
        var suppressed: [SuppressedFinding] = []
        var ignored = 0
        let ignore = GlobSet(policy.ignore)
        let inForce = policy.suppressions.filter { s in today.map { !s.expired(today: $0) } ?? true }
        var used = Set<Int>()
        let ignoresAny = !ignore.globs.isEmpty
        for group in found {
            for var f in group {
                if ignoresAny, let path = f.path, !path.isRoot, ignore.anyCovers(path) { ignored += 1; continue }
                if let s = policy.severities[f.ruleId] { f = f.with(severity: s) }
                // The first entry in file order that covers it.
                if !inForce.isEmpty, let i = inForce.firstIndex(where: { $0.covers(f) }) {
                    used.insert(i)
                    suppressed.append(SuppressedFinding(finding: f, suppression: inForce[i]))
                    continue
                }
                findings.append(f)
            }
        }
        suppressed.sort { Finding.ordered($0.finding, $1.finding) }
        self.suppressed = suppressed
        self.unused = inForce.indices.filter { !used.contains($0) }.map { inForce[$0] }
        // Sorted by index, then gathered once: sorting the values moves every finding through
        // the merge buffers. The keys are read from arrays of their own: a comparison that took
        // two findings would copy both (five references each) every time.
        findings = Finding.reportOrder(findings, domains: domains).map { findings[$0] }
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

/// A finding a `suppress:` entry covers, with that entry (its reason and expiry).
package struct SuppressedFinding: Sendable {
    package let finding: Finding
    package let suppression: Suppression
}
