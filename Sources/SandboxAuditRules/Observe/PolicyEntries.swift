import SandboxAuditSystem
import SandboxAuditCore

/// What the policy file says of paths and bytes, as plain values: the path entries the policy
/// rules check and the budgets measured before the rules run. The policy file (Policy/) parses
/// them; the rules read them.

/// A policy on the paths a glob matches.
package struct PathPolicy: Sendable {
    package enum Backup: String, Sendable { case excluded, included }
    package var glob: Glob
    /// `excluded`: re-creatable content; a finding when any of it is backed up.
    /// `included`: data that must survive a restore; a finding when any of it is not backed up.
    package var backup: Backup?
    /// Must not exist.
    var forbidden = false
    /// Each matching item (a folder with everything in it) may not be larger.
    var maxSize: Int64?

    init(glob: Glob) { self.glob = glob }
}

/// A limit on bytes.
package struct Budget: Sendable {
    package enum Scope: Sendable, Hashable {
        /// The backup footprint.
        case backup
        /// Backed-up bytes new or changed since the baseline.
        case churn
        case zone(Zone)
        case glob(Glob)
        /// The backup footprint of one backup domain (`AppDomainGroup-group.…`).
        case domain(String)
        /// Growth of the backup footprint since the baseline (from `growth:`).
        case growth
        /// The bytes one owner (a catalogue owner or a team of `owners:`) has, in every container.
        case owner(String)
    }
    /// Which bytes count: what backup carries, or every byte.
    package enum Measure: String, Sendable { case backedUp, size }

    package var scope: Scope
    package var measure: Measure
    var limit: Int64

    init(scope: Scope, measure: Measure = .backedUp, limit: Int64) {
        self.scope = scope
        self.measure = measure
        self.limit = limit
    }

    /// How the budget is named in reports and findings.
    package var name: String {
        switch scope {
        case .backup: return "backup footprint"
        case .churn: return "backup churn"
        case .zone(let z): return "\(z.title)" + (measure == .size ? " (all bytes)" : " (backed up)")
        case .glob(let g): return "\(g.pattern)" + (measure == .size ? " (all bytes)" : " (backed up)")
        case .domain(let d): return "\(d) backup footprint"
        case .growth: return "backup growth since the baseline"
        case .owner(let o): return "\(o)'s backup footprint"
        }
    }
}

/// Growth of the backup footprint since the baseline: relative, with an absolute floor.
/// `growth: {backup: "10%", min: "1 MB"}` allows max(10% of the baseline footprint, 1 MB).
struct GrowthBudget: Sendable {
    var percent: Double
    var minimum: Int64

    init(percent: Double, minimum: Int64) {
        self.percent = percent
        self.minimum = minimum
    }

    func allowance(baseline: Int64) -> Int64 {
        max(Int64((Double(baseline) * percent / 100).rounded(.down)), minimum)
    }
}
