import Foundation
import XCTest

@testable import SandboxAuditSystem

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
        XCTAssertTrue(
            (json["findings"] as! [[String: Any]]).contains { $0["ruleId"] as? String == "budget-exceeded" }, label)
        XCTAssertFalse(
            (json["notChecked"] as? [[String: Any]] ?? []).contains { $0["ruleId"] as? String == "budget-exceeded" },
            label)
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
        try SimulatorDeviceTests.plist(
            clip, ["CFBundleIdentifier": "com.example.misbehaving.Clip", "NSAppClip": [:] as [String: Any]])
        for (label, args, input) in [
            ("folder", [sample], sample), ("archive", [dir.sub("mis.tgz")], dir.sub("mis.tgz")),
        ] {
            for extra in [["--app", "com.other.app"], ["--app", "com.example.misbehaving.Clip", "--app-info", clip]] {
                let r = try CLI.run(["scan"] + args + extra)
                XCTAssertEqual(r.status, 2, "\(label) \(extra): \(r.stdout)")
                XCTAssertEqual(
                    r.stderr, "sandbox-audit: error: \(input) belongs to com.example.misbehaving, not \(extra[1])\n",
                    label)
            }
        }
        try sh("\"$0\" scan - --app com.other.app < mis.tgz > out.txt 2> err.txt; echo $? > rc", in: dir.path)
        XCTAssertEqual(try String(contentsOfFile: dir.sub("rc"), encoding: .utf8), "2\n")
        XCTAssertEqual(
            try String(contentsOfFile: dir.sub("err.txt"), encoding: .utf8),
            "sandbox-audit: error: standard input belongs to com.example.misbehaving, not com.other.app\n")
        // Its own identifier is accepted.
        XCTAssertEqual(try CLI.run(["scan", dir.sub("mis.tgz"), "--app", "com.example.misbehaving"]).status, 1)
    }

    /// The README's own pipeline with GNU tar (no --xattrs) and a Linux `zip -r` carry no
    /// attribute: the report says so in every format, the exclusion rules are not checked, and
    /// the footprint counts the excluded file (an upper bound). With --xattrs, nothing is lost.
    func testAnArchiveWithoutAttributesSaysWhatItLost() throws {
        try Tool.require("tar", "zip", for: "the container is archived as Linux CI does")
        let dir = try TempDir("lostattrs")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        try Fixture.bytes(root + "/Documents/excluded.bin", (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try Fixture.bytes(root + "/Documents/kept.bin", [1, 2, 3])
        XCTAssertEqual(try CLI.run(["exclude", root + "/Documents/excluded.bin"]).status, 0)
        guard try XAttr.names(.path(Array((root + "/Documents/excluded.bin").utf8))).isEmpty == false else {
            throw XCTSkip("this file system keeps no user attributes")
        }
        guard let gnu = GNUTar.command else { throw XCTSkip("needs GNU tar (without --xattrs it keeps no attribute)") }
        let keeping = "\(gnu) --xattrs --xattrs-include='*'"
        try sh(
            "\(gnu) -cf plain.tar -C app . && \(keeping) -cf kept.tar -C app . && (cd app && zip -qr ../app.zip .)",
            in: dir.path)
        for (label, path, lost) in [
            ("GNU tar", dir.sub("plain.tar"), true), ("zip -r", dir.sub("app.zip"), true),
            ("GNU tar --xattrs", dir.sub("kept.tar"), false),
        ] {
            let (json, r) = try CLI.scanJSON([path])
            XCTAssertEqual(r.status, 0, "\(label): \(r.stderr)")  // a lost exclusion is a warning
            let footprint = (json["totals"] as? [String: Any])?["backupFootprint"] as? Int
            XCTAssertEqual(footprint, lost ? 200_003 : 3, label)
            let notes = json["notes"] as? [String] ?? []
            XCTAssertEqual(
                notes.contains { $0.contains("carries no extended attributes") && $0.contains("upper bound") }, lost,
                "\(label): \(notes)")
            let notChecked = (json["notChecked"] as? [[String: Any]] ?? []).filter {
                $0["ruleId"] as? String == "excluded-user-data"
            }
            XCTAssertEqual(notChecked.first?["needs"] as? [String], lost ? ["attributesOnDisk"] : nil, label)
            for format in ["text", "sarif", "junit", "markdown"] where lost {
                let out = try CLI.run(["scan", path, "--format", format]).stdout
                XCTAssertTrue(out.contains("which this archive does not carry"), "\(label) \(format)")
            }
        }
        // Through standard input, as the README's pipeline runs it.
        try sh("\(gnu) -cf - -C app . | \"$0\" scan --format json - > out.json 2> err.txt || true", in: dir.path)
        let piped =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("out.json"))))
            as! [String: Any]
        XCTAssertTrue(
            (piped["notes"] as? [String] ?? []).contains {
                $0.hasPrefix("standard input carries no extended attributes")
            })
    }

    /// A device backup holds only what iOS backs up: never an item at the data root, tmp,
    /// Library/Caches, a FIFO or an excluded -wal. The rules about those are "not checked" on
    /// a backup, saying why, in every format (they ran, found nothing, and were not listed).
    func testRulesWhoseSubjectABackupNeverHoldsAreNotCheckedThere() throws {
        typealias T = BackupFolderTests
        let dir = try TempDir("backupblind")
        try T.standard().write(to: dir.sub("B"))
        let blind = [
            "misplaced-at-root", "stale-temporary-file", "volatile-store", "special-file", "split-store-backup",
        ]
        let (json, r) = try CLI.scanJSON([dir.sub("B"), "--app", T.app])
        XCTAssertEqual(r.status, 0, r.stderr)
        let notChecked = json["notChecked"] as? [[String: Any]] ?? []
        for rule in blind {
            let entry = notChecked.first { $0["ruleId"] as? String == rule }
            XCTAssertEqual(entry?["needs"] as? [String], ["itemsNotBackedUp"], rule)
        }
        let junit = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", "junit"]).stdout
        XCTAssertTrue(
            junit.contains("<testcase classname=\"misplaced-at-root\" name=\"")
                && junit.contains("needs the items iOS does not back up"), junit)
        // On the container itself they run.
        let folder = try CLI.scanJSON([PluginTests.repository + "/sample-containers/WellBehaved"]).json
        XCTAssertFalse(
            (folder["notChecked"] as? [[String: Any]] ?? []).contains { blind.contains($0["ruleId"] as? String ?? "") })
    }

    /// 1.34 MB of downloaded images under an App Group's root `Downloads/…/Images/` was backed up
    /// with no finding (recreatable-in-documents looks in Documents only): now one finding with
    /// what each backup saves, in every format.
    func testDownloadedContentOutsideDocumentsIsFound() throws {
        let dir = try TempDir("groupdownloads")
        let root = dir.sub("group")
        try Fixture.mkdirs(root + "/Library/Caches")
        for i in 0..<4 {
            try Fixture.bytes(
                root + "/Downloads/feed-\(i)/Images/\(i).jpg", [UInt8](repeating: UInt8(i), count: 335_000))
        }
        let (json, r) = try CLI.scanJSON([root, "--kind", "group"])
        XCTAssertEqual(r.status, 0, r.stderr)  // recreatable-backed-up is a warning
        let found = (json["findings"] as! [[String: Any]]).filter { $0["ruleId"] as? String == "recreatable-backed-up" }
        XCTAssertEqual(found.map { $0["path"] as? String }, ["Downloads"])
        XCTAssertEqual(found.first?["size"] as? Int, 1_340_000)
        XCTAssertTrue(
            (found.first?["message"] as? String ?? "").hasSuffix("each backup would be 1.34 MB smaller without it"))
        for format in ["text", "sarif", "junit"] {
            XCTAssertTrue(
                try CLI.run(["scan", root, "--kind", "group", "--format", format]).stdout.contains(
                    "recreatable-backed-up"), format)
        }
    }
}
