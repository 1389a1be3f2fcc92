import Foundation
import SandboxAuditSystem
import SandboxAuditCore

/// One side of `compare`: a scan report (`scan --format json`, docs/json-format.md) or a
/// baseline (`scan --write-baseline`, docs/baseline-format.md), read into what both can say.
///
/// What each holds differs, and nothing is invented for what a side lacks: a scan report has
/// the totals per domain and zone (kept-on-update bytes included) and the findings in full,
/// but no per-path sizes; a baseline has every file's size, zone and backup state (so the
/// paths that grew, and the bytes per owner when its files name one) and the findings' rule
/// and path, but no kept-on-update bytes, severities or messages.
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

    /// The scan report versions read (docs/json-format.md).
    package static let scanReportVersions = [2]
    /// The largest file read, as for a baseline (a 200,000-file container's is 45 MB).
    package static let maximumSize = Baseline.maximumSize

    package let kind: Kind
    package let location: String
    package let bundleIdentifier: String?
    package let version: String?
    /// A scan report's `complete`; nil for a baseline, which records none.
    package let complete: Bool?
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

    /// Reads `location` (`what` names the side in errors: "BASE", "HEAD"); an `InputError`
    /// says what is wrong with it, in one line.
    package static func load(_ location: String, as what: String) throws -> ComparedReport {
        let bytes: [UInt8]
        do {
            bytes = try BoundedRead.file(Array(location.utf8), limit: maximumSize, followSymlink: true)
        } catch let failure as BoundedRead.Failure {
            throw InputError("cannot read \(what) \(location): \(failure)")
        }
        let notReport = InputError("\(what) \(location) is not a sandbox-audit scan report (scan --format json) or baseline (scan --write-baseline)")
        guard let root = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { throw notReport }
        let reader = Reader(location: location, what: what)
        if root["kind"] as? String == "sandbox-audit-baseline" { return try reader.baseline(root) }
        if (root["tool"] as? [String: Any])?["name"] as? String == "sandbox-audit", root["domains"] is [Any] {
            return try reader.scan(root)
        }
        throw notReport
    }

    /// The decoding of one file, with its name for the errors.
    package struct Reader {
        package let location: String
        package let what: String

        package func error(_ text: String) -> InputError { InputError("\(what) \(location): \(text)") }

        package func size(_ value: Any?, _ name: String) throws -> Int64 {
            guard let value else { return 0 }
            guard let n = (value as? NSNumber)?.int64Value else { throw error("\(name) is not a number") }
            guard n >= 0 else { throw error("\(name) is negative (\(n))") }
            return n
        }

        package func path(_ o: [String: Any]) throws -> ContainerPath? {
            if let b = o["pathBase64"] as? String {
                guard let d = Data(base64Encoded: b) else { throw error("a pathBase64 is not base64") }
                return ContainerPath(bytes: Array(d))
            }
            if o["path"] is NSNull { return nil }
            guard let p = o["path"] as? String else { throw error("an entry has no path") }
            return p == "." ? .root : ContainerPath(p)
        }

        package func version(_ root: [String: Any], readable: [Int]) throws {
            guard let v = root["schemaVersion"] as? Int, readable.contains(v) else {
                throw error("schemaVersion \(root["schemaVersion"] ?? "missing") is not supported (expected \(readable.map(String.init).joined(separator: " or ")))")
            }
        }

        package func scan(_ root: [String: Any]) throws -> ComparedReport {
            try version(root, readable: ComparedReport.scanReportVersions)
            var domains: [String] = []
            var perDomain: [String: Figures] = [:]
            for d in root["domains"] as? [[String: Any]] ?? [] {
                guard let name = d["domain"] as? String else { throw error("a domain has no name") }
                let t = d["totals"] as? [String: Any] ?? [:]
                domains.append(name)
                perDomain[name] = Figures(backupFootprint: try size(t["backupFootprint"], "backupFootprint of \(name)"),
                                          keptOnUpdate: try size(t["keptOnUpdate"], "keptOnUpdate of \(name)"),
                                          files: try size(t["files"], "files of \(name)"))
            }
            guard let primary = domains.first else { throw error("the report has no domain") }
            let t = root["totals"] as? [String: Any] ?? [:]
            let total = Figures(backupFootprint: try size(t["backupFootprint"], "backupFootprint"),
                                keptOnUpdate: try size(t["keptOnUpdate"], "keptOnUpdate"), files: try size(t["files"], "files"))
            var perZone: [Zone: Figures] = [:]
            for z in root["zones"] as? [[String: Any]] ?? [] {
                guard let zone = (z["zone"] as? String).flatMap(Zone.init(rawValue:)) else { continue }
                perZone[zone] = Figures(backupFootprint: try size(z["backedUpSize"], "backedUpSize of \(zone.rawValue)"),
                                        keptOnUpdate: try size(z["survivesUpdateSize"], "survivesUpdateSize of \(zone.rawValue)"),
                                        files: try size(z["files"], "files of \(zone.rawValue)"))
            }
            let findings: [FindingRecord] = try (root["findings"] as? [[String: Any]] ?? []).map { f in
                guard let id = f["ruleId"] as? String else { throw error("a finding has no ruleId") }
                return FindingRecord(ruleId: id, domain: f["domain"] as? String ?? primary, path: try path(f),
                                     severity: f["severity"] as? String, message: f["message"] as? String, owner: f["owner"] as? String)
            }
            let container = root["container"] as? [String: Any]
            return ComparedReport(kind: .scan, location: location, bundleIdentifier: container?["bundleIdentifier"] as? String,
                                  version: container?["version"] as? String, complete: root["complete"] as? Bool,
                                  domains: domains, total: total, perDomain: perDomain, perZone: perZone,
                                  paths: nil, namesOwners: false, findings: findings)
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

        package func baseline(_ root: [String: Any]) throws -> ComparedReport {
            try version(root, readable: Baseline.readableVersions.map(Int.init))
            let container = root["container"] as? [String: Any]
            let bundle = container?["bundleIdentifier"] as? String
            let primary = ContainerRole.app.domain(bundle)
            var domains = [primary]
            let files = root["files"] as? [[String: Any]] ?? []
            // Kept-on-update bytes are known when the files record `survivesUpdate`.
            let empty = Figures(keptOnUpdate: files.contains { $0["survivesUpdate"] is Bool } ? 0 : nil)
            var perDomain: [String: Figures] = [primary: empty]
            var perZone: [Zone: Figures] = [:]
            var paths: [PathKey: PathRecord] = [:]
            var namesOwners = false
            for f in files {
                guard let p = try path(f), let zone = (f["zone"] as? String).flatMap(Zone.init(rawValue:)) else {
                    throw error("a file entry lacks a path or zone")
                }
                let size = try self.size(f["size"], "a file's size")
                let backedUp = f["backedUp"] as? Bool ?? false
                if f["owner"] != nil { namesOwners = true }
                let key = split(p, primary: primary)
                let kept = f["survivesUpdate"] as? Bool
                paths[key] = PathRecord(size: size, backedUp: backedUp, zone: zone, owner: f["owner"] as? String, kept: kept)
                if perDomain[key.domain] == nil { domains.append(key.domain) }
                perDomain[key.domain, default: empty].count(size, backedUp: backedUp, kept: kept)
                perZone[zone, default: empty].count(size, backedUp: backedUp, kept: kept)
            }
            // The zones' recorded bytes, where a symlink counts 0 (the files list does not tell
            // symlinks from files, so the per-domain sums count a symlink's length).
            for z in root["zones"] as? [[String: Any]] ?? [] {
                guard let zone = (z["zone"] as? String).flatMap(Zone.init(rawValue:)), perZone[zone] != nil else { continue }
                perZone[zone]?.backupFootprint = try size(z["backedUpSize"], "backedUpSize of \(zone.rawValue)")
            }
            let findings: [FindingRecord] = try (root["findings"] as? [[String: Any]] ?? []).map { f in
                guard let id = f["ruleId"] as? String else { throw error("a finding has no ruleId") }
                let key = try path(f).map { split($0, primary: primary) }
                return FindingRecord(ruleId: id, domain: key?.domain ?? primary, path: key?.path, severity: nil, message: nil, owner: f["owner"] as? String)
            }
            let kept = perDomain.values.reduce(empty.keptOnUpdate) { sum, d in d.keptOnUpdate.flatMap { k in sum.map { $0.addingSaturated(k) } } }
            let total = Figures(backupFootprint: try size(root["backupFootprint"], "backupFootprint"), keptOnUpdate: kept,
                                files: Int64(paths.count))
            return ComparedReport(kind: .baseline, location: location, bundleIdentifier: bundle, version: container?["version"] as? String,
                                  complete: nil, domains: domains, total: total, perDomain: perDomain, perZone: perZone,
                                  paths: paths, namesOwners: namesOwners, findings: findings)
        }
    }
}
