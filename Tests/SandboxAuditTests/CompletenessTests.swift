import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// A scan that could not read part of the container says so in every format and fails unless
/// `--allow-incomplete` accepts it. Run as `nobody` (permissions mean nothing to root).
final class CompletenessTests: XCTestCase {
    var asNobody: Bool { geteuid() == 0 }

    /// A container readable by `nobody`, with Library/Caches/feed.sqlite (a SQLite store) and
    /// a backed-up file in Library/Application Support.
    func container(_ dir: TempDir) throws -> String {
        if asNobody { try Tool.require("setpriv", for: "runs the commands as a user other than root") }
        chmod(dir.path, 0o755)
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 2_000)
        try Fixture.file(root + "/Library/Application Support/store.bin", size: 8_000)
        try Fixture.bytes(root + "/Library/Caches/feed.sqlite", VolatileStore.sampleSQLiteFile)
        return root
    }

    func scan(_ args: [String]) throws -> CLI.Result { try CLI.run(["scan"] + args, asNobody: asNobody) }

    func testUnreadableFolderFailsTheScanInEveryFormat() throws {
        let dir = try TempDir("incomplete")
        let root = try container(dir)
        // Complete first: passes apart from the volatile store (a warning).
        let before = try scan([root])
        XCTAssertEqual(before.status, 0, before.stdout + before.stderr)
        XCTAssertFalse(before.stdout.contains("INCOMPLETE"))

        // As root the scan runs as nobody, for whom 0o700 of root's folder is unreadable; as any
        // other user (a Mac) the folder is made unreadable to its owner too.
        chmod(root + "/Library", asNobody ? 0o700 : 0o000)
        defer { chmod(root + "/Library", 0o755) }
        let text = try scan([root])
        XCTAssertEqual(text.status, 1, text.stdout + text.stderr)
        let lines = text.stdout.split(separator: "\n").map(String.init)
        XCTAssertTrue(
            lines.prefix(3).contains { $0.hasPrefix("INCOMPLETE SCAN: 1 item could not be read") }, text.stdout)
        XCTAssertTrue(text.stdout.contains("not read: Library: open directory (Permission denied)"), text.stdout)
        XCTAssertTrue(lines.last!.hasPrefix("FAILED: incomplete scan, 1 not read"), text.stdout)

        let accepted = try scan([root, "--allow-incomplete"])
        XCTAssertEqual(accepted.status, 0, accepted.stdout + accepted.stderr)
        XCTAssertTrue(accepted.stdout.contains("INCOMPLETE SCAN"))
        XCTAssertTrue(
            accepted.stdout.split(separator: "\n").last!.hasPrefix(
                "PASSED: nothing at or above error; incomplete scan: 1 not read, accepted by --allow-incomplete"),
            accepted.stdout)

        // Every format, from one run; the report files go where nobody may write.
        let out = try TempDir("incomplete-out")
        chmod(out.path, 0o777)
        var outputs: [String] = []
        for f in ReportFormat.allCases where f != .json {
            outputs += ["--output", "\(f.rawValue)=\(out.sub("report.\(f.rawValue)"))"]
        }
        let r = try scan([root, "--format", "json"] + outputs)
        XCTAssertEqual(r.status, 1, r.stderr)
        let json = try JSONSerialization.jsonObject(with: r.stdoutBytes) as! [String: Any]
        XCTAssertEqual(json["complete"] as? Bool, false)
        let missed = json["missed"] as! [[String: Any]]
        XCTAssertEqual(missed.count, 1)
        XCTAssertEqual(missed[0]["path"] as? String, "Library")
        XCTAssertEqual(missed[0]["what"] as? String, "open directory")
        XCTAssertEqual(missed[0]["why"] as? String, "Permission denied")
        XCTAssertEqual(missed[0]["domain"] as? String, (json["container"] as! [String: Any])["domain"] as? String)
        XCTAssertEqual((json["summary"] as! [String: Any])["failed"] as? Bool, true)
        // The footprint is what was read: Documents only.
        XCTAssertEqual((json["totals"] as! [String: Any])["backupFootprint"] as? Int, 2_000)

        let sarif = out.sub("report.sarif")
        XCTAssertEqual(
            try python(ReportTests.validateSARIF, [ReportTests.schema, sarif]).split(separator: " ").count, 2)
        let invocation = try python(
            """
            import json, sys
            run = json.load(open(sys.argv[1]))["runs"][0]
            inv = run["invocations"][0]
            n = [x for x in inv["toolExecutionNotifications"] if x["level"] == "error"]
            print(inv["executionSuccessful"], len(n), n[0]["message"]["text"], \
            n[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            """, [sarif])
        XCTAssertEqual(
            invocation,
            "False 1 Not read: Library: open directory (Permission denied); the figures and findings leave it out "
                + "Library\n"
        )

        let junit = out.sub("report.junit")
        _ = try python(ReportTests.readJUnit, [junit])
        let junitCase = try python(
            """
            import sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            case = [c for c in root.iter("testcase") if c.get("classname") == "scan"][0]
            print(case.get("name"), case.find("failure").get("type"), case.find("failure").text)
            """, [junit])
        XCTAssertEqual(junitCase, "complete incomplete Library: open directory (Permission denied)\n")

        let github = try String(contentsOfFile: out.sub("report.github"), encoding: .utf8)
        XCTAssertTrue(
            github.hasPrefix(
                "::error title=incomplete scan (sandbox-audit)::INCOMPLETE SCAN: 1 item could not be read"), github)
        for f in ["markdown", "html"] {
            let report = try String(contentsOfFile: out.sub("report.\(f)"), encoding: .utf8)
            XCTAssertTrue(report.contains("INCOMPLETE SCAN: 1 item could not be read"), f)
        }

        // Accepted: the GitHub annotation is a warning and JUnit carries it as system-err.
        let acceptedGitHub = try scan([root, "--format", "github", "--allow-incomplete"])
        XCTAssertEqual(acceptedGitHub.status, 0)
        XCTAssertTrue(
            acceptedGitHub.stdout.hasPrefix("::warning title=incomplete scan (sandbox-audit)::"), acceptedGitHub.stdout)
        let acceptedJUnit = try scan([root, "--format", "junit", "--allow-incomplete"])
        XCTAssertTrue(acceptedJUnit.stdout.contains("<system-err>INCOMPLETE SCAN"), acceptedJUnit.stdout)
        XCTAssertFalse(acceptedJUnit.stdout.contains("type=\"incomplete\""))
    }

    /// A file a rule needs to look inside, unreadable: the rule's finding is not silently lost,
    /// an unreadable-entry names what was not checked, and the scan is incomplete.
    func testUnreadableContentIsReportedAsNotChecked() throws {
        let dir = try TempDir("incomplete")
        let root = try container(dir)
        let readable = try CLI.scanJSON([root]).json
        XCTAssertEqual((readable["findings"] as! [[String: Any]]).map { $0["ruleId"] as! String }, ["volatile-store"])

        chmod(root + "/Library/Caches/feed.sqlite", 0)
        try Fixture.plist(root + "/Library/Preferences/com.example.app.plist", keys: [("big", 600_000)])
        chmod(root + "/Library/Preferences/com.example.app.plist", 0)
        let r = try scan([root, "--format", "json"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let json = try JSONSerialization.jsonObject(with: r.stdoutBytes) as! [String: Any]
        XCTAssertEqual(json["complete"] as? Bool, false)
        let findings = (json["findings"] as! [[String: Any]]).map {
            "\($0["ruleId"]!) \($0["path"]!): \($0["message"]!)"
        }
        XCTAssertTrue(
            findings.contains(
                "unreadable-entry Library/Caches/feed.sqlite: could not read the first bytes of "
                    + "Library/Caches/feed.sqlite: volatile-store not checked (Permission denied)"
            ), "\(findings)")
        XCTAssertTrue(
            findings.contains {
                $0.hasPrefix(
                    "unreadable-entry Library/Preferences/com.example.app.plist: could not read the contents of "
                        + "Library/Preferences/com.example.app.plist: large-user-defaults"
                )
            }, "\(findings)")
        let missed = (json["missed"] as! [[String: Any]]).map { "\($0["path"]!) | \($0["what"]!) | \($0["why"]!)" }
        XCTAssertEqual(
            missed,
            [
                "Library/Caches/feed.sqlite | read the first bytes: volatile-store not checked | Permission denied",
                "Library/Preferences/com.example.app.plist | read the contents: large-user-defaults could not name "
                    + "its largest keys | Permission denied",
            ])
    }
}
