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

/// `simulate`: predictions, materialised trees checked against them and against domain.md's
/// rules, and failures that leave nothing behind.
final class SimulationTests: XCTestCase {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("sample-containers").path

    /// A container with excluded folders and files, hard links, symlinks, a sparse file, a
    /// FIFO, other attributes, and items in every zone.
    func makeContainer(_ root: String) throws {
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 1200)
        try Fixture.file(root + "/Documents/Drafts/a.md", size: 40)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Documents/Drafts", carrier: .native)
        try Fixture.file(root + "/Library/Application Support/Packs/p1.zip", size: 3_000_000)  // sparse
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/Packs",
            carrier: .sidecar)
        try Fixture.file(root + "/Library/Application Support/index.db", size: 5000)
        try XAttr.set(
            path: Array((root + "/Library/Application Support/index.db").utf8), name: "user.example.tag",
            value: Array("blue".utf8))
        try Fixture.file(root + "/Library/Application Support/one.bin", size: 20)
        try BackupMarker.set(
            .exclude, value: Array("com.apple.backupd".utf8), on: root + "/Library/Application Support/one.bin",
            carrier: .native)
        try Fixture.file(root + "/Library/Caches/c.json", size: 700)
        try Fixture.bytes(root + "/Library/Caches/offline.sqlite", VolatileStore.sampleSQLiteFile)
        try Fixture.file(root + "/Library/Preferences/com.example.plist", size: 90)
        try Fixture.file(root + "/tmp/upload.part", size: 300)
        try Fixture.file(root + "/Downloads/ep1.mp3", size: 2_000_000)
        XCTAssertEqual(link(root + "/Documents/notes.txt", root + "/Library/Application Support/notes-link.txt"), 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/Documents/latest", withDestinationPath: "notes.txt")
        XCTAssertEqual(mkfifo(root + "/Library/Application Support/ipc", 0o600), 0)
        chmod(root + "/Documents/notes.txt", 0o640)
        try Fixture.setAge(root + "/Documents/notes.txt", 5 * 86_400)
    }

    /// Independent of the library: what each event may leave, by path.
    func allowed(_ event: SimulatedEvent, _ path: String) -> Bool {
        let inCaches = path.hasPrefix("Library/Caches/")
        let inTmp = path.hasPrefix("tmp/")
        switch event {
        case .update: return !inTmp && (path.hasPrefix("Documents") || path.hasPrefix("Library"))
        case .purge: return !inCaches && !inTmp
        case .restore:
            // Backup carries only Documents and Library (and GeoJSON): items at the root are lost.
            let excluded = [
                "Documents/Drafts", "Library/Application Support/Packs", "Library/Application Support/one.bin",
            ]
            return !inCaches && !inTmp && (path.hasPrefix("Documents") || path.hasPrefix("Library"))
                && !excluded.contains { path == $0 || path.hasPrefix($0 + "/") }
        }
    }

    func testEveryEventMaterialisesItsPrediction() throws {
        let dir = try TempDir("sim")
        let root = dir.sub("App")
        try makeContainer(root)
        let before = try WalkTests.snapshot(root)
        for event in SimulatedEvent.allCases {
            let out = dir.sub("after-\(event.rawValue)")
            let r = try CLI.run(["simulate", event.rawValue, root, "--into", out, "--verify"])
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
            XCTAssertTrue(r.stdout.contains("verified: the materialised container matches the prediction"), r.stdout)
            let inv = try Audit.inventory(of: out)
            for e in inv.entries where !Zone.containerDirectories.contains(e.path) {
                XCTAssertTrue(allowed(event, e.path.display), "\(event): \(e.path.display) should be gone")
            }
            let paths = Set(inv.entries.map(\.path.display))
            // Container folders stay, empty where the event empties them.
            XCTAssertTrue(paths.contains("Library/Caches") && paths.contains("tmp"), "\(event)")
            if event != .restore {
                XCTAssertTrue(paths.contains("Library/Application Support/Packs/p1.zip"), "\(event)")
            }
            if event == .purge {
                XCTAssertTrue(paths.contains("Downloads/ep1.mp3"))
            } else {
                XCTAssertFalse(paths.contains("Downloads"), "\(event)")
            }

            // Hard links, symlinks, FIFOs, modes, times, attributes, sparseness.
            var a = stat()
            var b = stat()
            var rootA = stat()
            var rootB = stat()
            lstat(root, &rootA)
            lstat(out, &rootB)
            XCTAssertEqual(rootA.st_mode, rootB.st_mode, "the data root keeps its mode")
            XCTAssertEqual(rootA.mtimeSpec.tv_sec, rootB.mtimeSpec.tv_sec, "and its time")
            XCTAssertEqual(lstat(out + "/Documents/notes.txt", &a), 0)
            XCTAssertEqual(lstat(out + "/Library/Application Support/notes-link.txt", &b), 0)
            XCTAssertEqual(a.st_ino, b.st_ino, "hard links stay links")
            XCTAssertEqual(a.st_mode & 0o7777, 0o640)
            var src = stat()
            lstat(root + "/Documents/notes.txt", &src)
            XCTAssertEqual(a.mtimeSpec.tv_sec, src.mtimeSpec.tv_sec)
            XCTAssertEqual(
                try FileManager.default.destinationOfSymbolicLink(atPath: out + "/Documents/latest"), "notes.txt")
            XCTAssertEqual(lstat(out + "/Library/Application Support/ipc", &a), 0)
            XCTAssertEqual(a.st_mode & S_IFMT, S_IFIFO)
            XCTAssertEqual(
                try XAttr.value(
                    .path(Array((out + "/Library/Application Support/index.db").utf8)), name: "user.example.tag"),
                Array("blue".utf8))
            if event != .restore {
                XCTAssertEqual(lstat(out + "/Library/Application Support/Packs/p1.zip", &a), 0)
                XCTAssertEqual(a.st_size, 3_000_000)
                XCTAssertLessThan(a.st_blocks * 512, 100_000, "a sparse file stays sparse")
                // The sidecar's mark is a native attribute in the copy.
                XCTAssertEqual(
                    try XAttr.value(
                        .path(Array((out + "/Library/Application Support/Packs").utf8)),
                        name: BackupAttribute.exclude.nativeName), BackupAttribute.canonicalValue)
            }
        }
        WalkTests.assertUnchanged(before, try WalkTests.snapshot(root))  // the source container is never modified
    }

    func testSamplesMaterialiseAndVerify() throws {
        for sample in ["WellBehaved", "Misbehaving", "Example.xcappdata"] {
            for event in SimulatedEvent.allCases {
                let dir = try TempDir("simsample")
                // Misbehaving's truncated ._ sidecar makes it incomplete: accepted here.
                let r = try CLI.run([
                    "simulate", event.rawValue, Self.samples + "/" + sample, "--into", dir.sub("out"), "--verify",
                    "--format", "json", "--allow-incomplete",
                ])
                XCTAssertEqual(r.status, 0, "\(sample) \(event): \(r.stderr)")
                let json = try JSONSerialization.jsonObject(with: r.stdoutBytes) as! [String: Any]
                XCTAssertEqual(json["complete"] as? Bool, sample != "Misbehaving", "\(sample) \(event)")
                XCTAssertEqual(json["verified"] as? Bool, true, "\(sample) \(event)")
            }
        }
    }

    func testPredictionsAndReasons() throws {
        let dir = try TempDir()
        try makeContainer(dir.path)
        let inv = try Audit.inventory(of: dir.path)
        let policy = try PolicyFile.parse("paths:\n  - {path: Documents/Drafts, backup: included}\n", source: "p")
        let restore = SimulationResult(.restore, inv, policy: policy)
        let lost = Dictionary(uniqueKeysWithValues: restore.notable.map { ($0.path.display, $0) })
        XCTAssertEqual(
            lost["Library/Application Support/Packs/p1.zip"]?.why,
            "excluded from backup by Library/Application Support/Packs")
        XCTAssertEqual(lost["Library/Application Support/Packs/p1.zip"]?.kind, "large file")
        XCTAssertEqual(lost["Documents/Drafts/a.md"]?.kind, "policy: backup included")
        XCTAssertEqual(lost["Library/Caches/offline.sqlite"]?.kind, "SQLite store")
        XCTAssertEqual(
            lost["Library/Caches/offline.sqlite"]?.why, "backup does not carry Library/Caches: it starts empty")
        let update = SimulationResult(.update, inv)
        XCTAssertEqual(update.notable.map(\.path.display), ["Downloads/ep1.mp3"])
        XCTAssertEqual(update.notable.first?.why, "outside Documents and Library: an update does not keep it")
        let purge = SimulationResult(.purge, inv)
        XCTAssertEqual(purge.zones.first { $0.zone == .caches }?.lostBytes, 700 + 4096)
        XCTAssertEqual(purge.zones.first { $0.zone == .tmp }?.lostFiles, 1)
        XCTAssertEqual(purge.lostBytes, 700 + 4096 + 300)
        let table = try CLI.run(["simulate", "all", dir.path]).stdout
        XCTAssertTrue(
            table.contains("after update") && table.contains("after restore") && table.contains("after purge"), table)
    }

    func testRefusesToWriteOverSomething() throws {
        let dir = try TempDir()
        try makeContainer(dir.sub("App"))
        try Fixture.file(dir.sub("full/x"), size: 1)
        try Fixture.file(dir.sub("afile"), size: 1)
        for (target, needle) in [(dir.sub("full"), "is not empty"), (dir.sub("afile"), "not a folder")] {
            let r = try CLI.run(["simulate", "restore", dir.sub("App"), "--into", target])
            XCTAssertEqual(r.status, 2)
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
        }
        try Fixture.mkdirs(dir.sub("empty"))
        XCTAssertEqual(
            try CLI.run(["simulate", "purge", dir.sub("App"), "--into", dir.sub("empty")]).status, 0,
            "an empty folder is fine")
        XCTAssertEqual(try CLI.run(["simulate", "all", dir.sub("App"), "--into", dir.sub("x")]).status, 2)
    }

    /// A source file that cannot be read, midway: nothing at DIR, no temporary tree left, the
    /// source untouched.
    func testFailureMidwayLeavesNothing() throws {
        let dir = try TempDir("simfail")
        chmod(dir.path, 0o777)
        let root = dir.sub("App")
        try makeContainer(root)
        chmod(root + "/Documents/notes.txt", 0o644)  // readable: the failure comes midway, below
        try Fixture.file(root + "/Library/Application Support/zz-secret.bin", size: 4096)
        chmod(root + "/Library/Application Support/zz-secret.bin", 0)
        // As nobody, O_NOATIME is not permitted on root's files: access times are left out.
        let before = try WalkTests.snapshot(root, accessTimes: geteuid() != 0)
        let r = try CLI.run(["simulate", "update", root, "--into", dir.sub("out")], asNobody: geteuid() == 0)
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("nothing written to \(dir.sub("out"))"), r.stderr)
        XCTAssertTrue(r.stderr.contains("zz-secret.bin"), r.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path), ["App"], "no DIR, no temporary tree")
        // the source is unchanged
        WalkTests.assertUnchanged(before, try WalkTests.snapshot(root, accessTimes: geteuid() != 0))
    }
}
