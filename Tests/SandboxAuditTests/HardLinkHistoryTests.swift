import Foundation
import XCTest

/// History compares like with like: a hard-linked file is one file whatever name a scan records
/// it under, so renaming the name a baseline recorded invents no removal and no addition.
final class HardLinkHistoryTests: XCTestCase {
    /// A 300 kB file with two names, `Documents/a.bin` and `Documents/z.bin`; after the first
    /// baseline, `a.bin` is renamed `m.bin`: the file and its bytes are unchanged.
    private func history() throws -> (TempDir, before: String, after: String) {
        let dir = try TempDir("hardlinkhistory")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        try Fixture.bytes(root + "/Documents/a.bin", [UInt8](repeating: 5, count: 300_000))
        try FileManager.default.linkItem(atPath: root + "/Documents/a.bin", toPath: root + "/Documents/z.bin")
        XCTAssertEqual(try CLI.run(["scan", root, "--write-baseline", dir.sub("before.json")]).status, 0)
        try FileManager.default.moveItem(atPath: root + "/Documents/a.bin", toPath: root + "/Documents/m.bin")
        XCTAssertEqual(try CLI.run(["scan", root, "--write-baseline", dir.sub("after.json")]).status, 0)
        return (dir, dir.sub("before.json"), dir.sub("after.json"))
    }

    func testTheBaselineRecordsEveryName() throws {
        let (dir, before, after) = try history()
        _ = dir
        for (file, counted, other) in [
            (before, "Documents/a.bin", "Documents/z.bin"), (after, "Documents/m.bin", "Documents/z.bin"),
        ] {
            let json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
            let files = try XCTUnwrap(json["files"] as? [[String: Any]])
            XCTAssertEqual(files.map { $0["path"] as? String }, [counted], "one record per file")
            XCTAssertEqual((files[0]["links"] as? [[String: Any]])?.map { $0["path"] as? String }, [other])
        }
    }

    func testScanAgainstTheBaselineSeesNoChange() throws {
        let (dir, before, _) = try history()
        let (json, r) = try CLI.scanJSON([dir.sub("app"), "--baseline", before])
        XCTAssertEqual(r.status, 0, r.stderr)
        let comparison = try XCTUnwrap(json["baseline"] as? [String: Any], "\(json.keys)")
        XCTAssertEqual((comparison["added"] as? [Any])?.count, 0, "\(comparison)")
        XCTAssertEqual((comparison["removed"] as? [Any])?.count, 0, "\(comparison)")
        XCTAssertEqual(comparison["churn"] as? Int, 0, "\(comparison)")
    }

    func testCompareSeesNoChange() throws {
        let (dir, before, after) = try history()
        _ = dir
        let r = try CLI.run(["compare", before, after, "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        for count in ["addedCount", "removedCount", "grewCount"] {
            XCTAssertEqual(json[count] as? Int, 0, "\(count): \(json)")
        }
    }

    func testTrendSeesNoChange() throws {
        let (dir, before, after) = try history()
        _ = dir
        let r = try CLI.run(["trend", before, after, "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        XCTAssertEqual(json["grewCount"] as? Int, 0, "\(json)")
    }

    /// A file that names one path both as a file and as another's other name is refused.
    func testALinkNamingAFileIsRefused() throws {
        let dir = try TempDir("hardlinkbad")
        try Fixture.bytes(
            dir.sub("b.json"),
            Array(
                """
                {"schemaVersion": 3, "kind": "sandbox-audit-baseline", "backupFootprint": 2, "zones": [], "findings": \
                [], "files": [
                 {"path": "Documents/a", "size": 1, "mtime": 0, "zone": "documents", "backedUp": true, "links": \
                [{"path": "Documents/b"}]},
                 {"path": "Documents/b", "size": 1, "mtime": 0, "zone": "documents", "backedUp": true}]}
                """.utf8))
        let r = try CLI.run(["compare", dir.sub("b.json"), dir.sub("b.json")])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(
            r.stderr.contains("name Documents/b both as a file's path and as another file's other name (links)"),
            r.stderr)
    }
}
