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
        var suppressed: [SuppressedFinding] = []
        var ignored = 0
        let ignore = GlobSet(policy.ignore)
        let ignoresAny = !ignore.globs.isEmpty
        let inForce = policy.suppressions.filter { s in today.map { !s.expired(today: $0) } ?? true }
        var used = Set<Int>()
        // The findings kept, by group and index: each is copied once, into the report order.
        var kept: [(group: Int, index: Int)] = []
        kept.reserveCapacity(found.reduce(0) { $0 + $1.count })
        func withSeverity(_ f: Finding) -> Finding { policy.severities[f.ruleId].map { f.with(severity: $0) } ?? f }
        for g in found.indices {
            let group = found[g]
            for i in group.indices {
                if ignoresAny, let path = group[i].path, !path.isRoot, ignore.anyCovers(path) { ignored += 1; continue }
                // The first entry in file order that covers it.
                if !inForce.isEmpty {
                    let f = withSeverity(group[i])
                    if let s = inForce.firstIndex(where: { $0.covers(f) }) {
                        used.insert(s)
                        suppressed.append(SuppressedFinding(finding: f, suppression: inForce[s]))
                        continue
                    }
                }
                kept.append((g, i))
            }
        }
        suppressed.sort { Finding.ordered($0.finding, $1.finding) }
        self.suppressed = suppressed
        self.unused = inForce.indices.filter { !used.contains($0) }.map { inForce[$0] }
        // Sorted by index over the keys, then gathered once: sorting the values would move every
        // finding through the merge buffers, and comparing two would copy both.
        let order = Finding.reportOrder(count: kept.count, domains: domains, { found[kept[$0].group][kept[$0].index].domain },
                                        { found[kept[$0].group][kept[$0].index].path }) { a, b in
            let fa = kept[a], fb = kept[b]
            let ra = found[fa.group][fa.index].ruleId, rb = found[fb.group][fb.index].ruleId
            return ra != rb ? ra < rb : found[fa.group][fa.index].message < found[fb.group][fb.index].message
        }
        let severities = !policy.severities.isEmpty
        let findings = order.map { k -> Finding in
            let f = found[kept[k].group][kept[k].index]
            return severities ? withSeverity(f) : f
        }
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
