import SandboxAuditCore
import SandboxAuditSystem

/// A budget and how much of it is used.
package struct BudgetResult: Sendable {
    package let budget: Budget
    /// Nil when the budget cannot be measured (churn and growth need a baseline).
    package let measured: Int64?
    package let limit: Int64
    /// The largest contributors, largest first.
    package let contributors: [(path: ContainerPath, size: Int64)]

    package var exceeded: Bool { (measured ?? 0) > limit }
    package var overshoot: Int64 { max(0, (measured ?? 0).addingSaturated(limit == .min ? .max : -limit)) }
    /// Use as a percentage of the limit.
    package var percent: Double? {
        guard let m = measured else { return nil }
        return limit > 0 ? Double(m) * 100 / Double(limit) : (m > 0 ? .infinity : 0)
    }
}

/// Measures every budget of a policy against an inventory (and a baseline, for growth and churn).
enum Budgets {
    static let contributorCount = 5

    /// Budgets are the app's: every container counts, except in a domain's own budget.
    static func evaluate(
        _ budgets: [Budget], growth: GrowthBudget?, _ inventories: [Inventory], _ comparison: BaselineComparison?,
        owners: OwnerMap? = nil, globChunks: Int? = nil
    ) -> [BudgetResult] {
        var budgets = budgets
        if let g = growth {
            budgets.append(
                Budget(scope: .growth, limit: comparison.map { g.allowance(baseline: $0.footprintBefore) } ?? g.minimum)
            )
        }
        // Every container's content, made only for a budget that needs it (a policy of glob
        // budgets alone does not pay a copy of a million entries).
        var allFiles: [InventoryEntry]?
        func files() -> [InventoryEntry] {
            if let allFiles { return allFiles }
            let made = inventories.flatMap { inv in
                inv.entries.indices.filter { inv.entries.countsAsContent($0) }.map { inv.entries[$0] }
            }
            allFiles = made
            return made
        }
        func top(_ items: [(ContainerPath, Int64)]) -> [(path: ContainerPath, size: Int64)] {
            items.filter { $0.1 > 0 }.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }.prefix(contributorCount).map {
                ($0.0, $0.1)
            }
        }
        func sum(_ selected: [InventoryEntry], _ measure: Budget.Measure) -> (
            Int64, [(path: ContainerPath, size: Int64)]
        ) {
            let counted = selected.filter { measure == .size || $0.backedUp == true }
            return (counted.byteSum(\.entry.contentSize), top(counted.map { ($0.path, $0.entry.contentSize) }))
        }
        // Every glob budget measured in one pass per container (`GlobSet`, on every core): its
        // sum and its largest files, kept as they come, per run of entries; the runs' figures
        // then joined in entry order (the same sums and the same largest files, ties included).
        let globBudgets = budgets.filter { if case .glob = $0.scope { return true } else { return false } }
        var globSums = [Int64](repeating: 0, count: globBudgets.count)
        var globTop = [[(path: ContainerPath, size: Int64)]](repeating: [], count: globBudgets.count)
        if !globBudgets.isEmpty {
            let set = GlobSet(
                globBudgets.compactMap { b -> Glob? in if case .glob(let g) = b.scope { return g } else { return nil } }
            )
            let measures = globBudgets.map(\.measure)
            for inv in inventories {
                let entries = inv.entries
                let runs = set.visit(
                    entries, chunks: globChunks,
                    initial: (
                        sums: globSums.map { _ in Int64(0) },
                        top: globTop.map { _ in [(path: ContainerPath, size: Int64)]() }
                    )
                ) { run, i, covering in
                    guard !covering.isEmpty, entries[i].countsAsContent else { return }
                    let e = entries[i]
                    let size = e.entry.contentSize
                    for c in covering {
                        let g = Int(c.glob)
                        guard measures[g] == .size || e.backedUp == true else { continue }
                        run.sums[g] = run.sums[g].addingSaturated(size)
                        keep(&run.top[g], e.path, size)
                    }
                }
                for run in runs {
                    for g in globBudgets.indices {
                        globSums[g] = globSums[g].addingSaturated(run.sums[g])
                        for (path, size) in run.top[g] { keep(&globTop[g], path, size) }
                    }
                }
            }
        }
        var nextGlob = 0
        return budgets.map { b in
            switch b.scope {
            case .backup:
                let (m, c) = sum(files(), .backedUp)
                return BudgetResult(budget: b, measured: m, limit: b.limit, contributors: c)
            case .zone(let z):
                let (m, c) = sum(files().filter { $0.zone == z }, b.measure)
                return BudgetResult(budget: b, measured: m, limit: b.limit, contributors: c)
            case .glob:
                let (m, c) = (globSums[nextGlob], globTop[nextGlob])
                nextGlob += 1
                return BudgetResult(budget: b, measured: m, limit: b.limit, contributors: c)
            case .domain(let d):
                let own = inventories.filter { $0.domain == d }.flatMap { inv in
                    inv.entries.filter(\.countsAsContent)
                }
                let (m, c) = sum(own, b.measure)
                return BudgetResult(
                    budget: b, measured: inventories.contains { $0.domain == d } ? m : nil, limit: b.limit,
                    contributors: c)
            case .owner(let name):
                let (m, c) = sum(ownedBy(name, inventories, owners), b.measure)
                return BudgetResult(budget: b, measured: m, limit: b.limit, contributors: c)
            case .churn:
                return BudgetResult(
                    budget: b, measured: comparison?.churn, limit: b.limit,
                    contributors: top(comparison?.churnContributors.map { ($0.path, $0.after ?? 0) } ?? []))
            case .growth:
                return BudgetResult(
                    budget: b, measured: comparison?.footprintDelta, limit: b.limit,
                    // What backup carries: growth of the footprint, not of Caches or tmp.
                    contributors: top(
                        (comparison?.grew.filter(\.backedUp).map { ($0.path, $0.delta) } ?? [])
                            + (comparison?.added.filter(\.backedUp).map { ($0.path, $0.after ?? 0) } ?? [])))
            }
        }
    }

    /// Puts `path` among the largest of `top` when it is: the largest first, ties by path (an
    /// equal pair after the one already there), at most `contributorCount`.
    static func keep(_ top: inout [(path: ContainerPath, size: Int64)], _ path: ContainerPath, _ size: Int64) {
        guard size > 0 else { return }
        if top.count == contributorCount, let least = top.last,
            size < least.size || (size == least.size && path > least.path)
        {
            return
        }
        let at = top.firstIndex { size > $0.size || (size == $0.size && path < $0.path) } ?? top.count
        top.insert((path, size), at: at)
        if top.count > contributorCount { top.removeLast() }
    }

    /// The content entries of every container that `name` owns.
    static func ownedBy(_ name: String, _ inventories: [Inventory], _ owners: OwnerMap?) -> [InventoryEntry] {
        guard let owners else { return [] }
        var out: [InventoryEntry] = []
        for (c, inv) in inventories.enumerated() {
            for i in inv.entries.indices
            where inv.entries.countsAsContent(i) && owners.attribution(container: c, entry: i)?.name == name {
                out.append(inv.entries[i])
            }
        }
        return out
    }
}
