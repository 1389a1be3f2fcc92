import Foundation
import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSources
import SandboxAuditSystem

/// SARIF 2.1.0 (OASIS), for GitHub code scanning and other SARIF consumers. Validated against
/// the official schema by the tests.
enum SARIFReport {
    /// The `uriBaseId` under which result locations are given; `originalUriBaseIds` maps it to
    /// the data root.
    static let uriBaseId = "DATAROOT"
    /// With `--sources`: the base of the source files, the working folder (a CI job's is the
    /// repository's root), so code scanning places a result on the line of the app's code.
    static let sourceBaseId = "SRCROOT"
    static let fingerprintKey = "sandboxAudit/v1"

    static func render(_ report: ScanReport) -> JSON {
        let (result, summary) = (report.result, report.summary)
        let rules = summary.rulesRun.compactMap(RuleCatalogue.rule(id:))
        let index = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.id, $0) })
        let driver: JSON = .object([
            ("name", .string("sandbox-audit")),
            ("version", .string(Audit.toolVersion)),
            ("semanticVersion", .string(Audit.toolVersion)),
            ("informationUri", .string(References.repository)),
            ("rules", .array(rules.map(rule))),
        ])
        // The app's data container is DATAROOT; its other containers are named by their domain.
        var baseID: [String: String] = [:]
        for (i, inv) in result.inventories.enumerated() { baseID[inv.domain] = i == 0 ? uriBaseId : inv.domain }
        // A finding a suppress: entry covers is a result too, with its `suppressions` (§3.35).
        let directory = FileManager.default.currentDirectoryPath
        let make = { (item: ReportFinding) -> JSON in
            let f = item.finding
            // Code scanning refuses a result without a location: a finding about no entry
            // (a budget, which holds the whole app) points at the app's data root.
            let container =
                f.path.map { location($0, base: baseID[f.domain ?? ""] ?? uriBaseId) } ?? location(.root)
            var fields: [(String, JSON)] = [
                ("ruleId", .string(f.ruleId)),
                ("ruleIndex", .int(Int64(index[f.ruleId] ?? 0))),
                ("level", .string(level(f.severity))),
                ("message", .object([("text", .string(f.message))])),
            ]
            // The app's line that builds the path, when the sources name one: the result's
            // location, the container's path a related location (SARIF §3.27.22).
            if let source = item.source.first {
                let path = report.repositoryPath(source, relativeTo: directory)
                fields.append(("locations", .array([location(source, path: path)])))
                fields.append(("relatedLocations", .array([related(container, id: 1)])))
            } else {
                fields.append(("locations", .array([container])))
            }
            fields.append(("partialFingerprints", .object([(fingerprintKey, .string(fingerprint(f)))])))
            var properties: [(String, JSON)] = []
            if let size = f.size { properties.append(("size", .int(size))) }
            if let b64 = f.path?.base64 { properties.append(("pathBase64", .string(b64))) }
            if let d = f.domain { properties.append(("domain", .string(d))) }
            if let fix = f.fix { properties.append(("fix", .string(fix))) }
            if let owner = item.owner {
                properties.append(("owner", .string(owner.name)))
                properties.append(("ownerKind", .string(owner.entry?.kind.rawValue ?? "team")))
                if case .object = OwnerReport.json(owner) {
                    properties.append(("ownerDetail", OwnerReport.json(owner)))
                }
            }
            if !properties.isEmpty { fields.append(("properties", .object(properties))) }
            if let suppression = item.suppression { fields.append(SuppressionReport.sarif(suppression)) }
            return .object(fields)
        }
        let results: [JSON] = report.findings.map(make) + report.suppressed.map(make)
        var runProperties: [(String, JSON)] = [
            ("backupFootprint", .int(result.backupFootprint)),
            ("keptOnUpdate", .int(result.keptOnUpdate)),
            ("keptOnRestore", .int(result.keptOnRestore)),
            ("domains", .array(result.inventories.map { .string($0.domain) })),
        ]
        if let id = summary.bundleIdentifier { runProperties.append(("bundleIdentifier", .string(id))) }
        // A backup's domains are no folders: their paths are the backup's relativePaths.
        if let b = summary.backup { runProperties.append(("backup", .string(b))) }
        runProperties += ProtectionReport.sarifProperties(result)
        // Names from the input (files, identifiers, the policy's owners and reasons) shown by
        // GitHub's code scanning as they are: control and bidi characters as visible escapes.
        return JSON.object([
            ("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            ("version", .string("2.1.0")),
            (
                "runs",
                .array([
                    .object([
                        ("tool", .object([("driver", driver)])),
                        (
                            "originalUriBaseIds",
                            .object(
                                result.inventories.enumerated().map { i, c in
                                    (
                                        i == 0 ? uriBaseId : c.domain,
                                        .object([
                                            ("uri", .string(fileURI(c.container.dataRoot))),
                                            (
                                                "description",
                                                .object([
                                                    (
                                                        "text",
                                                        .string(
                                                            i == 0
                                                                ? "The app's data root (\(c.domain))"
                                                                : "The root of \(c.domain)")
                                                    )
                                                ])
                                            ),
                                        ])
                                    )
                                } + sourceBase(report, directory))
                        ),
                        ("invocations", .array([invocation(result, baseID: baseID, ruleIndex: index)])),
                        ("results", .array(results)),
                        ("properties", .object(runProperties)),
                    ])
                ])
            ),
        ]).visible
    }

    static func rule(_ r: any Rule) -> JSON {
        let d = r.description
        // PascalCase name, as SARIF viewers expect ("MisplacedAtRoot").
        let name = d.id.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return .object([
            ("id", .string(d.id)),
            ("name", .string(name)),
            ("shortDescription", .object([("text", .string(d.summary))])),
            ("fullDescription", .object([("text", .string(d.rationale))])),
            (
                "help",
                .object([
                    ("text", .string("Fix: \(d.fix)\n\n\(d.rationale)")),
                    (
                        "markdown",
                        .string(
                            "**Fix:** \(d.fix)\n\n\(d.rationale)\n\nRun `sandbox-audit rules \(d.id)` for examples, "
                                + "or see [\(d.id) in the rules catalogue](\(References.ruleHelp(d.id)))."
                        )
                    ),
                ])
            ),
            ("helpUri", .string(References.ruleHelp(d.id))),
            ("defaultConfiguration", .object([("level", .string(level(d.defaultSeverity)))])),
            ("properties", .object([("tags", .array([.string("ios"), .string("backup"), .string("storage")]))])),
        ])
    }

    /// The run's one invocation: successful when the scan read everything it needed; otherwise
    /// a notification per thing it could not read (SARIF §3.20.14, §3.20.21).
    static func invocation(_ result: AuditResult, baseID: [String: String], ruleIndex: [String: Int] = [:]) -> JSON {
        var notifications: [JSON] = result.missed.map { m in
            .object([
                ("descriptor", .object([("id", .string("unreadable-entry"))])),
                ("level", .string("error")),
                ("message", .object([("text", .string("Not read: \(m.line); the figures and findings leave it out"))])),
                ("locations", .array([location(m.path, base: baseID[m.domain] ?? uriBaseId)])),
            ])
        }
        // Each rule not run on a container, or run in part, and what it needs: a note naming the
        // rule (`associatedRule`, §3.58.8); it does not make the run unsuccessful.
        notifications += result.notChecked.map { n in
            var rule: [(String, JSON)] = [("id", .string(n.ruleId))]
            if let i = ruleIndex[n.ruleId] { rule.append(("index", .int(Int64(i)))) }
            return .object([
                ("descriptor", .object([("id", .string("not-checked"))])),
                ("associatedRule", .object(rule)),
                ("level", .string("note")),
                (
                    "message",
                    .object([
                        (
                            "text",
                            .string(
                                "Not checked\(result.isMultiDomain ? " on \(n.domain)" : ""): \(n.ruleId) \(n.reason)")
                        )
                    ])
                ),
                (
                    "properties",
                    .object([
                        ("domain", .string(n.domain)), ("needs", .array(n.needs.map { .string($0.rawValue) })),
                        ("checkedInPart", .bool(n.partly != nil)),
                    ])
                ),
            ])
        }
        var fields: [(String, JSON)] = [("executionSuccessful", .bool(result.complete))]
        if !notifications.isEmpty { fields.append(("toolExecutionNotifications", .array(notifications))) }
        return .object(fields)
    }

    static func level(_ s: Severity) -> String { s.rawValue }  // error, warning, note: SARIF's own names

    static func location(_ path: ContainerPath, base: String = uriBaseId) -> JSON {
        .object([
            (
                "physicalLocation",
                .object([
                    (
                        "artifactLocation",
                        .object([
                            ("uri", .string(path.isRoot ? "./" : relativeURI(path.bytes))),
                            ("uriBaseId", .string(base)),
                        ])
                    )
                ])
            )
        ])
    }

    /// `SRCROOT`, the working folder, when the scan read the app's sources.
    static func sourceBase(_ report: ScanReport, _ directory: String) -> [(String, JSON)] {
        guard report.sourceRoot != nil else { return [] }
        let text = "The working folder, which source paths are relative to (a CI job's: the repository's root)"
        return [
            (
                sourceBaseId,
                .object([("uri", .string(fileURI(directory))), ("description", .object([("text", .string(text))]))])
            )
        ]
    }

    /// A source line's location: its repository path under `SRCROOT` (`path`: relative to the
    /// working folder, or absolute when the sources lie outside it), and its line and column.
    static func location(_ line: SourceLocation, path: String) -> JSON {
        .object([
            (
                "physicalLocation",
                .object([
                    (
                        "artifactLocation",
                        // Sources outside the working folder: an absolute file URI, with no base.
                        path.hasPrefix("/")
                            ? .object([("uri", .string("file://" + relativeURI(Array(path.utf8))))])
                            : .object([
                                ("uri", .string(relativeURI(Array(path.utf8)))), ("uriBaseId", .string(sourceBaseId)),
                            ])
                    ),
                    (
                        "region",
                        .object([("startLine", .int(Int64(line.line))), ("startColumn", .int(Int64(line.column)))])
                    ),
                ])
            )
        ])
    }

    /// A location as a related one (§3.27.22): its `id`, and what it is.
    static func related(_ location: JSON, id: Int64) -> JSON {
        guard case .object(let fields) = location else { return location }
        return .object(
            [("id", .int(id))] + fields + [("message", .object([("text", .string("the file in the container"))]))])
    }

    /// Percent-encodes a relative path for a URI (RFC 3986: unreserved characters and `/`
    /// stay; every other byte, including those of non-UTF-8 names, becomes %XX).
    static func relativeURI(_ bytes: [UInt8]) -> String {
        var out = ""
        for b in bytes {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += "%" + ByteText.hexString([b]).uppercased()
            }
        }
        return out
    }

    /// A folder's `file:` URI (RFC 8089): `file://` and an absolute path, so that a relative
    /// input (`sample-containers/x.tgz`) cannot put its first folder in the host's place. A
    /// relative path is taken from `directory`; `.` and `..` segments are removed (RFC 3986
    /// §5.2.4) and every byte outside the unreserved set is percent-encoded.
    static func fileURI(_ path: String, relativeTo directory: String = FileManager.default.currentDirectoryPath)
        -> String
    {
        var segments: [Substring] = []
        let absolute = path.hasPrefix("/") ? path : directory + "/" + path
        for segment in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        let joined = segments.map { "/" + $0 }.joined()
        return "file://" + relativeURI(Array(joined.utf8)) + "/"
    }

    /// Stable across runs and machines for the same finding: the rule and the path relative to
    /// the data root, hashed (not the message, which carries sizes). A budget's finding has no
    /// path: the budget's name, which begins its message (`backup footprint: 3.00 kB of …`),
    /// tells one budget from another.
    static func fingerprint(_ f: Finding) -> String {
        // The app's own domain adds nothing, so fingerprints of single-container scans stay as
        // they were; an extension's or group's domain tells its findings apart.
        var domain: [UInt8] = []
        if let d = f.domain, !d.hasPrefix(ContainerRole.app.domainPrefix) { domain = [0] + Array(d.utf8) }
        var bytes: [UInt8] = Array(f.ruleId.utf8)
        bytes.append(0)
        bytes += (f.path ?? .root).bytes
        bytes += domain
        if f.path == nil, f.ruleId == "budget-exceeded", let name = f.message.components(separatedBy: ": ").first {
            bytes += [0] + Array(name.utf8)
        }
        return StableHash.hex(bytes)
    }
}

/// A 128-bit FNV-1a hash (two 64-bit lanes with different offsets). Written by hand: a
/// fingerprint needs stability, not cryptographic strength, and pulling in swift-crypto for it
/// would double the build.
enum StableHash {
    static func hex(_ bytes: [UInt8]) -> String {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x6c62_272e_07bb_0142
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            b = (b ^ UInt64(byte ^ 0x5A)) &* 0x0000_0100_0000_01B3
        }
        func h(_ v: UInt64) -> String {
            let s = String(v, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
        return h(a) + h(b)
    }
}
