import SandboxAuditCore
import SandboxAuditSystem

/// Every entry's owner in each container of a scan, and the bytes each owner has there:
/// measured before the rules run, read by the budgets, the rules and the reports.
package struct OwnerMap: Sendable {
    let matcher: OwnerMatcher
    /// Per container (in the scan's order), per entry: its owner's code (-1: none).
    package let codes: [[Int32]]

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

    /// The owner of a finding's entry, as the audit located it: the entry's owner, or the
    /// path's matched afresh when the inventory lists no entry there; nil for a finding about
    /// no path (or the data root).
    package func attribution(of finding: Finding) -> Attribution? {
        guard let path = finding.path, !path.isRoot else { return nil }
        guard let at = finding.site, let entry = at.entry, at.container < codes.count else {
            return attribution(of: path)
        }
        return attribution(container: at.container, entry: entry)
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
