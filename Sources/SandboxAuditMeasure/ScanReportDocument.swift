import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// A scan report (`scan --format json`), as far as `compare` reads it.
package struct ScanReportDocument: Sendable {
    package struct NotThisKind: Error {}

    package struct Totals: Sendable {
        package var backupFootprint: Int64, keptOnUpdate: Int64, files: Int64
        static let zero = Totals(backupFootprint: 0, keptOnUpdate: 0, files: 0)
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
    package var missed: [String] = []
    package var domains: [(domain: String, totals: Totals)] = []
    package var totals = Totals.zero
    package var zones: [(zone: Zone, totals: Totals)] = []
    package var findings: [FindingEntry] = []
    /// Each owner's files and backed-up bytes, summed over the domains' `owners` (`compare`'s
    /// owner table); nil when no domain has an `owners` key (a report written before them).
    package var owners: [String: (files: Int64, backedUpBytes: Int64)]?
    /// What the scan missed, with its domain: qualified once the domains are known (`finish`).
    private var missedEntries: [(path: ContainerPath, domain: String?, what: String, why: String)] = []

    mutating func read(_ r: inout JSONReader, _ key: String) throws {
        switch key {
        case "container": (bundleIdentifier, version) = try r.containerIdentity()
        case "complete": complete = try r.optional { try $0.bool() }
        case "domains":
            try r.array { r, _ in
                var domain: String?
                var totals = Totals.zero
                try r.object { r, key in
                    switch key {
                    case "domain": domain = try r.string()
                    case "totals": totals = try r.optional { try $0.totals() } ?? .zero
                    case "owners":
                        var sums = owners ?? [:]
                        if try !r.null() {
                            try r.array { r, _ in
                                var name: String?
                                var files: Int64 = 0
                                var bytes: Int64 = 0
                                try r.object { r, key in
                                    switch key {
                                    case "owner": name = try r.string()
                                    case "files": files = try r.byteCount() ?? 0
                                    case "backedUpBytes": bytes = try r.byteCount() ?? 0
                                    default: try r.skip()
                                    }
                                }
                                guard let name else { throw r.failure(key: "owner", "is missing") }
                                let had = sums[name] ?? (0, 0)
                                sums[name] = (
                                    had.files.addingSaturated(files), had.backedUpBytes.addingSaturated(bytes)
                                )
                            }
                        }
                        owners = sums
                    default: try r.skip()
                    }
                }
                guard let domain else { throw r.failure(key: "domain", "is missing") }
                domains.append((domain, totals))
            }
        case "totals": totals = try r.optional { try $0.totals() } ?? .zero
        case "zones":
            guard try !r.null() else { return }
            try r.array { r, _ in
                var zone: String?
                var t = Totals.zero
                try r.object { r, key in
                    switch key {
                    case "zone": zone = try r.string()
                    case "backedUpSize": t.backupFootprint = try r.byteCount() ?? 0
                    case "survivesUpdateSize": t.keptOnUpdate = try r.byteCount() ?? 0
                    case "files": t.files = try r.byteCount() ?? 0
                    default: try r.skip()
                    }
                }
                guard let zone else { throw r.failure(key: "zone", "is missing") }
                if let z = Zone(rawValue: zone) { zones.append((z, t)) }
            }
        case "findings":
            guard try !r.null() else { return }
            try r.array { r, _ in
                let f = try r.finding(readingDomain: true)
                findings.append(
                    FindingEntry(
                        ruleId: f.ruleId, domain: f.domain, path: f.path, severity: f.severity, message: f.message,
                        owner: f.owner))
            }
        case "missed":
            guard try !r.null() else { return }
            try r.array { r, _ in
                var path = PathFields()
                var domain: String?
                var what: String?
                var why: String?
                try r.object { r, key in
                    switch key {
                    case "domain": domain = try r.optional { try $0.string() }
                    case "what": what = try r.optional { try $0.string() }
                    case "why": why = try r.optional { try $0.string() }
                    default: if try !path.read(&r, key) { try r.skip() }
                    }
                }
                missedEntries.append(
                    (
                        try path.resolved(r).map { ContainerPath(bytes: $0) } ?? .root, domain, what ?? "not read",
                        why ?? "no reason given"
                    ))
            }
        default: try r.skip()
        }
    }

    /// What the scan missed, as a baseline records it: `DOMAIN/PATH` outside the first container.
    mutating func finish(_ r: inout JSONReader) throws {
        let primary = domains.first?.domain
        missed = missedEntries.map { m in
            Baseline.Missed(
                path: Baseline.qualified(m.path, domain: m.domain == primary ? nil : m.domain), what: m.what, why: m.why
            ).line
        }
        missedEntries = []
    }
}

extension JSONReader {
    /// One finding of a scan report or a baseline, its fields as written: `path` nil when null
    /// (a finding about no entry); `domain` read only where the document has one (a baseline's
    /// findings have none, and a `domain` key there is skipped as any unknown key is).
    mutating func finding(readingDomain: Bool) throws -> (
        ruleId: String, domain: String?, path: ContainerPath?, severity: String?, message: String?, owner: String?
    ) {
        var ruleId: String?
        var domain: String?
        var path = PathFields()
        var severity: String?
        var message: String?
        var owner: String?
        try object { r, key in
            switch key {
            case "ruleId": ruleId = try r.string()
            case "domain" where readingDomain: domain = try r.optional { try $0.string() }
            case "severity": severity = try r.optional { try $0.string() }
            case "message": message = try r.optional { try $0.string() }
            case "owner": owner = try r.optional { try $0.string() }
            default: if try !path.read(&r, key) { try r.skip() }
            }
        }
        guard let ruleId else { throw failure(key: "ruleId", "is missing") }
        return (ruleId, domain, try path.resolved(self).map { ContainerPath(bytes: $0) }, severity, message, owner)
    }

    /// A byte count (0…2^63−1); nil when null.
    mutating func byteCount() throws -> Int64? {
        guard try !null() else { return nil }
        let n = try integer()
        guard n >= 0 else { throw failure("is negative (\(n))") }
        return n
    }

    /// A `container` object's `bundleIdentifier` and `version`.
    mutating func containerIdentity() throws -> (String?, String?) {
        var id: String?
        var version: String?
        guard try !null() else { return (nil, nil) }
        try object { r, key in
            switch key {
            case "bundleIdentifier": id = try r.optional { try $0.string() }
            case "version": version = try r.optional { try $0.string() }
            default: try r.skip()
            }
        }
        return (id, version)
    }

    mutating func totals() throws -> ScanReportDocument.Totals {
        var t = ScanReportDocument.Totals.zero
        try object { r, key in
            switch key {
            case "backupFootprint": t.backupFootprint = try r.byteCount() ?? 0
            case "keptOnUpdate": t.keptOnUpdate = try r.byteCount() ?? 0
            case "files": t.files = try r.byteCount() ?? 0
            default: try r.skip()
            }
        }
        return t
    }

    /// An entry of a baseline's `missed`.
    mutating func missedEntry() throws -> Baseline.Missed {
        var path = PathFields()
        var what: String?
        var why: String?
        try object { r, key in
            switch key {
            case "what": what = try r.optional { try $0.string() }
            case "why": why = try r.optional { try $0.string() }
            default: if try !path.read(&r, key) { try r.skip() }
            }
        }
        return Baseline.Missed(
            path: try path.resolved(self).map { ContainerPath(bytes: $0) } ?? .root, what: what ?? "not read",
            why: why ?? "no reason given")
    }
}
