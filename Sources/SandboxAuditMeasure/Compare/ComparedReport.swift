import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// One side of `compare`: a scan report (`scan --format json`, docs/json-format.md) or a
/// baseline (`scan --write-baseline`, docs/baseline-format.md), read into what both can say.
///
/// What each holds differs, and nothing is invented for what a side lacks: a scan report has
/// the totals per domain and zone (kept-on-update bytes included) and the findings in full,
/// but no per-path sizes; a baseline has every file's size, zone, backup and exclusion state (so
/// the paths that grew or changed backup state, and the bytes per owner when its files name one)
/// and the findings (severity and message from version 3 on), with kept-on-update bytes only
/// when its files record `survivesUpdate`.
package struct ComparedReport: Sendable {
    package enum Kind: String, Sendable { case scan, baseline }

    /// Bytes backup carries, bytes an update keeps (nil when the side does not record it),
    /// and the files counted.
    package struct Figures: Sendable, Equatable {
        package var backupFootprint: Int64 = 0
        package var keptOnUpdate: Int64? = 0
        package var files: Int64 = 0

        /// `kept`: whether an update keeps the file; nil when the side does not record it,
        /// which makes the kept-on-update sum unknown.
        package mutating func count(_ size: Int64, backedUp: Bool, kept: Bool?) {
            files += 1
            if backedUp { backupFootprint +|= size }
            if let kept {
                if kept, let k = keptOnUpdate { keptOnUpdate = k.addingSaturated(size) }
            } else {
                keptOnUpdate = nil
            }
        }
    }

    /// A path of one backup domain.
    package struct PathKey: Hashable, Comparable, Sendable {
        package let domain: String
        package let path: ContainerPath
        package static func < (a: PathKey, b: PathKey) -> Bool { (a.domain, a.path) < (b.domain, b.path) }
    }

    package struct PathRecord: Sendable {
        package let size: Int64
        package let backedUp: Bool
        package let zone: Zone
        /// The owner the entry names; nil when it names none or has no `owner` key.
        package let owner: String?
        /// Whether an update keeps it; nil when the side does not record it.
        package var kept: Bool? = nil
        /// Whether it carried or inherited the exclude attribute; nil when not recorded.
        package var excluded: Bool? = nil
    }

    package struct FindingRecord: Sendable {
        package let ruleId: String
        package let domain: String
        /// Nil for a finding about no entry (a budget).
        package let path: ContainerPath?
        package let severity: String?
        package let message: String?
        package let owner: String?
    }

    /// The largest file read, as for a baseline (`JSONDocument`).
    package static let maximumSize = JSONDocument.maximumSize

    package let kind: Kind
    package let location: String
    package let bundleIdentifier: String?
    package let version: String?
    /// The scan's `complete`; nil for a baseline written before version 3, which records none.
    package let complete: Bool?
    /// What that scan could not read, one `path: what (why)` line each.
    package let missed: [String]
    /// The backup domains in the side's order, the app's data container first.
    package let domains: [String]
    package let total: Figures
    package let perDomain: [String: Figures]
    package let perZone: [Zone: Figures]
    /// Every file with its size; nil for a scan report, which has no per-path sizes.
    package let paths: PathTable?
    /// True when at least one path entry carries an `owner` key (even null).
    package let namesOwners: Bool
    package let findings: [FindingRecord]
    /// A scan report's owner totals (its domains' `owners`, summed per owner; kept-on-update
    /// bytes not recorded); nil for a baseline (its owners are summed from its files) or a
    /// report without them.
    package var ownerTotals: [String: Figures]? = nil
    /// The domains the scan audited, empty ones included: a scan report's, or a baseline's where
    /// it records them; nil for an older baseline (its domains are those its files name).
    package var auditedDomains: [String]? = nil

    /// Bytes and files per owner, nil (no owner) for the rest: summed from a baseline's files
    /// when they name owners; from a scan report's owner totals, the rest being the totals less
    /// the owners'. Nil when the side names no owner.
    package var perOwner: [String?: Figures]? {
        if let paths {
            guard namesOwners else { return nil }
            var out: [String?: Figures] = [:]
            let f = paths.files
            for row in paths.order {
                let i = Int(row)
                out[f.owner(i), default: Figures(keptOnUpdate: paths.recordsKept ? 0 : nil)].count(
                    f.size(i), backedUp: f.backedUp(i), kept: f.survivesUpdate(i))
            }
            return out
        }
        guard let named = ownerTotals else { return nil }
        var out: [String?: Figures] = [:]
        var rest = Figures(backupFootprint: total.backupFootprint, keptOnUpdate: nil, files: total.files)
        for (name, f) in named {
            out[name] = f
            // A report's owners may claim more than its total (a hostile or edited one): what is
            // left never goes below nothing, and no figure wraps.
            func less(_ a: Int64, _ b: Int64) -> Int64 {
                let (d, overflow) = a.subtractingReportingOverflow(b)
                return overflow ? (b > 0 ? 0 : .max) : max(0, d)
            }
            rest.backupFootprint = less(rest.backupFootprint, f.backupFootprint)
            rest.files = less(rest.files, f.files)
        }
        if rest.backupFootprint > 0 || rest.files > 0 {
            out[nil] = Figures(
                backupFootprint: max(0, rest.backupFootprint), keptOnUpdate: nil, files: max(0, rest.files))
        }
        return out
    }

    /// Reads `location` (`what` names the side in errors: "BASE", "HEAD"); an `InputError`
    /// says what is wrong with it, in one line, naming the field when a value is not of its
    /// documented type (`JSONDocument`).
    package static func load(_ location: String, as what: String) throws -> ComparedReport {
        let shown = TerminalText.escaped(location)
        let notReport =
            "\(what) \(shown) is not a sandbox-audit scan report (scan --format json) or baseline (scan "
            + "--write-baseline)"
        let reader = Reader(location: location, what: what)
        do {
            switch try ReportDocument.read(try JSONDocument.read(location), accepting: .either) {
            case .baseline(let b): return reader.baseline(b)
            case .scan(let r): return try reader.scan(r)
            }
        } catch JSONDocument.Refusal.unreadable(let why) {
            throw InputError("cannot read \(what) \(shown): \(why)")
        } catch JSONDocument.Refusal.notJSON(let why) {
            throw InputError("\(notReport): \(why)")
        } catch let e as JSONReader.Failure {
            throw InputError("\(notReport): \(e)")
        } catch is ScanReportDocument.NotThisKind {
            throw InputError(notReport)
        } catch let e as BaselineDocument.UnsupportedVersion {
            throw reader.error("schemaVersion \(e.found) is not supported")
        }
    }

    /// The decoding of one file, with its name for the errors.
    package struct Reader {
        package let location: String
        package let what: String

        package func error(_ text: String) -> InputError {
            InputError("\(what) \(TerminalText.escaped(location)): \(text)")
        }

        package func scan(_ r: ScanReportDocument) throws -> ComparedReport {
            var domains: [String] = []
            var perDomain: [String: Figures] = [:]
            for (name, t) in r.domains {
                domains.append(name)
                perDomain[name] = Figures(
                    backupFootprint: t.backupFootprint, keptOnUpdate: t.keptOnUpdate, files: t.files)
            }
            guard let primary = domains.first else { throw error("the report has no domain") }
            let total = Figures(
                backupFootprint: r.totals.backupFootprint, keptOnUpdate: r.totals.keptOnUpdate, files: r.totals.files)
            var perZone: [Zone: Figures] = [:]
            for (zone, t) in r.zones {
                perZone[zone] = Figures(
                    backupFootprint: t.backupFootprint, keptOnUpdate: t.keptOnUpdate, files: t.files)
            }
            let findings = r.findings.map { f in
                FindingRecord(
                    ruleId: f.ruleId, domain: f.domain ?? primary, path: f.path, severity: f.severity,
                    message: f.message, owner: f.owner)
            }
            let owners = r.owners.map { o in
                o.mapValues { Figures(backupFootprint: $0.backedUpBytes, keptOnUpdate: nil, files: $0.files) }
            }
            var side = ComparedReport(
                kind: .scan, location: location, bundleIdentifier: r.bundleIdentifier, version: r.version,
                complete: r.complete, missed: r.missed,
                domains: domains, total: total, perDomain: perDomain, perZone: perZone,
                paths: nil, namesOwners: owners != nil, findings: findings, ownerTotals: owners)
            side.auditedDomains = domains
            return side
        }

        package func baseline(_ b: BaselineDocument) -> ComparedReport {
            let primary = ContainerRole.app.domain(b.bundleIdentifier)
            let table = PathTable(b.files, primary: primary)
            var domains = [primary]
            // Kept-on-update bytes are known when the files record `survivesUpdate`.
            let empty = Figures(keptOnUpdate: table.recordsKept ? 0 : nil)
            var perDomain: [String: Figures] = [primary: empty]
            var perZone: [Zone: Figures] = [:]
            var namesOwners = false
            let files = b.files
            // Each domain's figures summed in an array by its index, then named.
            var byDomain = [Figures?](repeating: nil, count: table.domainNames.count)
            var zoneFigures = [Figures?](repeating: nil, count: Zone.allCases.count)
            let zoneIndex = Dictionary(uniqueKeysWithValues: Zone.allCases.enumerated().map { ($1, $0) })
            var firstSeen: [Int] = []
            for i in files.indices {
                if files.namesOwner(i) { namesOwners = true }
                let d = table.domainIndex(i)
                let size = files.size(i)
                let backedUp = files.backedUp(i)
                let kept = files.survivesUpdate(i)
                if byDomain[d] == nil {
                    byDomain[d] = empty
                    firstSeen.append(d)
                }
                byDomain[d]?.count(size, backedUp: backedUp, kept: kept)
                let z = zoneIndex[files.zone(i)] ?? 0
                if zoneFigures[z] == nil { zoneFigures[z] = empty }
                zoneFigures[z]?.count(size, backedUp: backedUp, kept: kept)
            }
            for d in firstSeen {
                let name = table.domainNames[d]
                if d != 0 { domains.append(name) }
                perDomain[name] = byDomain[d]
            }
            for (z, f) in zoneFigures.enumerated() where f != nil { perZone[Zone.allCases[z]] = f }
            // The zones' recorded bytes, where a symlink counts 0 (the files list does not tell
            // symlinks from files, so the per-domain sums count a symlink's length).
            for z in b.zones where perZone[z.zone] != nil {
                perZone[z.zone]?.backupFootprint = z.backedUpSize
            }
            let findings = b.findings.map { f in
                let key = f.path.isRoot ? nil : PathTable.split(f.path, primary: primary)
                // A baseline's findings name no owner; the file at their path does (`owner`).
                let owner = f.owner ?? (f.path.isRoot ? nil : b.files.row(f.path).flatMap(b.files.owner))
                return FindingRecord(
                    ruleId: f.ruleId, domain: key?.domain ?? primary, path: key?.path ?? .root,
                    severity: f.severity, message: f.message, owner: owner)
            }
            let kept = perDomain.values.reduce(empty.keptOnUpdate) { sum, d in
                d.keptOnUpdate.flatMap { k in sum.map { $0.addingSaturated(k) } }
            }
            let total = Figures(backupFootprint: b.backupFootprint, keptOnUpdate: kept, files: Int64(table.count))
            var side = ComparedReport(
                kind: .baseline, location: location, bundleIdentifier: b.bundleIdentifier, version: b.version,
                complete: b.complete, missed: b.missed.map(\.line), domains: domains, total: total,
                perDomain: perDomain, perZone: perZone,
                paths: table, namesOwners: namesOwners, findings: findings)
            side.auditedDomains = b.domains
            return side
        }
    }
}

/// A baseline's files by backup domain and path, for `compare`'s join: the baseline's columns
/// (`BaselineTable`) with each row's domain, and the rows in (domain, path) order. A baseline is
/// written sorted by path, so each domain's rows come in order already: they are grouped by
/// domain in one pass, and sorted only where they are not.
package struct PathTable: Sendable {
    package let files: BaselineTable
    /// The domains the rows name, and each row's (an index into them).
    package let domainNames: [String]
    private let domains: [Int32]
    /// Where each row's path starts after its `DOMAIN/` (0 for the data container's).
    private let starts: [Int32]
    /// The rows in (domain, path) order, one per key (of a key held twice, the last row).
    package let order: [Int32]
    /// Some row records whether an update keeps it.
    package let recordsKept: Bool

    /// The paths of the app's other containers are written `DOMAIN/PATH`; the others are the
    /// data container's, whose domain is `primary` (`AppDomain-ID`).
    package static func split(_ p: ContainerPath, primary: String) -> ComparedReport.PathKey {
        guard let first = p.leadingComponents(1).first, first.starts(with: Array("AppDomain".utf8)),
            let domain = ByteText.utf8String(first)
        else { return ComparedReport.PathKey(domain: primary, path: p) }
        let rest = p.bytes.dropFirst(first.count + 1)
        return ComparedReport.PathKey(domain: domain, path: ContainerPath(bytes: Array(rest)))
    }

    init(_ files: BaselineTable, primary: String) {
        self.files = files
        var names = [primary]
        var index = [primary: Int32(0)]
        var domains = [Int32](repeating: 0, count: files.count)
        var starts = [Int32](repeating: 0, count: files.count)
        var kept = false
        let prefix = Array("AppDomain".utf8)
        for i in files.indices {
            if files.survivesUpdate(i) != nil { kept = true }
            let p = files.pathSlice(i)
            guard p.first == UInt8(ascii: "A"), p.starts(with: prefix) else { continue }
            let key = Self.split(ContainerPath(bytes: Array(p)), primary: primary)
            let d: Int32
            if let known = index[key.domain] {
                d = known
            } else {
                d = Int32(names.count)
                names.append(key.domain)
                index[key.domain] = d
            }
            domains[i] = d
            starts[i] = Int32(p.count - key.path.bytes.count)
        }
        // Rows grouped by domain, the domains in name order; each group kept in file order.
        let rank = names.indices.sorted { names[$0] < names[$1] }
        var groupOf = [Int](repeating: 0, count: names.count)
        for (g, d) in rank.enumerated() { groupOf[d] = g }
        var counts = [Int](repeating: 0, count: names.count + 1)
        for d in domains { counts[groupOf[Int(d)] + 1] += 1 }
        for g in 0..<names.count { counts[g + 1] += counts[g] }
        var grouped = [Int32](repeating: 0, count: files.count)
        var next = counts
        for i in files.indices {
            let g = groupOf[Int(domains[i])]
            grouped[next[g]] = Int32(i)
            next[g] += 1
        }
        // Within a group: in path order, one row per path (the last row of a path held twice).
        func path(_ i: Int32) -> ArraySlice<UInt8> { files.pathSlice(Int(i)).dropFirst(Int(starts[Int(i)])) }
        var order: [Int32] = []
        order.reserveCapacity(files.count)
        for g in 0..<names.count {
            var group = Array(grouped[counts[g]..<counts[g + 1]])
            var inOrder = true
            for k in group.indices.dropFirst() where Bytes.compare(path(group[k - 1]), path(group[k])) >= 0 {
                inOrder = false
                break
            }
            if !inOrder {
                group.sort { a, b in
                    let c = Bytes.compare(path(a), path(b))
                    return c == 0 ? a < b : c < 0
                }
                var unique: [Int32] = []
                for r in group {
                    if let last = unique.last, Bytes.compare(path(last), path(r)) == 0 {
                        unique[unique.count - 1] = r
                    } else {
                        unique.append(r)
                    }
                }
                group = unique
            }
            order.append(contentsOf: group)
        }
        domainNames = names
        self.domains = domains
        self.starts = starts
        self.order = order
        recordsKept = kept
    }

    /// The keys held (one per path).
    package var count: Int { order.count }

    package func domainIndex(_ row: Int) -> Int { Int(domains[row]) }
    package func domain(_ row: Int) -> String { domainNames[Int(domains[row])] }
    /// Row `row`'s path in its domain.
    package func pathSlice(_ row: Int) -> ArraySlice<UInt8> { files.pathSlice(row).dropFirst(Int(starts[row])) }
    package func key(_ row: Int) -> ComparedReport.PathKey {
        ComparedReport.PathKey(domain: domain(row), path: ContainerPath(bytes: Array(pathSlice(row))))
    }
    /// Row `row`'s other names (a hard-linked file's), as keys.
    package func linkKeys(_ row: Int) -> [ComparedReport.PathKey] {
        files.links(row).map { Self.split($0, primary: domainNames[0]) }
    }
    package func record(_ row: Int) -> ComparedReport.PathRecord {
        ComparedReport.PathRecord(
            size: files.size(row), backedUp: files.backedUp(row), zone: files.zone(row), owner: files.owner(row),
            kept: files.survivesUpdate(row), excluded: files.excluded(row))
    }
}
