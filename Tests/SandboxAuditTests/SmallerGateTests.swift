import Foundation
import XCTest

/// The smaller items of issue 46, each as it was found.
final class SmallerGateTests: XCTestCase {
    /// A `suppress:` entry could silence suppression-expired itself, keeping an expired entry
    /// in force for ever: such an entry is a configuration error now.
    func testSuppressionExpiredCannotBeSuppressed() throws {
        let dir = try TempDir("supsup")
        try Fixture.container(at: dir.sub("app"))
        try Fixture.bytes(
            dir.sub("policy.yml"),
            Array(
                """
                suppress:
                  - {rule: suppression-expired, path: "**", reason: quiet}
                """.utf8))
        let r = try CLI.run(["scan", dir.sub("app"), "--config", dir.sub("policy.yml")])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("suppress.rule: suppression-expired cannot be suppressed"), r.stderr)
    }

    /// `--write-baseline` exits 0 once written, and says it was written, even where the report's
    /// verdict reads FAILED.
    func testWriteBaselineSaysItWasWritten() throws {
        let dir = try TempDir("wrotebaseline")
        let r = try CLI.run([
            "scan", PluginTests.repository + "/sample-containers/Misbehaving", "--write-baseline", dir.sub("b.json"),
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("sandbox-audit: note: baseline written to \(dir.sub("b.json")) ("), r.stderr)
        XCTAssertTrue(r.stderr.contains("exit 0 whatever the verdict above"), r.stderr)
    }

    /// Growth contributors are what backup carries: a file that grew in Library/Caches is not one.
    func testGrowthContributorsAreBackedUpFiles() throws {
        let dir = try TempDir("growthcontrib")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        try Fixture.bytes(root + "/Documents/a.bin", [1])
        XCTAssertEqual(try CLI.run(["scan", root, "--write-baseline", dir.sub("b.json")]).status, 0)
        try Fixture.bytes(root + "/Library/Caches/huge.bin", [UInt8](repeating: 7, count: 900_000))
        try Fixture.bytes(root + "/Documents/grown.bin", [UInt8](repeating: 3, count: 200_000))
        try Fixture.bytes(dir.sub("policy.yml"), Array("growth:\n  backup: \"1%\"\n  min: 1kB\n".utf8))
        let (json, _) = try CLI.scanJSON([root, "--baseline", dir.sub("b.json"), "--config", dir.sub("policy.yml")])
        let growth = try XCTUnwrap((json["budgets"] as? [[String: Any]])?.first)
        XCTAssertEqual(
            (growth["contributors"] as? [[String: Any]])?.map { $0["path"] as? String }, ["Documents/grown.bin"])
    }

    /// A device folder given by a relative path: every container's data root is absolute.
    func testDataRootsAreAbsoluteForARelativeDeviceFolder() throws {
        let (json, r) = try CLI.scanJSON(
            ["sample-containers/MisbehavingDevice", "--app", "com.example.misbehaving"], cwd: PluginTests.repository)
        XCTAssertEqual(r.status, 1, r.stderr)  // the misbehaving sample has findings at error
        let root = (json["container"] as? [String: Any])?["dataRoot"] as? String ?? ""
        XCTAssertTrue(
            root.hasPrefix("/")
                && root.hasSuffix("/data/Containers/Data/Application/2F6A9D14-7B3C-4E58-A1D2-6C0B8E4F3A97"), root)
    }

    /// xcode and codeclimate lines point at files that exist: standard input is no file (the
    /// lines point at the working folder, the member named in the message).
    func testToolFormatsPointAtFilesThatExist() throws {
        try Tool.require("tar", for: "an archive is piped in")
        let dir = try TempDir("pointat")
        try Fixture.container(at: dir.sub("app"))
        try Fixture.file(dir.sub("app/Documents/big.bin"), size: 12_000_000)
        try sh("tar -cf - -C app . | \"$0\" scan --format xcode - > out.txt 2> err.txt || true", in: dir.path)
        let line = try String(contentsOfFile: dir.sub("out.txt"), encoding: .utf8).split(separator: "\n").first {
            $0.contains("big.bin")
        }
        XCTAssertEqual(
            line.map(String.init),
            "\(dir.path):1: warning: standard input: Documents/big.bin: 12.0 MB file is backed up (limit 10.0 MB) "
                + "[oversized-backed-up-file]"
        )
    }

    /// `--format metrics` of a backup: the figures a backup cannot give (its device's files
    /// beside what it backs up) are null and listed as not measured, not 0.
    func testMetricsOfABackupSayWhatItCannotMeasure() throws {
        typealias T = BackupFolderTests
        let dir = try TempDir("metricsbackup")
        try T.standard().write(to: dir.sub("B"))
        let r = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", "metrics"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        for key in [
            "totalDataFileCount", "dataFileContentSize", "cacheFolderContentSize", "cacheFileCount", "excludedSize",
            "keptOnUpdateSize",
        ] {
            XCTAssertTrue(m[key] is NSNull, "\(key): \(m[key] ?? "absent")")
        }
        XCTAssertTrue((m["notMeasured"] as? [String] ?? []).contains("totalDataFileCount"))
        XCTAssertFalse(m["backupSize"] is NSNull)
    }

    /// History compares like with like: a HEAD whose scan lost its `--app-group` does not count
    /// the group as removed (it hid that much growth): the note names the domain, its paths are
    /// neither removed nor added, and the growth verdict is on the domains both sides audited.
    func testCompareNamesDomainsOneSideDidNotAudit() throws {
        let dir = try TempDir("domainsets")
        let device = PluginTests.repository + "/sample-containers/MisbehavingDevice"
        let app = "com.example.misbehaving"
        let group = "group.com.example.misbehaving"
        XCTAssertEqual(
            try CLI.run(["scan", device, "--app", app, "--app-group", group, "--write-baseline", dir.sub("base.json")])
                .status, 0)
        XCTAssertEqual(try CLI.run(["scan", device, "--app", app, "--write-baseline", dir.sub("head.json")]).status, 0)
        let r = try CLI.run([
            "compare", dir.sub("base.json"), dir.sub("head.json"), "--format", "json", "--fail-on-growth", "0",
            "--allow-incomplete",
        ])
        XCTAssertEqual(r.status, 0, "no growth on the domains both audited: \(r.stdout) \(r.stderr)")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        let notes = json["notes"] as? [String] ?? []
        XCTAssertTrue(
            notes.contains { $0.hasPrefix("only BASE audited AppDomainGroup-\(group): HEAD did not") }, "\(notes)")
        let removed = json["removed"] as? [[String: Any]] ?? []
        XCTAssertFalse(removed.contains { ($0["domain"] as? String) == "AppDomainGroup-\(group)" }, "\(removed)")
        // A trend over the same two says the group was not audited in file 2.
        let t = try CLI.run(["trend", dir.sub("base.json"), dir.sub("head.json"), "--format", "json"])
        let tj = try XCTUnwrap(try JSONSerialization.jsonObject(with: t.stdoutBytes) as? [String: Any])
        XCTAssertTrue(
            (tj["notes"] as? [String] ?? []).contains {
                $0.hasPrefix("AppDomainGroup-\(group) was not audited in file 2")
            }, t.stdout)
    }
}
