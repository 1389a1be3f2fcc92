import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// The baseline file (docs/baseline-format.md) or the scan report (docs/json-format.md) as
/// `compare` and `--baseline` read them back, in one pass of `JSONReader`: the documented fields in
/// their documented types, every number an exact integer, a baseline's files straight into the
/// columns of a `BaselineTable` (no object per file). A field of another type, a size that is not
/// an integer in 0…2^63−1, a path held twice, is refused naming the field.
package enum ReportDocument: Sendable {
    case baseline(BaselineDocument)
    case scan(ScanReportDocument)

    package enum Accepting: Sendable { case baseline, either }

    private enum Which { case baseline, scan }

    /// Reads `bytes` (a whole file, from `JSONDocument.read`). Which document it is, is told by its
    /// `kind` (a baseline) or `tool.name` (a scan report) with its `schemaVersion`; the writers put
    /// those first, so the rest is read as it comes. Keys before them are gone past (their text
    /// checked) and read once the kind is known. Throws `JSONReader.Failure`,
    /// `BaselineDocument.NotThisKind`, `ScanReportDocument.NotThisKind` (neither, when scan
    /// reports are accepted) or `BaselineDocument.UnsupportedVersion`.
    package static func read(_ bytes: [UInt8], accepting: Accepting) throws -> ReportDocument {
        var r = JSONReader(bytes)
        var kind: String?
        var toolName: String?
        var version: (value: Int64?, found: String)?
        var sawDomains = false
        var which: Which?
        var deferred: [(key: String, offset: Int)] = []
        var b = BaselineDocument()
        var s = ScanReportDocument()
        func decide() -> Which? {
            guard let v = version?.value else { return nil }
            if kind == "sandbox-audit-baseline" { return Baseline.readableVersions.contains(v) ? .baseline : nil }
            if accepting == .either, toolName == "sandbox-audit" {
                return ScanReportDocument.readableVersions.contains(v) ? .scan : nil
            }
            return nil
        }
        func handle(_ which: Which, _ r: inout JSONReader, _ key: String) throws {
            switch which {
            case .baseline: try b.read(&r, key)
            case .scan:
                if key == "domains" { sawDomains = true }
                try s.read(&r, key)
            }
        }
        try r.object { r, key in
            switch key {
            case "kind":
                kind = try r.kind() == .string ? try r.string() : nil
                if kind == nil { try r.skip() }
            case "schemaVersion":
                if try r.kind() == .number {
                    let numberStart = r.offset
                    var v: Int64?
                    // Out of range: past the number, said below. Not a number at all: not JSON.
                    do { v = try r.integer() } catch let f as JSONReader.Failure where !f.syntax { v = nil }
                    version = (v, r.text(from: numberStart))
                } else {
                    try r.skip()
                    version = (nil, "(not a number)")
                }
            case "tool":
                if try r.kind() == .object {
                    try r.object { r, key in
                        if key == "name", try r.kind() == .string { toolName = try r.string() } else { try r.skip() }
                    }
                } else {
                    try r.skip()
                }
            default:
                if which == nil { which = decide() }
                if let which {
                    try handle(which, &r, key)
                } else {
                    if key == "domains" { sawDomains = true }
                    deferred.append((key, r.offset))
                    try r.skip()
                }
            }
        }
        try r.end()
        if which == nil {
            if kind == "sandbox-audit-baseline" {
                guard let v = version?.value, Baseline.readableVersions.contains(v) else {
                    throw BaselineDocument.UnsupportedVersion(found: version?.found ?? "missing")
                }
                which = .baseline
            } else if accepting == .either, toolName == "sandbox-audit", sawDomains {
                guard let v = version?.value, ScanReportDocument.readableVersions.contains(v) else {
                    throw BaselineDocument.UnsupportedVersion(found: version?.found ?? "missing")
                }
                which = .scan
            } else if accepting == .baseline {
                throw BaselineDocument.NotThisKind()
            } else {
                throw ScanReportDocument.NotThisKind()
            }
        }
        guard let which else { throw ScanReportDocument.NotThisKind() }
        for (key, offset) in deferred {
            try r.reading(at: offset, key: key) { r in try handle(which, &r, key) }
        }
        switch which {
        case .baseline:
            b.schemaVersion = version?.value ?? 0
            try b.finish(&r)
            return .baseline(b)
        case .scan:
            guard sawDomains else { throw ScanReportDocument.NotThisKind() }
            try s.finish(&r)
            return .scan(s)
        }
    }
}

/// A baseline as `compare` and `--baseline` read it (`ReportDocument.read`).
package struct BaselineDocument: Sendable {
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

    package var schemaVersion: Int64 = 0
    package var bundleIdentifier: String?
    package var version: String?
    package var backupFootprint: Int64 = 0
    /// Per zone known to this version: all bytes and backed-up bytes.
    package var zones: [(zone: Zone, size: Int64, backedUpSize: Int64)] = []
    package var findings: [FindingEntry] = []
    /// Every file, sorted by path (`finish`).
    package var files = BaselineTable()
    /// Whether the scan that wrote it read everything (version 3 on; nil before), and what
    /// it missed.
    package var complete: Bool?
    package var missed: [Baseline.Missed] = []
    /// The domains the scan audited (recorded since this key was added; nil before).
    package var domains: [String]?

    mutating func read(_ r: inout JSONReader, _ key: String) throws {
        switch key {
        case "container": (bundleIdentifier, version) = try r.containerIdentity()
        case "domains":
            guard try !r.null() else { return }
            var list: [String] = []
            try r.array { r, _ in list.append(try r.string()) }
            domains = list
        case "backupFootprint": backupFootprint = try r.byteCount() ?? 0
        case "zones":
            guard try !r.null() else { return }
            try r.array { r, _ in
                var zone: String?
                var size: Int64 = 0
                var backedUp: Int64 = 0
                try r.object { r, key in
                    switch key {
                    case "zone": zone = try r.string()
                    case "size": size = try r.byteCount() ?? 0
                    case "backedUpSize": backedUp = try r.byteCount() ?? 0
                    default: try r.skip()
                    }
                }
                guard let zone else { throw r.failure(key: "zone", "is missing") }
                if let z = Zone(rawValue: zone) { zones.append((z, size, backedUp)) }
            }
        case "findings":
            guard try !r.null() else { return }
            try r.array { r, _ in
                let f = try r.finding(readingDomain: false)
                findings.append(
                    FindingEntry(
                        ruleId: f.ruleId, path: f.path ?? .root, severity: f.severity, message: f.message,
                        owner: f.owner))
            }
        case "files":
            guard try !r.null() else { return }
            var path = PathFields()
            try r.array { r, _ in
                path.reset()
                var zone: JSONKeys.Match?
                var size: Int64?
                var mtime: Int64 = 0
                var backedUp = false
                var inode: UInt64?
                var excluded: Bool?
                var kept: Bool?
                var owner: String?
                var namesOwner = false
                var links: [ContainerPath] = []
                // Keys and zones matched on their bytes: a 200,000-file baseline holds two
                // million keys, and no `String` is made for them.
                try r.object(Self.fileKeys) { r, key in
                    switch key.flatMap(FileKey.init(rawValue:)) {
                    case .size?: size = try r.byteCount()
                    case .mtime?: mtime = try r.optional { try $0.integer() } ?? 0
                    case .zone?: zone = try r.string(oneOf: Self.zoneNames)
                    case .backedUp?: backedUp = try r.optional { try $0.bool() } ?? false
                    case .inode?: inode = try r.optional { try $0.integer() }.map { UInt64(bitPattern: $0) }
                    case .excluded?: excluded = try r.optional { try $0.bool() }
                    case .survivesUpdate?: kept = try r.optional { try $0.bool() }
                    case .owner?:
                        namesOwner = true
                        owner = try r.optional { try $0.string() }
                    case .path?: _ = try path.read(&r, "path")
                    case .pathBase64?: _ = try path.read(&r, "pathBase64")
                    case .links?:
                        guard try !r.null() else { break }
                        try r.array { r, _ in
                            var name = PathFields()
                            try r.object { r, key in if try !name.read(&r, key) { try r.skip() } }
                            guard let bytes = try name.resolved(r) else { throw r.failure(key: "path", "is null") }
                            links.append(ContainerPath(bytes: bytes))
                        }
                    case nil: try r.skip()
                    }
                }
                guard let bytes = try path.resolved(r) else { throw r.failure(key: "path", "is null") }
                guard let zone else { throw r.failure(key: "zone", "is missing") }
                let z: Zone
                switch zone {
                case .known(let i): z = Self.zones[i]
                case .other(let text): throw r.failure(key: "zone", "is not a zone (\(TerminalText.escaped(text)))")
                }
                guard let size else { throw r.failure(key: "size", "is missing") }
                files.append(
                    path: bytes,
                    Baseline.File(
                        size: size, mtime: mtime, zone: z, backedUp: backedUp, inode: inode, excluded: excluded,
                        survivesUpdate: kept, owner: owner), namesOwner: namesOwner)
                if !links.isEmpty, let twice = files.addLinks(links, of: bytes) {
                    throw r.failure(
                        key: "links", "names \(twice.display) again, as this file's path or another file's other name")
                }
            }
        case "complete": complete = try r.optional { try $0.bool() }
        case "missed":
            guard try !r.null() else { return }
            try r.array { r, _ in missed.append(try r.missedEntry()) }
        default: try r.skip()
        }
    }

    /// A file's keys, in the order of `fileKeys`.
    private enum FileKey: Int {
        case path, pathBase64, size, mtime, zone, backedUp, inode, excluded, survivesUpdate, owner, links
    }
    private static let fileKeys = JSONKeys([
        "path", "pathBase64", "size", "mtime", "zone", "backedUp", "inode", "excluded", "survivesUpdate", "owner",
        "links",
    ])
    private static let zones = Zone.allCases
    private static let zoneNames = JSONKeys(zones.map(\.rawValue))

    /// The files sorted by path; a path held twice refused, naming both.
    mutating func finish(_ r: inout JSONReader) throws {
        do throws(BaselineTable.Repeated) { try files.finish() } catch {
            throw JSONReader.Failure(
                field: "files[\(error.second)].path",
                message: "is the path of files[\(error.first)] again (\(files.path(error.first).display))",
                offset: r.offset)
        }
        if let name = files.linkNamingARow() {
            throw JSONReader.Failure(
                field: "files",
                message: "name \(name.display) both as a file's path and as another file's other name (links)",
                offset: r.offset)
        }
    }
}

/// An entry's `path` and `pathBase64`, whichever order they come in.
struct PathFields {
    var seen = false
    var null = false
    var bytes: [UInt8] = []
    var base64: String?

    mutating func reset() {
        seen = false
        null = false
        bytes.removeAll(keepingCapacity: true)
        base64 = nil
    }

    /// Reads `key` when it is `path` or `pathBase64` (true), else nothing (false).
    mutating func read(_ r: inout JSONReader, _ key: String) throws -> Bool {
        switch key {
        case "path":
            seen = true
            bytes.removeAll(keepingCapacity: true)
            null = try r.null()
            if !null { try r.string(appendingTo: &bytes) }
            return true
        case "pathBase64":
            base64 = try r.optional { try $0.string() }
            return true
        default:
            return false
        }
    }

    /// `pathBase64`'s bytes when present, else `path`'s (`.` the root); nil when `path` is null
    /// (a finding about no entry). A missing `path` fails.
    func resolved(_ r: JSONReader) throws -> [UInt8]? {
        if let base64 {
            guard let d = Data(base64Encoded: base64) else { throw r.failure(key: "pathBase64", "is not base64") }
            return Array(d)
        }
        guard seen else { throw r.failure(key: "path", "is missing") }
        guard !null else { return nil }
        return bytes == [UInt8(ascii: ".")] ? [] : bytes
    }
}
