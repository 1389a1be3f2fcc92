import SandboxAuditCore
import SandboxAuditSystem

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
    /// `systemWritten`: whether a finding is about a file iOS writes on the app's behalf (a
    /// framework owns it): such a finding is at most a warning unless the policy sets its rule's
    /// severity, so that bytes the developer did not write never fail a build by default.
    init(
        _ policy: Policy, to found: [[Finding]], domains: [String], baseline: Baseline?, today: CalendarDay? = nil,
        systemWritten: (Finding) -> Bool = { _ in false }
    ) {
        var suppressed: [SuppressedFinding] = []
        var ignored = 0
        let ignore = GlobSet(policy.ignore)
        let ignoresAny = !ignore.globs.isEmpty
        let inForce = policy.suppressions.filter { s in today.map { !s.expired(today: $0) } ?? true }
        let suppressions = SuppressionIndex(inForce)
        var used = Set<Int>()
        // The findings kept, by group and index: each is copied once, into the report order.
        var kept: [(group: Int, index: Int)] = []
        kept.reserveCapacity(found.reduce(0) { $0 + $1.count })
        func withSeverity(_ f: Finding) -> Finding {
            if let set = policy.severities[f.ruleId] { return f.with(severity: set) }
            return f.severity > .warning && systemWritten(f) ? f.with(severity: .warning) : f
        }
        for g in found.indices {
            let group = found[g]
            for i in group.indices {
                if ignoresAny, let path = group[i].path, !path.isRoot, ignore.anyCovers(path) {
                    ignored += 1
                    continue
                }
                // The first entry in file order that covers it.
                if !inForce.isEmpty {
                    let f = withSeverity(group[i])
                    if let s = suppressions.first(covering: f) {
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
        let order = Finding.reportOrder(
            count: kept.count, domains: domains, { found[kept[$0].group][kept[$0].index].domain },
            { found[kept[$0].group][kept[$0].index].path }
        ) { a, b in
            let fa = kept[a]
            let fb = kept[b]
            let ra = found[fa.group][fa.index].ruleId
            let rb = found[fb.group][fb.index].ruleId
            return ra != rb ? ra < rb : found[fa.group][fa.index].message < found[fb.group][fb.index].message
        }
        // Every finding when a severity may change: set by the policy, or capped (system-written files).
        let severities = true
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

/// The suppressions in force, indexed by rule id, then as globs are: a glob with no wildcard
/// (`Documents/cache.db`, the usual entry) by its path, found by looking up the finding's path
/// and those of its folders whose lengths some such glob has; the others by their first
/// component (`GlobSet`). A finding is matched against the entries that can cover it, not
/// against every entry, so `suppress:` costs about (findings × their paths' length) plus the
/// wildcard entries a finding's first component selects (docs/limits.md).
struct SuppressionIndex {
    private struct Entries {
        /// Literal globs: the path they name → the first entry naming it, and their lengths.
        var literal: [[UInt8]: Int] = [:]
        var lengths: Set<Int> = []
        /// Globs with a wildcard, in file order, and their entries.
        var wildEntries: [Int] = []
        var wild = GlobSet([])
    }

    private let byRule: [String: Entries]
    private let suppressions: [Suppression]

    init(_ suppressions: [Suppression]) {
        self.suppressions = suppressions
        var byRule: [String: Entries] = [:]
        for (i, s) in suppressions.enumerated() {
            let parts = s.glob.patterns
            var entries = byRule[s.ruleId] ?? Entries()
            if parts.allSatisfy({ !$0.contains { "*?[".utf8.contains($0) } }) {
                let path = Array(parts.joined(separator: [UInt8(ascii: "/")]))
                if entries.literal[path] == nil { entries.literal[path] = i }
                entries.lengths.insert(path.count)
            } else {
                entries.wildEntries.append(i)
            }
            byRule[s.ruleId] = entries
        }
        for (rule, e) in byRule where !e.wildEntries.isEmpty {
            byRule[rule]!.wild = GlobSet(e.wildEntries.map { suppressions[$0].glob })
        }
        self.byRule = byRule
    }

    /// The first entry in file order that covers `f` (`Suppression.covers`); nil when none does.
    func first(covering f: Finding) -> Int? {
        guard let rule = byRule[f.ruleId] else { return nil }
        guard let path = f.path, !path.isRoot else {
            return rule.wildEntries.first { suppressions[$0].covers(f) }
        }
        // The path and its folders: a literal glob covers what it names and what is inside it.
        var best: Int?
        if !rule.literal.isEmpty {
            let bytes = path.bytes
            for end in bytes.indices where bytes[end] == UInt8(ascii: "/") && rule.lengths.contains(end) {
                if let i = rule.literal[Array(bytes[..<end])] { best = min(best ?? i, i) }
            }
            if rule.lengths.contains(bytes.count), let i = rule.literal[bytes] { best = min(best ?? i, i) }
        }
        if let w = rule.wild.firstCovering(path).map({ rule.wildEntries[$0] }) { best = min(best ?? w, w) }
        return best
    }
}
