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
#endif

/// Baselines record inode and exclusion; `exclusion-lost` compares two observations of a file.
final class ExclusionLostTests: XCTestCase {
    let db = "Library/Application Support/index.db"

    func inode(_ path: String) throws -> UInt64 {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw SystemError(operation: "lstat", path: path) }
        return UInt64(st.st_ino)
    }

    /// A container with an excluded database and a backed-up document, and its baseline file.
    func release(_ dir: TempDir) throws -> String {
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/" + db, size: 3000)
        try BackupMarker.set(.exclude, value: BackupAttribute.canonicalValue, on: root + "/" + db, carrier: .native)
        try Fixture.file(root + "/Documents/notes.txt", size: 100)
        let r = try CLI.run(["scan", root, "--write-baseline", dir.sub("baseline.json")])
        XCTAssertEqual(r.status, 0, r.stderr)
        return root
    }

    func lost(_ root: String, _ baseline: String) throws -> [[String: Any]] {
        let (json, r) = try CLI.scanJSON([root, "--baseline", baseline])
        XCTAssertEqual(r.status, 0, "a warning does not fail at the default --fail-on error: \(r.stderr)")
        return (json["findings"] as? [[String: Any]] ?? []).filter { $0["ruleId"] as? String == "exclusion-lost" }
    }

    func testTheBaselineRecordsInodeAndExclusion() throws {
        let dir = try TempDir()
        let root = try release(dir)
        let json =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("baseline.json"))))
            as! [String: Any]
        XCTAssertEqual(json["schemaVersion"] as? Int, 3)
        let files = Dictionary(
            uniqueKeysWithValues: (json["files"] as! [[String: Any]]).map { ($0["path"] as! String, $0) })
        XCTAssertEqual((files[db]?["inode"] as? NSNumber)?.uint64Value, try inode(root + "/" + db))
        XCTAssertEqual(files[db]?["excluded"] as? Bool, true)
        XCTAssertEqual(files["Documents/notes.txt"]?["excluded"] as? Bool, false)
        XCTAssertEqual(
            (files["Documents/notes.txt"]?["inode"] as? NSNumber)?.uint64Value, try inode(root + "/Documents/notes.txt")
        )
        let loaded = try Baseline.load(dir.sub("baseline.json"))
        XCTAssertEqual(loaded.files[ContainerPath(db)]?.inode, try inode(root + "/" + db))
        XCTAssertEqual(loaded.files[ContainerPath(db)]?.excluded, true)
    }

    func testAFileReplacedByAnAtomicWriteSaysTheInodeChanged() throws {
        let dir = try TempDir()
        let root = try release(dir)
        let before = try inode(root + "/" + db)
        // An atomic write: a new file beside, renamed over the old one (no attribute on it).
        try Fixture.file(root + "/Library/Application Support/.index.db.new", size: 5000)
        XCTAssertEqual(rename(root + "/Library/Application Support/.index.db.new", root + "/" + db), 0)
        let after = try inode(root + "/" + db)
        XCTAssertNotEqual(before, after)
        let found = try lost(root, dir.sub("baseline.json"))
        XCTAssertEqual(found.map { $0["path"] as? String }, [db])
        XCTAssertEqual(found.first?["severity"] as? String, "warning")
        XCTAssertEqual(found.first?["size"] as? Int, 5000)
        XCTAssertEqual(
            found.first?["message"] as? String,
            "excluded from backup in the baseline, backed up now (5.00 kB): replaced since the baseline: inode "
                + "\(before) → \(after); an atomic write makes a new file without the attribute: set it again after "
                + "every save"
        )
        // Setting the attribute again after the save silences it.
        try BackupMarker.set(.exclude, value: BackupAttribute.canonicalValue, on: root + "/" + db, carrier: .native)
        XCTAssertEqual(try lost(root, dir.sub("baseline.json")).count, 0)
    }

    func testAnAttributeRemovedWithRemovexattrKeepsTheInode() throws {
        let dir = try TempDir()
        let root = try release(dir)
        let before = try inode(root + "/" + db)
        XCTAssertTrue(try XAttr.remove(path: Array((root + "/" + db).utf8), name: BackupAttribute.exclude.nativeName))
        XCTAssertEqual(try inode(root + "/" + db), before)
        let found = try lost(root, dir.sub("baseline.json"))
        XCTAssertEqual(found.map { $0["path"] as? String }, [db])
        XCTAssertEqual(
            found.first?["message"] as? String,
            "excluded from backup in the baseline, backed up now (3.00 kB): the same file (inode \(before)): the "
                + "attribute was removed"
        )
        // --fail-on warning holds it in CI.
        XCTAssertEqual(
            try CLI.run(["scan", root, "--baseline", dir.sub("baseline.json"), "--fail-on", "warning"]).status, 1)
    }

    func testAFileInAnExcludedFolderMovedOutOfItIsLostToo() throws {
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Application Support/Models/a.bin", size: 2000)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/Models",
            carrier: .native)
        let baseline = Baseline(try audit(root))
        XCTAssertEqual(
            baseline.files[ContainerPath("Library/Application Support/Models/a.bin")]?.excluded, true,
            "inherited from its folder")
        XCTAssertTrue(
            try XAttr.remove(
                path: Array((root + "/Library/Application Support/Models").utf8),
                name: BackupAttribute.exclude.nativeName))
        let found = try audit(root, baseline: baseline).findings.filter { $0.ruleId == "exclusion-lost" }
        XCTAssertEqual(found.map(\.path?.display), ["Library/Application Support/Models/a.bin"])
        XCTAssertTrue(found.first?.message.hasSuffix("the attribute was removed") == true, found.first?.message ?? "")
    }

    func testAVersion1BaselineStillLoadsAndInfersNothing() throws {
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/" + db, size: 3000)
        // Written by the previous release of the tool: no inode, no excluded.
        let v1 = """
            {"schemaVersion": 1, "kind": "sandbox-audit-baseline", "container": {"bundleIdentifier": null, "version": \
            null},
             "backupFootprint": 0, "zones": [], "findings": [{"ruleId": "unexcluded-support-data", "path": "\(db)"}],
             "files": [{"path": "\(db)", "size": 3000, "mtime": 1795310354, "zone": "applicationSupport", "backedUp": \
            false}]}
            """
        try Fixture.bytes(dir.sub("v1.json"), Array(v1.utf8))
        let b = try Baseline.load(dir.sub("v1.json"))
        XCTAssertEqual(b.files[ContainerPath(db)]?.size, 3000)
        XCTAssertNil(b.files[ContainerPath(db)]?.inode)
        XCTAssertNil(b.files[ContainerPath(db)]?.excluded)
        let (json, r) = try CLI.scanJSON([root, "--baseline", dir.sub("v1.json")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(
            (json["findings"] as? [[String: Any]])?.filter { $0["ruleId"] as? String == "exclusion-lost" }.count, 0)
        // Another version is refused in one line.
        try Fixture.bytes(
            dir.sub("v9.json"),
            Array(v1.replacingOccurrences(of: "\"schemaVersion\": 1", with: "\"schemaVersion\": 9").utf8))
        let bad = try CLI.run(["scan", root, "--baseline", dir.sub("v9.json")])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(
            bad.stderr,
            "sandbox-audit: error: \(dir.sub("v9.json")): baseline schemaVersion 9 is not supported (expected 1, 2 "
                + "or 3)\n"
        )
    }
}
