import Foundation
import XCTest

/// A measured limit that is exceeded fails the run, whichever policy section holds it, alone
/// in its policy (issue 46): a growth limit alone printed "EXCEEDED", listed budget-exceeded as
/// not checked, and passed.
final class GateTests: XCTestCase {
    /// A container that grew by 3 MB since its baseline, and `policy` alone: every format says
    /// the run failed, the finding is there, and budget-exceeded is not "not checked".
    func assertFails(policy: String, label: String) throws {
        let dir = try TempDir("gate")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        try Fixture.bytes(root + "/Documents/small.bin", [UInt8](repeating: 1, count: 50_000))
        XCTAssertEqual(try CLI.run(["scan", root, "--write-baseline", dir.sub("base.json")]).status, 0)
        try Fixture.bytes(root + "/Documents/grown.bin", (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try Fixture.bytes(dir.sub("policy.yml"), Array(policy.utf8))
        let options = [root, "--baseline", dir.sub("base.json"), "--config", dir.sub("policy.yml")]
        let args = ["scan"] + options
        let (json, run) = try CLI.scanJSON(options)
        XCTAssertEqual(run.status, 1, "\(label): \(run.stderr)")
        XCTAssertEqual((json["summary"] as? [String: Any])?["failed"] as? Bool, true, label)
        XCTAssertTrue((json["findings"] as! [[String: Any]]).contains { $0["ruleId"] as? String == "budget-exceeded" }, label)
        XCTAssertFalse((json["notChecked"] as? [[String: Any]] ?? []).contains { $0["ruleId"] as? String == "budget-exceeded" }, label)
        for format in ["text", "sarif", "junit"] {
            let r = try CLI.run(args + ["--format", format])
            XCTAssertEqual(r.status, 1, "\(label) \(format)")
            XCTAssertFalse(r.stdout.contains("PASSED"), "\(label) \(format)")
            if format == "text" { XCTAssertFalse(r.stdout.contains("budget-exceeded: not checked"), r.stdout) }
        }
    }

    func testAGrowthLimitAloneFails() throws {
        try assertFails(policy: "growth:\n  backup: \"10%\"\n  min: 100kB\n", label: "growth")
    }

    func testAChurnLimitAloneFails() throws {
        try assertFails(policy: "budgets:\n  churn: 100kB\n", label: "churn")
    }

    func testABackupBudgetAloneFails() throws {
        try assertFails(policy: "budgets:\n  backup: 1MB\n", label: "budgets")
    }

    /// `--app` is checked on every input kind: an archive and standard input holding another
    /// app's container are refused as a folder is, so an App Clip's Info.plist cannot zero the
    /// footprint of another app's archive.
    func testIdentityIsCheckedOnArchivesAndStandardInput() throws {
        try Tool.require("tar", for: "the sample is archived")
        let dir = try TempDir("identity")
        let sample = PluginTests.repository + "/sample-containers/Misbehaving"
        try sh("tar -czf mis.tgz -C '\(sample)' .", in: dir.path)
        let clip = dir.sub("clip.plist")
        try SimulatorDeviceTests.plist(clip, ["CFBundleIdentifier": "com.example.misbehaving.Clip", "NSAppClip": [:] as [String: Any]])
        for (label, args, input) in [("folder", [sample], sample), ("archive", [dir.sub("mis.tgz")], dir.sub("mis.tgz"))] {
            for extra in [["--app", "com.other.app"], ["--app", "com.example.misbehaving.Clip", "--app-info", clip]] {
                let r = try CLI.run(["scan"] + args + extra)
                XCTAssertEqual(r.status, 2, "\(label) \(extra): \(r.stdout)")
                XCTAssertEqual(r.stderr, "sandbox-audit: error: \(input) belongs to com.example.misbehaving, not \(extra[1])\n", label)
            }
        }
        try sh("\"$0\" scan - --app com.other.app < mis.tgz > out.txt 2> err.txt; echo $? > rc", in: dir.path)
        XCTAssertEqual(try String(contentsOfFile: dir.sub("rc"), encoding: .utf8), "2\n")
        XCTAssertEqual(try String(contentsOfFile: dir.sub("err.txt"), encoding: .utf8), "sandbox-audit: error: standard input belongs to com.example.misbehaving, not com.other.app\n")
        // Its own identifier is accepted.
        XCTAssertEqual(try CLI.run(["scan", dir.sub("mis.tgz"), "--app", "com.example.misbehaving"]).status, 1)
    }
}
