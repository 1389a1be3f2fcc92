import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The sample containers shipped in `sample-containers/` (made by `scripts/make-samples.sh`),
/// scanned with the built CLI: exactly the findings `sample-containers/README.md` lists.
final class SampleContainerTests: XCTestCase {
    /// `<repo>/sample-containers`, found from this file (`<repo>/Tests/SandboxAuditTests/…`).
    static let samples: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("sample-containers").path

    struct Expected: Hashable, CustomStringConvertible {
        let ruleId: String
        let severity: String
        let path: String
        init(_ ruleId: String, _ severity: String, _ path: String) {
            self.ruleId = ruleId
            self.severity = severity
            self.path = path
        }
        var description: String { "\(severity) \(ruleId) \(path)" }
    }

    /// A backup attribute the inventory must show on a path, read from a `._` sidecar.
    struct ExpectedMark: Hashable, CustomStringConvertible {
        let path: String
        let attribute: String
        let sidecar: String
        /// nil for the legacy attribute (the inventory gives no value class for it).
        let valueClass: String?
        var description: String { "\(path): \(attribute) [\(valueClass ?? "legacy")] from \(sidecar)" }
    }

    static let exclude = "com.apple.metadata:com_apple_backup_excludeItem"
    static let legacy = "com.apple.MobileBackup"

    static let misbehavingFindings: Set<Expected> = [
        Expected("misplaced-at-root", "error", "Downloads"),
        Expected(
            "oversized-backed-up-file", "error",
            "Library/Application Support/Models/Segmenter.mlmodelc/weights/weight.bin"),
        Expected("oversized-backed-up-file", "warning", "Documents/VideoCache/trailer-1080p.mp4"),
        Expected(
            "unexcluded-support-data", "warning",
            "Library/Application Support/Models/Segmenter.mlmodelc/weights/weight.bin"),
        Expected("recreatable-in-documents", "warning", "Documents/VideoCache"),
        Expected("excluded-user-data", "warning", "Documents/Drafts"),
        Expected("excluded-container-directory", "warning", "Library/Caches"),
        Expected("redundant-exclusion", "note", "tmp/upload-queue"),
        Expected("legacy-exclusion-attribute", "warning", "Library/Application Support/OfflineMaps"),
        Expected("unrecognised-exclusion-value", "warning", "Library/Application Support/search-index.sqlite"),
        Expected("symlink-escapes-container", "note", "Documents/Current Project"),
        Expected("unreadable-entry", "warning", "Documents/._Recipes.pdf"),
        Expected("orphan-sidecar", "note", "Library/Application Support/._search-index-v1.sqlite"),
        Expected("split-store-backup", "error", "Library/Application Support/Store.sqlite"),
        Expected("volatile-store", "warning", "Library/Caches/feed.sqlite"),
        Expected("large-user-defaults", "warning", "Library/Preferences/com.example.misbehaving.feedcache.plist"),
    ]

    static let exampleFindings: Set<Expected> = [
        Expected("recreatable-in-documents", "warning", "Documents/Thumbnails"),
        Expected("legacy-exclusion-attribute", "warning", "Library/Application Support/StickerPacks"),
    ]

    static let marks: [String: Set<ExpectedMark>] = [
        "WellBehaved": [
            ExpectedMark(
                path: "Library/Application Support/Downloaded", attribute: exclude,
                sidecar: "Library/Application Support/._Downloaded", valueClass: "canonical")
        ],
        "Misbehaving": [
            ExpectedMark(
                path: "Documents/Drafts", attribute: exclude, sidecar: "Documents/._Drafts", valueClass: "canonical"),
            ExpectedMark(
                path: "Library/Application Support/Store.sqlite", attribute: exclude,
                sidecar: "Library/Application Support/._Store.sqlite", valueClass: "canonical"),
            ExpectedMark(
                path: "Library/Caches", attribute: exclude, sidecar: "Library/._Caches", valueClass: "canonical"),
            ExpectedMark(
                path: "tmp/upload-queue", attribute: exclude, sidecar: "tmp/._upload-queue", valueClass: "string"),
            ExpectedMark(
                path: "Library/Application Support/search-index.sqlite", attribute: exclude,
                sidecar: "Library/Application Support/._search-index.sqlite", valueClass: "other"),
            ExpectedMark(
                path: "Library/Application Support/OfflineMaps", attribute: legacy,
                sidecar: "Library/Application Support/._OfflineMaps", valueClass: nil),
        ],
        "Example.xcappdata": [
            ExpectedMark(
                path: "Library/Application Support/StickerPacks", attribute: legacy,
                sidecar: "Library/Application Support/._StickerPacks", valueClass: nil),
            ExpectedMark(
                path: "Library/Application Support/Fonts", attribute: exclude,
                sidecar: "Library/Application Support/._Fonts", valueClass: "plist-other"),
        ],
    ]

    /// Git keeps no modification times: in a checkout older than 3 days the samples' tmp files
    /// would trip stale-temporary-file, which the samples leave out. The tests never write into
    /// the samples, so they raise the threshold instead.
    static let scanArguments = ["--stale-tmp-age", "36500d"]

    func sample(_ name: String) -> String { Self.samples + "/" + name }

    func scan(_ name: String, _ extra: [String] = []) throws -> (
        findings: [Expected], json: [String: Any], status: Int32
    ) {
        let (json, result) = try CLI.scanJSON([sample(name)] + Self.scanArguments + extra)
        XCTAssertEqual(result.stderr, "", "\(name): stderr")
        let findings = (json["findings"] as? [[String: Any]] ?? []).map {
            // A finding about no entry (a budget) has a null path: "" here.
            Expected(
                $0["ruleId"] as? String ?? "?", $0["severity"] as? String ?? "?",
                $0["path"] is NSNull ? "" : $0["path"] as? String ?? "?")
        }
        return (findings, json, result.status)
    }

    func assertContainer(
        _ json: [String: Any], kind: String, bundle: String, version: String?, source: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let c = json["container"] as? [String: Any] ?? [:]
        XCTAssertEqual(c["kind"] as? String, kind, file: file, line: line)
        XCTAssertEqual(c["bundleIdentifier"] as? String, bundle, file: file, line: line)
        if let version {
            XCTAssertEqual(c["version"] as? String, version, file: file, line: line)
        } else {
            XCTAssertTrue(
                c["version"] is NSNull, "version: \(String(describing: c["version"]))", file: file, line: line)
        }
        XCTAssertEqual(c["identitySource"] as? String, source, file: file, line: line)
    }

    // MARK: - Findings and exit codes

    func testWellBehavedHasNoFindings() throws {
        let (findings, json, status) = try scan("WellBehaved")
        XCTAssertEqual(findings, [])
        XCTAssertEqual(status, 0)
        assertContainer(
            json, kind: "simulator", bundle: "com.example.wellbehaved", version: nil,
            source: ".com.apple.mobile_container_manager.metadata.plist")
        // Not even a note: --fail-on note passes too.
        XCTAssertEqual(try scan("WellBehaved", ["--fail-on", "note"]).status, 0)

        // The downloaded pack is over the support-data threshold: its folder's exclusion is
        // what keeps it quiet.
        let inv = try CLI.inventory(sample("WellBehaved"))
        let pack = try XCTUnwrap(inv.entries["Library/Application Support/Downloaded/Packs/starter-pack.zip"])
        XCTAssertEqual(pack["size"] as? Int, 1_100_000)
        XCTAssertEqual(pack["excludedBy"] as? String, "Library/Application Support/Downloaded")
        XCTAssertEqual(pack["backedUp"] as? Bool, false)
        XCTAssertEqual(
            inv.entries["Library/Preferences/com.example.wellbehaved.plist"]?["zone"] as? String, "preferences")
    }

    func testMisbehavingFindsExactlyTheListedMistakes() throws {
        let (findings, json, status) = try scan("Misbehaving")
        XCTAssertEqual(findings.count, Set(findings).count, "a finding reported twice: \(findings)")
        XCTAssertEqual(
            Set(findings), Self.misbehavingFindings,
            "missing: \(Self.misbehavingFindings.subtracting(findings)); unexpected: "
                + "\(Set(findings).subtracting(Self.misbehavingFindings))"
        )
        XCTAssertEqual(status, 1)
        assertContainer(
            json, kind: "simulator", bundle: "com.example.misbehaving", version: nil,
            source: ".com.apple.mobile_container_manager.metadata.plist")
        let summary = json["summary"] as? [String: Any] ?? [:]
        XCTAssertEqual(summary["error"] as? Int, 3)
        XCTAssertEqual(summary["warning"] as? Int, 10)
        XCTAssertEqual(summary["note"] as? Int, 3)
    }

    func testExampleXcappdataHasWarningsOnly() throws {
        let (findings, json, status) = try scan("Example.xcappdata")
        XCTAssertEqual(Set(findings), Self.exampleFindings)
        XCTAssertEqual(findings.count, Self.exampleFindings.count)
        XCTAssertEqual(status, 0, "no error: the default --fail-on error passes")
        assertContainer(
            json, kind: "xcappdata", bundle: "com.example.journal", version: "2.3 (41)", source: "AppDataInfo.plist")
        XCTAssertEqual(
            (json["container"] as? [String: Any])?["dataRoot"] as? String,
            sample("Example.xcappdata/AppData"))

        let strict = try scan("Example.xcappdata", ["--fail-on", "warning"])
        XCTAssertEqual(Set(strict.findings), Self.exampleFindings)
        XCTAssertEqual(strict.status, 1)
    }

    func testTextReportExitCodesMatch() throws {
        let args = Self.scanArguments
        XCTAssertEqual(try CLI.run(["scan", sample("WellBehaved")] + args).status, 0)
        XCTAssertEqual(try CLI.run(["scan", sample("Misbehaving")] + args).status, 1)
        XCTAssertEqual(try CLI.run(["scan", sample("Example.xcappdata")] + args).status, 0)
        XCTAssertEqual(try CLI.run(["scan", "--fail-on", "warning", sample("Example.xcappdata")] + args).status, 1)
    }

    // MARK: - Sidecars

    func testSidecarsAreMetadataAndTheirMarksAreAttributes() throws {
        for (name, expected) in Self.marks {
            let inv = try CLI.inventory(sample(name))
            // Misbehaving's truncated ._ sidecar makes it incomplete: exit 1, as scan.
            XCTAssertEqual(inv.result.status, name == "Misbehaving" ? 1 : 0, name)
            XCTAssertFalse(inv.order.isEmpty, name)
            for path in inv.order {
                XCTAssertFalse(
                    path.split(separator: "/").contains { $0.hasPrefix("._") },
                    "\(name): the sidecar \(path) is listed as an entry")
            }
            var found: Set<ExpectedMark> = []
            for (path, entry) in inv.entries {
                for a in entry["attributes"] as? [[String: Any]] ?? [] {
                    XCTAssertEqual(a["source"] as? String, "appledouble", "\(name): \(path)")
                    found.insert(
                        ExpectedMark(
                            path: path, attribute: a["attribute"] as? String ?? "?",
                            sidecar: a["from"] as? String ?? "?", valueClass: a["valueClass"] as? String))
                }
            }
            XCTAssertEqual(found, expected, name)

            // Every ._ file on disk was read as a sidecar (the malformed one included).
            let onDisk = try sidecarFiles(in: URL(fileURLWithPath: sample(name)).resolvingSymlinksInPath().path)
            let json = try scan(name).json
            let totals = json["totals"] as? [String: Any] ?? [:]
            XCTAssertEqual(totals["sidecarsRead"] as? Int, onDisk.count, "\(name): \(onDisk)")
            XCTAssertEqual(totals["unreadable"] as? Int, name == "Misbehaving" ? 1 : 0, name)
        }
    }

    func sidecarFiles(in root: String) throws -> [String] {
        let all = try FileManager.default.subpathsOfDirectory(atPath: root)
        return all.filter { ($0 as NSString).lastPathComponent.hasPrefix("._") }.sorted()
    }

    // MARK: - Size

    func testSamplesStayUnder25MB() throws {
        var total: Int64 = 0
        var large: [String] = []
        let root = Self.samples
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            var st = stat()
            guard lstat(root + "/" + relative, &st) == 0 else { continue }
            // What it occupies once checked out: git writes zero runs out in full, not sparse.
            let apparent = (Int64(st.st_size) + 4095) / 4096 * 4096
            total += max(Int64(st.st_blocks) * 512, apparent)
            if Int64(st.st_size) >= 10_000_000 { large.append(relative) }
        }
        XCTAssertLessThan(total, 25_000_000, "sample-containers/ occupies \(total) bytes")
        let misbehaving = "MisbehavingDevice/data/Containers/Data/Application/2F6A9D14-7B3C-4E58-A1D2-6C0B8E4F3A97"
        XCTAssertEqual(
            large.sorted(),
            [
                misbehaving + "/Documents/VideoCache/trailer-1080p.mp4",
                misbehaving + "/Library/Application Support/Models/Segmenter.mlmodelc/weights/weight.bin",
            ])
    }

    // MARK: - The Misbehaving app as a Simulator device: app, extension and App Group

    func testMisbehavingDeviceAuditsTheWholeApp() throws {
        let device = sample("MisbehavingDevice")
        let (json, r) = try CLI.scanJSON([
            "--app", "com.example.misbehaving", "--app-group", "group.com.example.misbehaving", device,
        ])
        XCTAssertEqual(r.status, 1, r.stderr)
        let domains = (json["domains"] as? [[String: Any]] ?? []).map { d in
            (d["domain"] as? String ?? "?", (d["totals"] as? [String: Any])?["backupFootprint"] as? Int ?? -1)
        }
        XCTAssertEqual(
            domains.map(\.0),
            [
                "AppDomain-com.example.misbehaving",
                "AppDomainPlugin-com.example.misbehaving.NotificationService",
                "AppDomainGroup-group.com.example.misbehaving",
            ])
        // The app's own container alone gives the same figure as scanning it directly.
        let alone = try CLI.scanJSON([sample("Misbehaving")]).json
        XCTAssertEqual(domains.first?.1, (alone["totals"] as? [String: Any])?["backupFootprint"] as? Int)
        // The group's shared store and suite are backed up; its Caches are not.
        XCTAssertEqual(domains.last?.1, 131_072 + 700_230)
        XCTAssertEqual((json["totals"] as? [String: Any])?["backupFootprint"] as? Int, domains.reduce(0) { $0 + $1.1 })
        let findings = (json["findings"] as? [[String: Any]] ?? []).filter {
            $0["domain"] as? String == "AppDomainGroup-group.com.example.misbehaving"
        }
        XCTAssertEqual(
            findings.map { "\($0["ruleId"] ?? "") \($0["path"] ?? "")" },
            ["large-user-defaults Library/Preferences/group.com.example.misbehaving.plist"])
        // The SplashBoard snapshot is there, but not backed up.
        let inv = try CLI.inventory(sample("Misbehaving"))
        let snapshot = inv.entries.first {
            $0.key.hasPrefix("Library/SplashBoard/") && $0.value["kind"] as? String == "file"
        }
        XCTAssertEqual(snapshot?.value["zone"] as? String, "systemLibrary")
        XCTAssertEqual(snapshot?.value["backedUp"] as? Bool, false)
    }

    // MARK: the samples' policy files (beside the containers: inside, a file would be a root item)

    func testWellBehavedPolicyPasses() throws {
        let (findings, json, status) = try scan("WellBehaved", ["--config", sample("WellBehaved.sandbox-audit.yml")])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(findings, [])
        let budgets = json["budgets"] as! [[String: Any]]
        XCTAssertEqual(budgets.count, 4)
        XCTAssertEqual(budgets.map { $0["exceeded"] as? Bool }, [false, false, false, false])
        XCTAssertEqual(budgets.first?["measured"] as? Int, 10_793)
        XCTAssertEqual(
            (json["settings"] as! [String: Any])["failOn"] as? String, "warning", "failOn comes from the file")
    }

    func testMisbehavingPolicyFails() throws {
        let (findings, json, status) = try scan("Misbehaving", ["--config", sample("Misbehaving.sandbox-audit.yml")])
        XCTAssertEqual(status, 1)
        let policyFindings = findings.filter { $0.ruleId.hasPrefix("policy-") || $0.ruleId == "budget-exceeded" }
        XCTAssertEqual(
            Set(policyFindings),
            [
                Expected("budget-exceeded", "error", ""),
                Expected("policy-backup-included", "error", "Documents/Drafts"),
                Expected("policy-forbidden", "error", "Downloads"),
                Expected("policy-backup-excluded", "error", "Library/Application Support/Models"),
                Expected("policy-max-size", "error", "Library/Application Support/search-index.sqlite"),
            ])
        XCTAssertEqual(policyFindings.count, 7)
        XCTAssertFalse(findings.contains { $0.path == "Documents/Current Project" }, "ignored in the policy")
        XCTAssertEqual((json["summary"] as! [String: Any])["ignoredFindings"] as? Int, 1)
        let budgets = json["budgets"] as! [[String: Any]]
        XCTAssertEqual(budgets.map { $0["exceeded"] as? Bool }, [true, true, true])
    }

    /// The archived package gives what the folder gives: same identity, same findings.
    func testExampleArchiveEqualsTheFolder() throws {
        let (archived, json, status) = try scan("Example.xcappdata.tar.gz")
        XCTAssertEqual(status, 0)
        XCTAssertEqual(Set(archived), Self.exampleFindings)
        let c = json["container"] as! [String: Any]
        XCTAssertEqual(c["kind"] as? String, "xcappdata")
        XCTAssertEqual(c["bundleIdentifier"] as? String, "com.example.journal")
        XCTAssertEqual(c["version"] as? String, "2.3 (41)")
        let folder = try scan("Example.xcappdata").json
        XCTAssertEqual(
            (json["totals"] as! [String: Any])["backupFootprint"] as? Int,
            (folder["totals"] as! [String: Any])["backupFootprint"] as? Int)
    }
}
