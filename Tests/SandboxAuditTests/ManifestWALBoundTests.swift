import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditSystem

/// `Manifest.db-wal` is read as SQLite reads one: its header first (nothing more when it is not a
/// WAL of this database), then the frames a batch at a time; its pages are read when SQLite asks
/// for them, never held whole.
final class ManifestWALBoundTests: XCTestCase {
    static let app = "com.example.app"
    static let appDomain = "AppDomain-com.example.app"

    /// A backup whose newest row is only in its WAL: the process ends without closing the
    /// database, so no checkpoint runs (`BackupHostileTests` reads it too).
    static func backupWithWAL(at dir: TempDir) throws -> String {
        try Tool.requirePython("sqlite3", for: "leaving rows in Manifest.db-wal, as a backup still being written does")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/notes.txt", Array("hello".utf8))
        try b.write(to: dir.sub("B"))
        _ = try python(
            """
            import os, sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA wal_autocheckpoint=0")
            c.execute("INSERT INTO Files SELECT ?, domain, 'Documents/only-in-wal.txt', flags, file FROM Files WHERE \
            relativePath = 'Documents/notes.txt'", ("f" * 40,))
            os._exit(0)
            """, [dir.sub("B/Manifest.db")])
        return dir.sub("B")
    }

    func extend(_ path: String, to size: UInt64) throws {
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try h.truncate(atOffset: size)
        try h.close()
    }

    /// A sparse 1.9 GB WAL of zeros: refused at its 32-byte header (it cost 1,888 MB read whole).
    func testASparseWALIsRefusedAtItsHeader() throws {
        let dir = try TempDir("backup")
        let backup = try Self.backupWithWAL(at: dir)
        try FileManager.default.removeItem(atPath: backup + "/Manifest.db-wal")
        XCTAssertTrue(FileManager.default.createFile(atPath: backup + "/Manifest.db-wal", contents: nil))
        try extend(backup + "/Manifest.db-wal", to: 1_900_000_000)
        let m = try Measured.run(["scan", backup, "--app", Self.app, "--format", "json"])
        XCTAssertEqual(m.result.status, 0, m.result.stderr)  // the WAL refused is a note, not a failure
        XCTAssertTrue(
            m.result.stdout.contains(
                "Manifest.db-wal was not applied (it is not a WAL of this database: no WAL magic number)"),
            m.result.stdout)
        XCTAssertLessThan(m.peakMB, 100, "\(m.peakMB) MB")
        XCTAssertLessThan(m.seconds, 5)
    }

    /// Real frames followed by 1.5 GB of zeros: the committed frames are applied (the row only in
    /// the WAL is listed), the rest read a batch at a time and never held.
    func testAWALWithAHugeTailIsReadFrameByFrame() throws {
        let dir = try TempDir("backup")
        let backup = try Self.backupWithWAL(at: dir)
        let wal = backup + "/Manifest.db-wal"
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
        XCTAssertGreaterThan(size, 32)
        try extend(wal, to: 1_500_000_000)
        let m = try Measured.run(["inventory", backup, "--app", Self.app])
        XCTAssertEqual(m.result.status, 0, m.result.stderr)
        XCTAssertTrue(m.result.stdout.contains("Documents/only-in-wal.txt"), m.result.stdout)
        XCTAssertLessThan(m.peakMB, 100, "\(m.peakMB) MB")
        XCTAssertLessThan(m.seconds, 10)
    }

    /// The reader over the file and the one over bytes agree, frame by frame.
    func testTheReaderAndTheBytesAgree() throws {
        let dir = try TempDir("backup")
        let backup = try Self.backupWithWAL(at: dir)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: backup + "/Manifest.db-wal")))
        let db = try [UInt8](Data(contentsOf: URL(fileURLWithPath: backup + "/Manifest.db")).prefix(100))
        let pageSize = (Int(db[16]) << 8 | Int(db[17])) == 1 ? 65536 : Int(db[16]) << 8 | Int(db[17])
        guard case .success(let whole?) = ManifestWAL.commit(bytes, pageSize: pageSize) else {
            return XCTFail("no commit")
        }
        XCTAssertGreaterThan(whole.frames, 0)
        var reads = 0
        guard
            case .success(let read?) = ManifestWAL.commit(
                size: Int64(bytes.count), pageSize: pageSize,
                read: { offset, count in
                    reads += 1
                    return Array(bytes[Int(offset)..<min(bytes.count, Int(offset) + count)])
                })
        else { return XCTFail("no commit") }
        XCTAssertEqual(read, whole)
        XCTAssertLessThanOrEqual(reads, 1 + bytes.count / ManifestWAL.batchBytes + 1)
    }
}
