import SandboxAuditCore
import SandboxAuditSystem

/// Writing a baseline: what a scan found, keyed by rule and path. Here, after the rules, since a
/// baseline records findings; reading one and comparing with it come before (Observe/).
extension Baseline.FindingKey {
    /// The key of a finding of an audit whose first container is `primary`.
    init(_ f: Finding, primary: String?) {
        self.init(
            ruleId: f.ruleId, path: Baseline.qualified(f.path ?? .root, domain: f.domain == primary ? nil : f.domain))
    }
}

extension Baseline {
    /// Records the app's containers (its data container first) and `findings`, the findings
    /// before any baseline suppression.
    /// Each file records its owner (`owners`).
    /// `missed`: what the scan could not read (`complete` is false when it holds any).
    init(inventories: [Inventory], findings: [Finding], owners: OwnerMap? = nil, missed: [MissedItem] = []) {
        let inv = inventories[0]
        bundleIdentifier = inv.container.bundleIdentifier
        version = inv.container.version
        backupFootprint = inventories.byteSum(\.backupFootprint)
        domains = inventories.map(\.domain)
        zones = inventories.reduce(into: [:]) { all, i in all.merge(i.zoneTotals) { $0 + $1 } }
        var records: [FindingRecord] = []
        var seen = Set<[String]>()
        for f in findings {
            let key = FindingKey(f, primary: inv.domain)
            guard seen.insert([key.ruleId, key.path.display, key.path.base64 ?? "", f.message]).inserted else {
                continue
            }
            records.append(FindingRecord(key: key, severity: f.severity.rawValue, message: f.message))
        }
        findingRecords = records.sorted {
            ($0.key.path, $0.key.ruleId, $0.message ?? "") < ($1.key.path, $1.key.ruleId, $1.message ?? "")
        }
        self.findings = Set(records.map(\.key))
        complete = missed.isEmpty
        self.missed = missed.map { m in
            Missed(
                path: Baseline.qualified(m.path, domain: m.domain == inv.domain ? nil : m.domain), what: m.what,
                why: m.why)
        }
        var files = BaselineTable()
        for (index, i) in inventories.enumerated() {
            let domain = index == 0 ? nil : i.domain
            let names = i.hardLinkNames()
            for (j, e) in i.entries.enumerated() where e.countsAsContent {
                let path = Baseline.qualified(e.path, domain: domain).bytes
                files.append(
                    path: path,
                    File(
                        size: e.entry.size, mtime: e.entry.modifiedSeconds, zone: e.zone, backedUp: e.backedUp == true,
                        inode: e.entry.inode, excluded: e.excludedBy != nil, survivesUpdate: e.survivesUpdate == true,
                        owner: owners?.attribution(container: index, entry: j)?.name))
                if let other = names[j] {
                    _ = files.addLinks(other.map { Baseline.qualified($0, domain: domain) }, of: path)
                }
            }
        }
        // A path recorded twice (a container's path that reads as another's `DOMAIN/PATH`): the
        // last kept, as the record by path always did.
        try? files.finish(keepingLast: true)
        self.files = files
    }
}

extension Inventory {
    /// The other names of each hard-linked file, by the entry that counts it (the file's first
    /// name): a baseline records them so that a later scan naming the file otherwise matches it.
    func hardLinkNames() -> [Int: [ContainerPath]] {
        var groups: [HardLinkKey: [Int]] = [:]
        for (j, e) in entries.enumerated() where e.entry.kind == .file && e.entry.linkCount > 1 && e.zone != .system {
            groups[HardLinkKey(device: e.entry.device, inode: e.entry.inode), default: []].append(j)
        }
        var out: [Int: [ContainerPath]] = [:]
        for members in groups.values where members.count > 1 {
            guard let counted = members.first(where: { entries[$0].countsAsContent }) else { continue }
            out[counted] = members.filter { $0 != counted }.map { entries[$0].path }.sorted()
        }
        return out
    }
}
