import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// What a release leaves behind to compare the next one with: its findings and, per file, the
/// size, modification time and backup state. Paths are relative to the data root and the file
/// is sorted, so it is the same on every machine and checkout. Format: docs/baseline-format.md.
public struct Baseline: Sendable {
    package static let schemaVersion: Int64 = 3
    /// Versions `load` reads: version 1 files have no `inode` and `excluded` keys; version 2
    /// findings have no `severity` and `message`, and no `complete` or `missed`.
    package static let readableVersions: [Int64] = [1, 2, 3]

    package struct File: Sendable, Equatable {
        var size: Int64
        var mtime: Int64
        var zone: Zone
        var backedUp: Bool
        /// The file's inode number when recorded (nil in a version 1 baseline).
        var inode: UInt64?
        /// The file carried or inherited the exclude attribute (nil in a version 1 baseline).
        var excluded: Bool?
        /// An app update keeps the file (nil in a baseline written before it was recorded).
        var survivesUpdate: Bool? = nil
        /// Its owner's name when the baseline was written (docs/owners.md); nil for none.
        var owner: String? = nil

        package init(
            size: Int64, mtime: Int64, zone: Zone, backedUp: Bool, inode: UInt64?, excluded: Bool?,
            survivesUpdate: Bool? = nil, owner: String? = nil
        ) {
            (self.size, self.mtime, self.zone, self.backedUp) = (size, mtime, zone, backedUp)
            (self.inode, self.excluded, self.survivesUpdate, self.owner) = (inode, excluded, survivesUpdate, owner)
        }
    }

    struct FindingKey: Hashable, Sendable {
        let ruleId: String
        /// Qualified: see `Baseline.qualified`.
        let path: ContainerPath

        init(ruleId: String, path: ContainerPath) {
            self.ruleId = ruleId
            self.path = path
        }

    }

    /// Paths of the app's data container (the first scanned) stay as they are; paths of its
    /// other containers (extensions, App Groups) are written `DOMAIN/PATH`, so one baseline
    /// holds the whole app.
    package static func qualified(_ path: ContainerPath, domain: String?) -> ContainerPath {
        guard let domain else { return path }
        return path.isRoot ? ContainerPath(domain) : ContainerPath(domain).appending(path.bytes)
    }

    var bundleIdentifier: String?
    var version: String?
    /// The backup domains the scan audited, the app's data container first (nil when read
    /// from a baseline that does not record them): `compare` and `trend` tell a domain one
    /// side did not audit from one that was empty.
    var domains: [String]?
    var backupFootprint: Int64
    var zones: [Zone: ZoneTotals]
    var findings: Set<FindingKey>
    /// Each finding as recorded, sorted by path, rule and message; `severity` and `message` nil
    /// when read from a baseline before version 3.
    var findingRecords: [FindingRecord]
    /// Every file, sorted by path, no path twice.
    var files: BaselineTable
    /// Whether the scan read everything (nil when read from a baseline before version 3), and
    /// what it missed.
    var complete: Bool?
    var missed: [Missed]

    /// Something the scan could not read: its path (qualified as the files' are), what was not
    /// done and why.
    package struct Missed: Sendable, Equatable {
        let path: ContainerPath
        let what: String
        let why: String
        package var line: String { "\(path.display): \(what) (\(why))" }

        package init(path: ContainerPath, what: String, why: String) {
            (self.path, self.what, self.why) = (path, what, why)
        }
    }

    struct FindingRecord: Sendable, Equatable {
        let key: FindingKey
        let severity: String?
        let message: String?
    }

    /// Records an audit (its findings before any baseline suppression).
    public var json: JSON {
        func path(_ p: ContainerPath) -> [(String, JSON)] {
            var f: [(String, JSON)] = [("path", .string(p.display))]
            if let b = p.base64 { f.append(("pathBase64", .string(b))) }
            return f
        }
        let zoneList: [JSON] = Zone.allCases.compactMap { z in
            guard let t = zones[z] else { return nil }
            return .object([
                ("zone", .string(z.rawValue)), ("size", .int(t.size)), ("backedUpSize", .int(t.backedUpSize)),
            ])
        }
        return .object([
            ("schemaVersion", .int(Baseline.schemaVersion)),
            ("kind", .string("sandbox-audit-baseline")),
            (
                "container",
                .object([("bundleIdentifier", .optional(bundleIdentifier)), ("version", .optional(version))])
            ),
            ("domains", domains.map { .array($0.map { .string($0) }) } ?? .null),
            ("backupFootprint", .int(backupFootprint)),
            ("zones", .array(zoneList)),
            ("complete", .optional(complete)),
            (
                "missed",
                .array(
                    missed.map { m in .object(path(m.path) + [("what", .string(m.what)), ("why", .string(m.why))]) })
            ),
            (
                "findings",
                .array(
                    findingRecords.map { f in
                        .object(
                            [("ruleId", .string(f.key.ruleId))] + path(f.key.path) + [
                                ("severity", .optional(f.severity)), ("message", .optional(f.message)),
                            ])
                    })
            ),
            (
                "files",
                .array(
                    files.indices.map { i -> JSON in
                        let p = files.path(i)
                        let f = files.file(i)
                        var fields: [(String, JSON)] =
                            path(p) + [
                                ("size", .int(f.size)), ("mtime", .int(f.mtime)), ("zone", .string(f.zone.rawValue)),
                                ("backedUp", .bool(f.backedUp)),
                            ]
                        if let inode = f.inode { fields.append(("inode", .int(Int64(bitPattern: inode)))) }
                        if let excluded = f.excluded { fields.append(("excluded", .bool(excluded))) }
                        if let kept = f.survivesUpdate { fields.append(("survivesUpdate", .bool(kept))) }
                        fields.append(("owner", .optional(f.owner)))
                        let links = files.links(i)
                        if !links.isEmpty { fields.append(("links", .array(links.map { .object(path($0)) }))) }
                        return .object(fields)
                    })
            ),
        ])
    }

    /// A baseline as read back (`Baseline.load`, in the Measure stage): the values a file holds.
    package init(
        bundleIdentifier: String?, version: String?, domains: [String]?, backupFootprint: Int64,
        zones: [(zone: Zone, size: Int64, backedUpSize: Int64)],
        findings: [(ruleId: String, path: ContainerPath, severity: String?, message: String?)], files: BaselineTable,
        complete: Bool?, missed: [Missed]
    ) {
        self.init(empty: ())
        self.bundleIdentifier = bundleIdentifier
        self.version = version
        self.domains = domains
        self.backupFootprint = backupFootprint
        for z in zones {
            var t = ZoneTotals()
            t.size = z.size
            t.backedUpSize = z.backedUpSize
            self.zones[z.zone] = t
        }
        for f in findings {
            let key = FindingKey(ruleId: f.ruleId, path: f.path)
            self.findings.insert(key)
            findingRecords.append(FindingRecord(key: key, severity: f.severity, message: f.message))
        }
        // Nothing is inferred for a key a file lacks (version 1): the rules that need it stay silent.
        self.files = files
        self.complete = complete
        self.missed = missed
    }

    private init(empty: Void) {
        findingRecords = []
        missed = []
        backupFootprint = 0
        zones = [:]
        findings = []
        files = BaselineTable()
    }
}

/// The baseline as the rules see it: the last scan's record of a file, found by the path and
/// domain of a container of this scan.
struct BaselineFiles: Sendable {
    let baseline: Baseline
    /// The domain of this scan's first container: its paths are recorded unqualified.
    let primaryDomain: String

    init(_ baseline: Baseline, primaryDomain: String) {
        self.baseline = baseline
        self.primaryDomain = primaryDomain
    }

    func file(_ path: ContainerPath, domain: String) -> Baseline.File? {
        baseline.files[Baseline.qualified(path, domain: domain == primaryDomain ? nil : domain)]
    }

    /// `file(_:domain:)` for the paths of one container asked in path order, as a rule's pass
    /// over the entries asks them (`BaselineTable.Lookup`).
    struct Lookup {
        private var rows: BaselineTable.Lookup
        private let files: BaselineTable
        private let domain: String?

        fileprivate init(_ files: BaselineTable, domain: String?) {
            self.files = files
            self.domain = domain
            rows = files.lookup()
        }

        mutating func file(_ path: ContainerPath) -> Baseline.File? {
            rows.row(Baseline.qualified(path, domain: domain)).map(files.file)
        }
    }

    /// A lookup of the files of the container of `domain`.
    func lookup(domain: String) -> Lookup { Lookup(baseline.files, domain: domain == primaryDomain ? nil : domain) }
}

/// One release against the last.
package struct BaselineComparison: Sendable {
    package struct Change: Sendable {
        package let path: ContainerPath
        package let before: Int64?
        package let after: Int64?
        /// Whether backup carries it now (a file that grew in Caches grew, but not the footprint).
        package var backedUp = true
        package var delta: Int64 { (after ?? 0) - (before ?? 0) }
    }

    package let footprintBefore: Int64
    package let footprintAfter: Int64
    /// Per zone: backed-up bytes before and after.
    package let zones: [(zone: Zone, before: Int64, after: Int64)]
    package let added: [Change]
    package let removed: [Change]
    /// Files present in both whose size grew, largest growth first.
    package let grew: [Change]
    /// Backed-up bytes new or changed (size or modification time) since the baseline, or newly
    /// backed up: what the next incremental backup uploads.
    package let churn: Int64
    package let churnContributors: [Change]

    package var footprintDelta: Int64 { footprintAfter - footprintBefore }

    /// Compares the app's containers (the first is its data container) with the baseline.
    init(baseline: Baseline, inventories: [Inventory]) {
        footprintBefore = baseline.backupFootprint
        footprintAfter = inventories.byteSum(\.backupFootprint)
        zones = Zone.allCases.filter { $0 != .system }.map { z in
            (z, baseline.zones[z]?.backedUpSize ?? 0, inventories.byteSum { $0.zoneTotals[z]?.backedUpSize ?? 0 })
        }
        var added: [Change] = []
        var grew: [Change] = []
        var churned: [Change] = []
        var seen = [Bool](repeating: false, count: baseline.files.count)
        var churn: Int64 = 0
        for (index, inventory) in inventories.enumerated() {
            // The entries come in path order: each row looked for from the last one found.
            var rows = baseline.files.lookup()
            let entries = inventory.entries
            let domain = index == 0 ? nil : inventory.domain
            // A hard-linked file is the same file under any name either side recorded for it.
            let otherNames = inventory.hardLinkNames()
            for i in entries.indices where entries.countsAsContent(i) {
                let e = entries[i]
                let path = Baseline.qualified(e.path, domain: domain)
                let size = e.entry.size
                var row = rows.row(path)
                if row == nil, !otherNames.isEmpty || baseline.files.hasLinks {
                    row = ([path] + (otherNames[i] ?? []).map { Baseline.qualified($0, domain: domain) })
                        .lazy.compactMap(baseline.files.row(named:)).first { !seen[$0] }
                }
                if let row { seen[row] = true }
                let old = row.map(baseline.files.file)
                if let old {
                    if size > old.size {
                        grew.append(Change(path: path, before: old.size, after: size, backedUp: e.backedUp == true))
                    }
                } else {
                    added.append(Change(path: path, before: nil, after: size, backedUp: e.backedUp == true))
                }
                guard e.backedUp == true else { continue }
                if old == nil || old!.size != size || old!.mtime != e.entry.modifiedSeconds || !old!.backedUp {
                    churn +|= e.countedSize
                    churned.append(Change(path: path, before: old?.size, after: size))
                }
            }
        }
        let removed = baseline.files.indices.filter { !seen[$0] }.map {
            Change(path: baseline.files.path($0), before: baseline.files.size($0), after: nil)
        }
        func largest(_ list: [Change], by key: (Change) -> Int64) -> [Change] {
            list.sorted { key($0) != key($1) ? key($0) > key($1) : $0.path < $1.path }
        }
        self.added = largest(added) { $0.after ?? 0 }
        self.removed = largest(removed) { $0.before ?? 0 }
        self.grew = largest(grew) { $0.delta }
        self.churn = churn
        self.churnContributors = Array(largest(churned) { $0.after ?? 0 }.prefix(10))
    }
}
