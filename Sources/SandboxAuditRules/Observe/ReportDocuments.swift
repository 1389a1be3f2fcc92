import Foundation
import SandboxAuditSystem
import SandboxAuditCore

/// The baseline file (docs/baseline-format.md) and the scan report (docs/json-format.md) as
/// `compare` and `--baseline` read them back: the documented fields in their documented types,
/// every number an exact integer (`JSONDocument`). A field of another type, a size that is not
/// an integer in 0…2^63−1, is refused naming the field.
package struct BaselineDocument: Decodable, Sendable {
    /// The document is not a baseline (its `kind`): the caller says what it expected.
    package struct NotThisKind: Error {}
    /// Its `schemaVersion` is not one this version reads.
    package struct UnsupportedVersion: Error { package let found: String }

    package struct FindingEntry: Sendable {
        package var ruleId: String
        /// Qualified as written (`DOMAIN/PATH` outside the data container); `.root` for a
        /// finding about no entry.
        package var path: ContainerPath
        /// Recorded from version 3 on; nil before.
        package var severity: String?
        package var message: String?
        package var owner: String?
    }

    package struct FileEntry: Sendable {
        package var path: ContainerPath
        package var size: Int64
        package var mtime: Int64
        package var zone: Zone
        package var backedUp: Bool
        package var inode: UInt64?
        package var excluded: Bool?
        package var survivesUpdate: Bool?
        package var owner: String?
        /// The entry has an `owner` key, even null.
        package var namesOwner: Bool
    }

    package var schemaVersion: Int64
    package var bundleIdentifier: String?
    package var version: String?
    package var backupFootprint: Int64
    /// Per zone known to this version: all bytes and backed-up bytes.
    package var zones: [(zone: Zone, size: Int64, backedUpSize: Int64)]
    package var findings: [FindingEntry]
    package var files: [FileEntry]
    /// Whether the scan that wrote it read everything (version 3 on; nil before), and what
    /// it missed.
    package var complete: Bool?
    package var missed: [Baseline.Missed]

    enum Keys: String, CodingKey {
        case kind, schemaVersion, container, bundleIdentifier, version, backupFootprint, zones, zone, size, backedUpSize
        case findings, ruleId, path, pathBase64, severity, message, owner, files, mtime, backedUp, inode, excluded, survivesUpdate
        case complete, missed, domain, what, why
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        guard (try? c.decodeIfPresent(String.self, forKey: .kind)) == "sandbox-audit-baseline" else { throw NotThisKind() }
        schemaVersion = try c.version(readable: Baseline.readableVersions)
        let container = try c.decodeIfPresent(Keyed.self, forKey: .container)
        bundleIdentifier = try container?.c.decodeIfPresent(String.self, forKey: .bundleIdentifier)
        version = try container?.c.decodeIfPresent(String.self, forKey: .version)
        backupFootprint = try c.byteCount(.backupFootprint)
        zones = try (c.decodeIfPresent([Keyed].self, forKey: .zones) ?? []).compactMap { z in
            guard let zone = Zone(rawValue: try z.c.decode(String.self, forKey: .zone)) else { return nil }
            return (zone, try z.c.byteCount(.size), try z.c.byteCount(.backedUpSize))
        }
        findings = try (c.decodeIfPresent([Keyed].self, forKey: .findings) ?? []).map { f in
            FindingEntry(ruleId: try f.c.decode(String.self, forKey: .ruleId), path: try f.c.containerPath(.path, .pathBase64) ?? .root,
                         severity: try f.c.decodeIfPresent(String.self, forKey: .severity),
                         message: try f.c.decodeIfPresent(String.self, forKey: .message),
                         owner: try f.c.decodeIfPresent(String.self, forKey: .owner))
        }
        files = try (c.decodeIfPresent([Keyed].self, forKey: .files) ?? []).map { f in
            let c = f.c
            guard let path = try c.containerPath(.path, .pathBase64) else {
                throw DecodingError.valueNotFound(String.self, .init(codingPath: c.codingPath + [Keys.path], debugDescription: ""))
            }
            let zoneName = try c.decode(String.self, forKey: .zone)
            guard let zone = Zone(rawValue: zoneName) else {
                throw DecodingError.dataCorruptedError(forKey: .zone, in: c, debugDescription: "is not a zone (\(TerminalText.escaped(zoneName)))")
            }
            guard c.contains(.size) else { throw DecodingError.keyNotFound(Keys.size, .init(codingPath: c.codingPath, debugDescription: "")) }
            return FileEntry(path: path, size: try c.byteCount(.size),
                             mtime: try c.decodeIfPresent(ExactInteger.self, forKey: .mtime)?.value ?? 0, zone: zone,
                             backedUp: try c.decodeIfPresent(Bool.self, forKey: .backedUp) ?? false,
                             inode: try c.decodeIfPresent(ExactInteger.self, forKey: .inode).map { UInt64(bitPattern: $0.value) },
                             excluded: try c.decodeIfPresent(Bool.self, forKey: .excluded),
                             survivesUpdate: try c.decodeIfPresent(Bool.self, forKey: .survivesUpdate),
                             owner: try c.decodeIfPresent(String.self, forKey: .owner), namesOwner: c.contains(.owner))
        }
        complete = try c.decodeIfPresent(Bool.self, forKey: .complete)
        missed = try (c.decodeIfPresent([Keyed].self, forKey: .missed) ?? []).map { m in
            Baseline.Missed(path: try m.c.containerPath(.path, .pathBase64) ?? .root, what: try m.c.decodeIfPresent(String.self, forKey: .what) ?? "not read",
                            why: try m.c.decodeIfPresent(String.self, forKey: .why) ?? "no reason given")
        }
    }

    /// An object of the document, decoded field by field by its reader.
    struct Keyed: Decodable {
        let c: KeyedDecodingContainer<Keys>
        init(from decoder: any Decoder) throws { c = try decoder.container(keyedBy: Keys.self) }

    }
}

/// A scan report (`scan --format json`), as far as `compare` reads it.
package struct ScanReportDocument: Decodable, Sendable {
    package struct NotThisKind: Error {}

    package struct Totals: Sendable {
        package var backupFootprint: Int64, keptOnUpdate: Int64, files: Int64
    }

    package struct FindingEntry: Sendable {
        package var ruleId: String
        package var domain: String?
        package var path: ContainerPath?
        package var severity: String?
        package var message: String?
        package var owner: String?
    }

    package static let readableVersions: [Int64] = [2]

    package var bundleIdentifier: String?
    package var version: String?
    package var complete: Bool?
    package var missed: [String]
    package var domains: [(domain: String, totals: Totals)]
    package var totals: Totals
    package var zones: [(zone: Zone, totals: Totals)]
    package var findings: [FindingEntry]
    /// Each owner's files and backed-up bytes, summed over the domains' `owners` (`compare`'s
    /// owner table); nil when no domain has an `owners` key (a report written before them).
    package var owners: [String: (files: Int64, backedUpBytes: Int64)]?

    enum Keys: String, CodingKey {
        case tool, name, domains, domain, totals, backupFootprint, keptOnUpdate, files, zones, zone, backedUpSize, survivesUpdateSize
        case findings, ruleId, path, pathBase64, severity, message, owner, container, bundleIdentifier, version, complete, missed
        case schemaVersion, what, why, owners, backedUpBytes
    }

    struct Keyed: Decodable {
        let c: KeyedDecodingContainer<Keys>
        init(from decoder: any Decoder) throws { c = try decoder.container(keyedBy: Keys.self) }

        var totals: Totals {
            get throws { Totals(backupFootprint: try c.byteCount(.backupFootprint), keptOnUpdate: try c.byteCount(.keptOnUpdate), files: try c.byteCount(.files)) }
        }
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let tool = try? c.decodeIfPresent(Keyed.self, forKey: .tool)
        guard (try? tool?.c.decodeIfPresent(String.self, forKey: .name)) == "sandbox-audit", c.contains(.domains) else { throw NotThisKind() }
        _ = try c.version(readable: Self.readableVersions)
        let container = try c.decodeIfPresent(Keyed.self, forKey: .container)
        bundleIdentifier = try container?.c.decodeIfPresent(String.self, forKey: .bundleIdentifier)
        version = try container?.c.decodeIfPresent(String.self, forKey: .version)
        complete = try c.decodeIfPresent(Bool.self, forKey: .complete)
        let domainObjects = try c.decode([Keyed].self, forKey: .domains)
        domains = try domainObjects.map { d in
            (try d.c.decode(String.self, forKey: .domain), try d.c.decodeIfPresent(Keyed.self, forKey: .totals)?.totals ?? Totals(backupFootprint: 0, keptOnUpdate: 0, files: 0))
        }
        owners = nil
        for d in domainObjects where d.c.contains(.owners) {
            var sums = owners ?? [:]
            for o in try d.c.decodeIfPresent([Keyed].self, forKey: .owners) ?? [] {
                let name = try o.c.decode(String.self, forKey: .owner)
                let files = try o.c.byteCount(.files), bytes = try o.c.byteCount(.backedUpBytes)
                let had = sums[name] ?? (0, 0)
                sums[name] = (had.files.addingSaturated(files), had.backedUpBytes.addingSaturated(bytes))
            }
            owners = sums
        }
        // What the scan missed, as a baseline records it: `DOMAIN/PATH` outside the first container.
        let primary = domains.first?.domain
        missed = try (c.decodeIfPresent([Keyed].self, forKey: .missed) ?? []).map { m in
            let path = try m.c.containerPath(.path, .pathBase64) ?? .root
            let domain = try m.c.decodeIfPresent(String.self, forKey: .domain)
            return Baseline.Missed(path: Baseline.qualified(path, domain: domain == primary ? nil : domain),
                                   what: try m.c.decodeIfPresent(String.self, forKey: .what) ?? "not read",
                                   why: try m.c.decodeIfPresent(String.self, forKey: .why) ?? "no reason given").line
        }
        totals = try c.decodeIfPresent(Keyed.self, forKey: .totals)?.totals ?? Totals(backupFootprint: 0, keptOnUpdate: 0, files: 0)
        zones = try (c.decodeIfPresent([Keyed].self, forKey: .zones) ?? []).compactMap { z in
            guard let zone = Zone(rawValue: try z.c.decode(String.self, forKey: .zone)) else { return nil }
            return (zone, Totals(backupFootprint: try z.c.byteCount(.backedUpSize), keptOnUpdate: try z.c.byteCount(.survivesUpdateSize),
                                 files: try z.c.byteCount(.files)))
        }
        findings = try (c.decodeIfPresent([Keyed].self, forKey: .findings) ?? []).map { f in
            FindingEntry(ruleId: try f.c.decode(String.self, forKey: .ruleId), domain: try f.c.decodeIfPresent(String.self, forKey: .domain),
                         path: try f.c.containerPath(.path, .pathBase64), severity: try f.c.decodeIfPresent(String.self, forKey: .severity),
                         message: try f.c.decodeIfPresent(String.self, forKey: .message), owner: try f.c.decodeIfPresent(String.self, forKey: .owner))
        }
    }
}

extension KeyedDecodingContainer {
    /// `schemaVersion`, refused (`UnsupportedVersion`) unless one of `readable`.
    func version(readable: [Int64]) throws -> Int64 {
        guard let key = Key(stringValue: "schemaVersion") else { return 0 }
        let v = try? decodeIfPresent(ExactInteger.self, forKey: key)?.value
        guard let v, readable.contains(v) else {
            let found = (try? decodeIfPresent(Decimal.self, forKey: key)).flatMap { $0?.description } ?? (contains(key) ? "(not a number)" : "missing")
            throw BaselineDocument.UnsupportedVersion(found: String(found.prefix(40)))
        }
        return v
    }

    /// The entry's path: `pathBase64`'s bytes when present, else `path` (`.` the root); nil when
    /// `path` is null (a finding about no entry).
    func containerPath(_ pathKey: Key, _ base64Key: Key) throws -> ContainerPath? {
        if let b = try decodeIfPresent(String.self, forKey: base64Key) {
            guard let d = Data(base64Encoded: b) else { throw DecodingError.dataCorruptedError(forKey: base64Key, in: self, debugDescription: "is not base64") }
            return ContainerPath(bytes: Array(d))
        }
        guard contains(pathKey) else { throw DecodingError.keyNotFound(pathKey, .init(codingPath: codingPath, debugDescription: "")) }
        if try decodeNil(forKey: pathKey) { return nil }
        let p = try decode(String.self, forKey: pathKey)
        return p == "." ? .root : ContainerPath(p)
    }
}
