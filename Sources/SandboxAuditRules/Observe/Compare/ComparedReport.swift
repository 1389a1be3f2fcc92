import Foundation
import SandboxAuditSystem
import SandboxAuditCore

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
            if let kept { if kept, let k = keptOnUpdate { keptOnUpdate = k.addingSaturated(size) } } else { keptOnUpdate = nil }
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
    package let paths: [PathKey: PathRecord]?
    /// True when at least one path entry carries an `owner` key (even null).
    package let namesOwners: Bool
    package let findings: [FindingRecord]
    /// A scan report's owner totals (its domains' `owners`, summed per owner; kept-on-update
    /// bytes not recorded); nil for a baseline (its owners are summed from its files) or a
    /// report without them.
    package var ownerTotals: [String: Figures]? = nil

    /// Bytes and files per owner, nil (no owner) for the rest: summed from a baseline's files
    /// when they name owners; from a scan report's owner totals, the rest being the totals less
    /// the owners'. Nil when the side names no owner.
    package var perOwner: [String?: Figures]? {
        if let paths {
            guard namesOwners else { return nil }
            var out: [String?: Figures] = [:]
            let recorded = paths.values.contains { $0.kept != nil }
            for r in paths.values { out[r.owner, default: Figures(keptOnUpdate: recorded ? 0 : nil)].count(r.size, backedUp: r.backedUp, kept: r.kept) }
            return out
        }
        guard let named = ownerTotals else { return nil }
        var out: [String?: Figures] = [:]
        var rest = Figures(backupFootprint: total.backupFootprint, keptOnUpdate: nil, files: total.files)
        for (name, f) in named {
            out[name] = f
            rest.backupFootprint -= f.backupFootprint
            rest.files -= f.files
        }
        if rest.backupFootprint > 0 || rest.files > 0 {
            out[nil] = Figures(backupFootprint: max(0, rest.backupFootprint), keptOnUpdate: nil, files: max(0, rest.files))
        }
        return out
    }

    /// Reads `location` (`what` names the side in errors: "BASE", "HEAD"); an `InputError`
    /// says what is wrong with it, in one line, naming the field when a value is not of its
    /// documented type (`JSONDocument`).
    package static func load(_ location: String, as what: String) throws -> ComparedReport {
        let shown = TerminalText.escaped(location)
        let notReport = "\(what) \(shown) is not a sandbox-audit scan report (scan --format json) or baseline (scan --write-baseline)"
        let reader = Reader(location: location, what: what)
        do {
            let data = try JSONDocument.read(location)
            switch try JSONDocument.decode(Document.self, from: data) {
            case .baseline(let b): return reader.baseline(b)
            case .scan(let r): return try reader.scan(r)
            }
        } catch JSONDocument.Refusal.unreadable(let why) {
            throw InputError("cannot read \(what) \(shown): \(why)")
        } catch JSONDocument.Refusal.notJSON(let why) {
            throw InputError("\(notReport): \(why)")
        } catch is ScanReportDocument.NotThisKind {
            throw InputError(notReport)
        } catch let e as BaselineDocument.UnsupportedVersion {
            throw reader.error("schemaVersion \(e.found) is not supported")
        }
    }

    /// Either kind of document, told by its `kind` (a baseline) or `tool.name` (a scan report).
    enum Document: Decodable {
        case baseline(BaselineDocument)
        case scan(ScanReportDocument)

        init(from decoder: any Decoder) throws {
            do { self = .baseline(try BaselineDocument(from: decoder)) } catch is BaselineDocument.NotThisKind {
                self = .scan(try ScanReportDocument(from: decoder))
            }
        }
    }

    /// The decoding of one file, with its name for the errors.
    package struct Reader {
        package let location: String
        package let what: String

        package func error(_ text: String) -> InputError { InputError("\(what) \(TerminalText.escaped(location)): \(text)") }

        package func scan(_ r: ScanReportDocument) throws -> ComparedReport {
            var domains: [String] = []
            var perDomain: [String: Figures] = [:]
            for (name, t) in r.domains {
                domains.append(name)
                perDomain[name] = Figures(backupFootprint: t.backupFootprint, keptOnUpdate: t.keptOnUpdate, files: t.files)
            }
            guard let primary = domains.first else { throw error("the report has no domain") }
            let total = Figures(backupFootprint: r.totals.backupFootprint, keptOnUpdate: r.totals.keptOnUpdate, files: r.totals.files)
            var perZone: [Zone: Figures] = [:]
            for (zone, t) in r.zones {
                perZone[zone] = Figures(backupFootprint: t.backupFootprint, keptOnUpdate: t.keptOnUpdate, files: t.files)
            }
            let findings = r.findings.map { f in
                FindingRecord(ruleId: f.ruleId, domain: f.domain ?? primary, path: f.path, severity: f.severity, message: f.message, owner: f.owner)
            }
            let owners = r.owners.map { o in o.mapValues { Figures(backupFootprint: $0.backedUpBytes, keptOnUpdate: nil, files: $0.files) } }
            return ComparedReport(kind: .scan, location: location, bundleIdentifier: r.bundleIdentifier, version: r.version,
                                  complete: r.complete, missed: r.missed,
                                  domains: domains, total: total, perDomain: perDomain, perZone: perZone,
                                  paths: nil, namesOwners: owners != nil, findings: findings, ownerTotals: owners)
        }

        /// A baseline's paths of the app's other containers are written `DOMAIN/PATH`; the
        /// others are the data container's, whose domain the baseline names by its bundle
        /// identifier (`AppDomain-ID`).
        package func split(_ p: ContainerPath, primary: String) -> PathKey {
            guard let first = p.leadingComponents(1).first, first.starts(with: Array("AppDomain".utf8)),
                  let domain = ByteText.utf8String(first) else { return PathKey(domain: primary, path: p) }
            let rest = p.bytes.dropFirst(first.count + 1)
            return PathKey(domain: domain, path: ContainerPath(bytes: Array(rest)))
        }

        package func baseline(_ b: BaselineDocument) -> ComparedReport {
            let primary = ContainerRole.app.domain(b.bundleIdentifier)
            var domains = [primary]
            // Kept-on-update bytes are known when the files record `survivesUpdate`.
            let empty = Figures(keptOnUpdate: b.files.contains { $0.survivesUpdate != nil } ? 0 : nil)
            var perDomain: [String: Figures] = [primary: empty]
            var perZone: [Zone: Figures] = [:]
            var paths: [PathKey: PathRecord] = [:]
            var namesOwners = false
            for f in b.files {
                if f.namesOwner { namesOwners = true }
                let key = split(f.path, primary: primary)
                paths[key] = PathRecord(size: f.size, backedUp: f.backedUp, zone: f.zone, owner: f.owner, kept: f.survivesUpdate, excluded: f.excluded)
                if perDomain[key.domain] == nil { domains.append(key.domain) }
                perDomain[key.domain, default: empty].count(f.size, backedUp: f.backedUp, kept: f.survivesUpdate)
                perZone[f.zone, default: empty].count(f.size, backedUp: f.backedUp, kept: f.survivesUpdate)
            }
            // The zones' recorded bytes, where a symlink counts 0 (the files list does not tell
            // symlinks from files, so the per-domain sums count a symlink's length).
            for z in b.zones where perZone[z.zone] != nil {
                perZone[z.zone]?.backupFootprint = z.backedUpSize
            }
            let findings = b.findings.map { f in
                let key = f.path.isRoot ? nil : split(f.path, primary: primary)
                return FindingRecord(ruleId: f.ruleId, domain: key?.domain ?? primary, path: key?.path ?? .root,
                                     severity: f.severity, message: f.message, owner: f.owner)
            }
            let kept = perDomain.values.reduce(empty.keptOnUpdate) { sum, d in d.keptOnUpdate.flatMap { k in sum.map { $0.addingSaturated(k) } } }
            let total = Figures(backupFootprint: b.backupFootprint, keptOnUpdate: kept, files: Int64(paths.count))
            return ComparedReport(kind: .baseline, location: location, bundleIdentifier: b.bundleIdentifier, version: b.version,
                                  complete: b.complete, missed: b.missed.map(\.line), domains: domains, total: total, perDomain: perDomain, perZone: perZone,
                                  paths: paths, namesOwners: namesOwners, findings: findings)
        }
    }
}
