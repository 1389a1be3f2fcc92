import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// `compare BASE HEAD` on real scans of two containers built here: the head's Firebase model
/// folder grew and it gained a Realm database.
final class CompareTests: XCTestCase {
    static let firebase = "Library/Application Support/com.firebase.FirebaseMLModelDownloader/model-segmenter"
    static let realm = "Documents/default.realm"

    /// Scans the base and head containers, each to a baseline and a scan report in `dir`.
    static func scanBaseAndHead(in dir: TempDir) throws {
        for side in ["base", "head"] {
            let root = dir.sub(side)
            try Fixture.container(at: root)
            try Fixture.file(root + "/Documents/notes.md", size: 40)
            try Fixture.file(root + "/" + Self.firebase, size: side == "base" ? 20_000 : 3_000_000)
            try Fixture.file(root + "/Library/Caches/thumbs.bin", size: 5_000)
            if side == "head" { try Fixture.file(root + "/" + Self.realm, size: 700_000) }
            let r = try CLI.run([
                "scan", root, "--write-baseline", dir.sub("\(side)-baseline.json"), "--output",
                "json=" + dir.sub("\(side).json"),
            ])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
    }

    func compare(_ arguments: [String]) throws -> CLI.Result { try CLI.run(["compare"] + arguments) }

    func testEveryFormatNamesTheGrownFirebaseFolderAndTheNewRealmFile() throws {
        let dir = try TempDir()
        try Self.scanBaseAndHead(in: dir)
        let files = [dir.sub("base-baseline.json"), dir.sub("head-baseline.json")]
        for format in ["text", "markdown", "json"] {
            let r = try compare(files + ["--format", format])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(
                r.stdout.contains("com.firebase.FirebaseMLModelDownloader/model-segmenter"), "\(format): \(r.stdout)")
            XCTAssertTrue(r.stdout.contains(Self.realm), "\(format): \(r.stdout)")
        }
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: try compare(files + ["--format", "json"]).stdoutBytes) as? [String: Any])
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
        let grew = try XCTUnwrap(json["grew"] as? [[String: Any]])
        XCTAssertEqual(grew.first?["path"] as? String, Self.firebase)
        XCTAssertEqual(grew.first?["delta"] as? Int, 2_980_000)
        let added = try XCTUnwrap(json["added"] as? [[String: Any]])
        XCTAssertEqual(added.map { $0["path"] as? String }, [Self.realm])
        XCTAssertEqual(added.first?["backedUp"] as? Bool, true)
        let footprint = try XCTUnwrap((json["total"] as? [String: Any])?["backupFootprint"] as? [String: Any])
        XCTAssertEqual(footprint["delta"] as? Int, 2_980_000 + 700_000)
        // Baselines record which files an update keeps: kept-on-update bytes per side and delta.
        let kept = try XCTUnwrap((json["total"] as? [String: Any])?["keptOnUpdate"] as? [String: Any])
        XCTAssertEqual(kept["before"] as? Int, 40 + 20_000 + 5_000)
        XCTAssertEqual(kept["delta"] as? Int, 2_980_000 + 700_000)
        // The text says the same in its lines.
        let text = try compare(files).stdout
        XCTAssertTrue(text.contains("+2.98 MB  " + Self.firebase + " (20.0 kB → 3.00 MB, backed up"), text)
        XCTAssertTrue(text.contains("+700 kB  " + Self.realm + " (new → 700 kB, backed up"), text)
    }

    /// Scan reports have the totals per domain and zone, kept-on-update bytes included, but no
    /// per-path sizes: compare says so instead of listing nothing as if nothing changed.
    func testScanReportsGiveTotalsAndSayPathsNeedBaselines() throws {
        let dir = try TempDir()
        try Self.scanBaseAndHead(in: dir)
        let r = try compare([dir.sub("base.json"), dir.sub("head.json"), "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        let total = try XCTUnwrap(json["total"] as? [String: Any])
        XCTAssertEqual((total["backupFootprint"] as? [String: Any])?["delta"] as? Int, 3_680_000)
        XCTAssertEqual((total["keptOnUpdate"] as? [String: Any])?["delta"] as? Int, 3_680_000)
        XCTAssertEqual((total["files"] as? [String: Any])?["delta"] as? Int, 1)
        let zones = try XCTUnwrap(json["zones"] as? [[String: Any]])
        let documents = try XCTUnwrap(zones.first { $0["zone"] as? String == "documents" })
        XCTAssertEqual((documents["backupFootprint"] as? [String: Any])?["delta"] as? Int, 700_000)
        XCTAssertTrue(
            (json["pathsUnavailable"] as? String)?.contains("BASE and HEAD are scan reports") == true, "\(json)")
        XCTAssertEqual(json["grewCount"] as? Int, 0)
        let text = try compare([dir.sub("base.json"), dir.sub("head.json")]).stdout
        XCTAssertTrue(
            text.contains("not compared: BASE and HEAD are scan reports, which record no per-path sizes"), text)
        // A scan report against a baseline: the same figures, the baseline's from its files.
        let mixed = try compare([dir.sub("base.json"), dir.sub("head-baseline.json")])
        XCTAssertEqual(mixed.status, 0, mixed.stderr)
        XCTAssertTrue(
            mixed.stdout.contains(
                "backup 20.0 kB → 3.70 MB (+3.68 MB); kept on update 25.0 kB → 3.71 MB (+3.68 MB); files 3 → 4 "
                    + "(+1)"),
            mixed.stdout)
        // A baseline written before files recorded `survivesUpdate` has no such figure.
        let old = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("head-baseline.json"))))
                as? [String: Any])
        var stripped = old
        stripped["files"] = (old["files"] as? [[String: Any]] ?? []).map {
            var f = $0
            f.removeValue(forKey: "survivesUpdate")
            return f
        }
        try JSONSerialization.data(withJSONObject: stripped).write(
            to: URL(fileURLWithPath: dir.sub("old-baseline.json")))
        let unknown = try compare([dir.sub("base.json"), dir.sub("old-baseline.json")])
        XCTAssertTrue(unknown.stdout.contains("kept on update 25.0 kB → n/a (n/a)"), unknown.stdout)
    }

    func testFailOnGrowth() throws {
        let dir = try TempDir()
        try Self.scanBaseAndHead(in: dir)
        let files = [dir.sub("base-baseline.json"), dir.sub("head-baseline.json")]
        XCTAssertEqual(try compare(files + ["--fail-on-growth", "3MB"]).status, 1)
        XCTAssertEqual(
            try compare(files + ["--fail-on-growth", "3.68MB"]).status, 0, "grew by exactly the limit: not more")
        XCTAssertEqual(try compare(files + ["--fail-on-growth", "4MiB"]).status, 0)
        // Shrinking never fails.
        XCTAssertEqual(try compare(files.reversed() + ["--fail-on-growth", "0"]).status, 0)
        let bad = try compare(files + ["--fail-on-growth", "lots"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("not a size"), bad.stderr)
    }

    /// The owner of each path, when the baselines record one (the owner attribution writes it).
    func testOwnersOfTheGrownAndNewPaths() throws {
        let dir = try TempDir()
        try Self.scanBaseAndHead(in: dir)
        let baseline = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("head-baseline.json"))))
                as? [String: Any])
        guard let files = baseline["files"] as? [[String: Any]], files.contains(where: { $0.keys.contains("owner") })
        else {
            throw XCTSkip("the baseline's files carry no owner key: attribution to owners is not part of this build")
        }
        let both = [dir.sub("base-baseline.json"), dir.sub("head-baseline.json")]
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: try compare(both + ["--format", "json"]).stdoutBytes) as? [String: Any])
        let owners = try XCTUnwrap(json["owners"] as? [[String: Any]], "\(json)")
        func delta(_ owner: String) -> Int? {
            ((owners.first { $0["owner"] as? String == owner })?["backupFootprint"] as? [String: Any])?["delta"] as? Int
        }
        XCTAssertEqual(delta("Firebase"), 2_980_000, "\(owners)")
        XCTAssertEqual(delta("Realm"), 700_000, "\(owners)")
        XCTAssertEqual((json["added"] as? [[String: Any]])?.first?["owner"] as? String, "Realm")
        XCTAssertEqual((json["grew"] as? [[String: Any]])?.first?["owner"] as? String, "Firebase")
        for format in ["text", "markdown"] {
            let out = try compare(both + ["--format", format]).stdout
            XCTAssertTrue(out.contains("owner Firebase") && out.contains("owner Realm"), "\(format): \(out)")
        }
    }

    /// However large the inputs, the Markdown fits a GitHub comment and says how much it left out.
    func testMarkdownFitsAPullRequestCommentWhateverTheInput() throws {
        let dir = try TempDir()
        let long = String(repeating: "deep-folder-name/", count: 60)
        func baseline(_ count: Int, size: Int) -> [String: Any] {
            [
                "schemaVersion": 2, "kind": "sandbox-audit-baseline",
                "container": ["bundleIdentifier": "com.example.huge"],
                "backupFootprint": count * size,
                "files": (0..<count).map { i -> [String: Any] in
                    let domain = i % 3 == 0 ? "AppDomainGroup-group.example.\(i % 900)/" : ""
                    return [
                        "path": "\(domain)Documents/\(long)file-\(i)|`*_<b>", "size": size + i % 7, "mtime": 0,
                        "zone": "documents", "backedUp": true,
                    ]
                },
                "findings": (0..<count).map {
                    ["ruleId": "oversized-backed-up-file", "path": "Documents/\(long)finding-\($0)"]
                },
            ]
        }
        for (name, object) in [("base", baseline(6_000, size: 100)), ("head", baseline(9_000, size: 200))] {
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: dir.sub(name + ".json")))
        }
        let r = try compare([dir.sub("base.json"), dir.sub("head.json"), "--format", "markdown"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThanOrEqual(r.stdoutBytes.count, 65_536)
        XCTAssertGreaterThan(r.stdoutBytes.count, 2_000)
        // Cut lists of grown paths, new paths, new findings (lines) and domains (a table row).
        let cuts = try NSRegularExpression(pattern: #"^(- |\| )\*and [0-9,]+ more\*"#, options: .anchorsMatchLines)
        XCTAssertEqual(
            cuts.numberOfMatches(in: r.stdout, range: NSRange(r.stdout.startIndex..., in: r.stdout)), 4,
            String(r.stdout.prefix(3000)))
        XCTAssertTrue(r.stdout.contains("### Findings new in HEAD (3,000)"), String(r.stdout.prefix(3000)))
        XCTAssertFalse(r.stdout.contains("<b>"), "container text is escaped")
    }

    /// A baseline writes the paths of the app's other containers `DOMAIN/PATH`: compare counts
    /// them in their domain and names them that way.
    func testABaselinesOtherContainersAreTheirOwnDomains() throws {
        let dir = try TempDir()
        func write(_ name: String, _ files: [(String, Int)]) throws {
            let object: [String: Any] = [
                "schemaVersion": 2, "kind": "sandbox-audit-baseline",
                "container": ["bundleIdentifier": "com.example.app"],
                "backupFootprint": files.reduce(0) { $0 + $1.1 },
                "files": files.map { ["path": $0.0, "size": $0.1, "mtime": 0, "zone": "root", "backedUp": true] },
                "findings": [
                    [
                        "ruleId": "large-user-defaults",
                        "path": "AppDomainGroup-group.example/Library/Preferences/group.example.plist",
                    ]
                ],
            ]
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: dir.sub(name)))
        }
        try write("base.json", [("Documents/a", 10)])
        try write("head.json", [("Documents/a", 10), ("AppDomainGroup-group.example/Shared.sqlite", 500)])
        let r = try compare([dir.sub("base.json"), dir.sub("head.json"), "--format", "json"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any], r.stderr)
        let domains = try XCTUnwrap(json["domains"] as? [[String: Any]])
        XCTAssertEqual(
            domains.map { $0["domain"] as? String }, ["AppDomain-com.example.app", "AppDomainGroup-group.example"])
        XCTAssertEqual((domains[1]["backupFootprint"] as? [String: Any])?["delta"] as? Int, 500)
        let added = try XCTUnwrap((json["added"] as? [[String: Any]])?.first)
        XCTAssertEqual(added["domain"] as? String, "AppDomainGroup-group.example")
        XCTAssertEqual(added["path"] as? String, "Shared.sqlite")
        XCTAssertEqual(
            (json["newFindings"] as? [Any])?.count, 0, "the same finding on both sides is neither new nor fixed")
        let text = try compare([dir.sub("base.json"), dir.sub("head.json")]).stdout
        XCTAssertTrue(
            text.contains("+500 B  AppDomainGroup-group.example/Shared.sqlite (new → 500 B, backed up)"), text)
    }

    func testUnreadableOrWrongFilesExitTwoWithOneLine() throws {
        let dir = try TempDir()
        try Self.scanBaseAndHead(in: dir)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: dir.sub("text.json")))
        try Data(#"{"schemaVersion": 2, "results": []}"#.utf8).write(to: URL(fileURLWithPath: dir.sub("other.json")))
        try Data(#"{"schemaVersion": 2, "kind": "sandbox-audit-baseline", "backupFootprint": -5}"#.utf8).write(
            to: URL(fileURLWithPath: dir.sub("negative.json")))
        try Data(#"{"schemaVersion": 9, "kind": "sandbox-audit-baseline"}"#.utf8).write(
            to: URL(fileURLWithPath: dir.sub("future.json")))
        let good = dir.sub("base.json")
        let cases: [([String], String)] = [
            (
                [dir.sub("missing.json"), good],
                "cannot read BASE \(dir.sub("missing.json")): No such file or directory"
            ),
            ([good, dir.path], "cannot read HEAD \(dir.path): is a directory"),
            ([good, dir.sub("text.json")], "is not a sandbox-audit scan report"),
            ([dir.sub("other.json"), good], "BASE \(dir.sub("other.json")) is not a sandbox-audit scan report"),
            ([good, dir.sub("negative.json")], "backupFootprint is negative (-5)"),
            ([good, dir.sub("future.json")], "schemaVersion 9 is not supported"),
        ]
        for (arguments, message) in cases {
            let r = try compare(arguments)
            XCTAssertEqual(r.status, 2, "\(arguments): \(r.stdout)")
            XCTAssertTrue(r.stdout.isEmpty, "\(arguments)")
            XCTAssertTrue(
                r.stderr.hasPrefix("sandbox-audit: error: ") && r.stderr.contains(message), "\(arguments): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }
}
