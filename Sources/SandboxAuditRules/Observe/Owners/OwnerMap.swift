import SandboxAuditCore
import SandboxAuditSystem

/// Every entry's owner in each container of a scan, and the bytes each owner has there:
/// measured before the rules run, read by the budgets, the rules and the reports.
package struct OwnerMap: Sendable {
    let matcher: OwnerMatcher
    /// Per container (in the scan's order), per entry: its owner's code (-1: none).
    let codes: [[Int32]]

    init(_ inventories: [Inventory], matcher: OwnerMatcher) {
        self.matcher = matcher
        self.codes = inventories.map(matcher.codes)
    }

    /// The owners of `inventories` by the policy file's `owners:` lines, then the catalogue.
    package init(_ inventories: [Inventory], rules: [OwnerRule]) {
        self.init(inventories, matcher: OwnerMatcher(rules: rules))
    }

    /// The owner of entry `entry` of container `container`.
    package func attribution(container: Int, entry: Int) -> Attribution? {
        matcher.attribution(code: codes[container][entry])
    }

    /// The owner of a path (a finding's), matched afresh.
    package func attribution(of path: ContainerPath) -> Attribution? { matcher.attribution(of: path) }

    /// The owner of a path of container `container` (`inventory`): its entry's, found in the
    /// pass already made, or matched afresh when the inventory lists no entry there.
    package func attribution(of path: ContainerPath, container: Int, in inventory: Inventory) -> Attribution? {
        guard container < codes.count, let entry = inventory.index(of: path) else { return attribution(of: path) }
        return attribution(container: container, entry: entry)
    }

    /// `attribution(of:container:in:)` for many paths at once, each `(container, path)` or nil
    /// (no owner asked for): the container's inventory taken once per run of paths of one
    /// container, not copied for every path (a report's tens of thousands of findings), each path
    /// looked for over the inventory's columns from where the one before it was found; from
    /// 10,000 paths on, in a run per core.
    package func attributions(_ items: [(container: Int, path: ContainerPath)?], in inventories: [Inventory])
        -> [Attribution?]
    {
        guard !inventories.isEmpty else { return items.map { $0.flatMap { attribution(of: $0.path) } } }
        let runs = Parallel.runs(items.count, parts: Parallel.parts(items.count, atLeast: 10_000))
        let map = self
        return Parallel.map(runs.count) { part in map.attributions(items[runs[part]], in: inventories) }.flatMap { $0 }
    }

    private func attributions(_ items: ArraySlice<(container: Int, path: ContainerPath)?>, in inventories: [Inventory])
        -> [Attribution?]
    {
        var out: [Attribution?] = []
        out.reserveCapacity(items.count)
        var lastContainer = -1
        var inventory = inventories[0]
        // Paths come in path order within a container: each looked for from the last one found.
        var cursor = 0
        for item in items {
            guard let (c, path) = item else {
                out.append(nil)
                continue
            }
            guard c < codes.count, c < inventories.count else {
                out.append(attribution(of: path))
                continue
            }
            if c != lastContainer {
                inventory = inventories[c]
                lastContainer = c
                cursor = 0
            }
            if let entry = inventory.index(of: path, from: cursor) {
                cursor = entry
                out.append(attribution(container: c, entry: entry))
            } else {
                out.append(attribution(of: path))
            }
        }
        return out
    }

    /// One owner's files and bytes in one container.
    package struct Total: Sendable, Equatable {
        package let owner: String
        /// `team`, `sdk` or `framework`.
        package let kind: String
        package var files = 0
        /// Content bytes backup carries.
        package var backedUpBytes: Int64 = 0
        /// Every content byte, backed up or not.
        package var size: Int64 = 0
    }

    /// Each owner's files and bytes in container `container`, most backed-up bytes first (then
    /// most bytes, then by name). Catalogue entries of one owner add up; a file counts once
    /// (hard links), as in the container's totals.
    package func totals(_ inventory: Inventory, container: Int) -> [Total] {
        var byOwner: [String: Total] = [:]
        let codes = self.codes[container]
        var attributions: [Int32: Attribution] = [:]
        let entries = inventory.entries
        for i in entries.indices where codes[i] >= 0 && entries.countsAsContent(i) {
            let e = entries[i]
            let code = codes[i]
            if attributions[code] == nil { attributions[code] = matcher.attribution(code: code) }
            guard let a = attributions[code] else { continue }
            let key = a.kind + "\u{0}" + a.name
            var t = byOwner[key] ?? Total(owner: a.name, kind: a.kind)
            if e.entry.kind == .file { t.files += 1 }
            t.size +|= e.entry.contentSize
            if e.backedUp == true { t.backedUpBytes +|= e.entry.contentSize }
            byOwner[key] = t
        }
        return byOwner.values.sorted {
            if $0.backedUpBytes != $1.backedUpBytes { return $0.backedUpBytes > $1.backedUpBytes }
            if $0.size != $1.size { return $0.size > $1.size }
            return ($0.owner, $0.kind) < ($1.owner, $1.kind)
        }
    }
}
