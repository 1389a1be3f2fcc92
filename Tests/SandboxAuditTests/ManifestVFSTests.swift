import Foundation
import XCTest

@testable import SandboxAuditCore
@testable import SandboxAuditSystem

/// `Manifest.db` read by SQLite page by page through the descriptor held for it
/// (`ManifestVFS`), never copied whole into memory, plain or encrypted: a backup whose database
/// holds 77 MB of another domain's rows is read in far less memory than that, by a real run of
/// the built binary.
final class ManifestVFSTests: XCTestCase {
    static let app = "com.example.app"
    static let appDomain = "AppDomain-com.example.app"
    static let password = "correct horse"

    /// Adds 77 MB of rows (blobs of 64,000 bytes) of another domain to the database at `path`.
    func addBulk(_ path: String) throws {
        _ = try python(
            """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.executemany("INSERT INTO Files VALUES (?, 'HomeDomain', ?, 1, zeroblob(64000))",
                          [("%040x" % i, "Library/bulk-%d" % i) for i in range(1200)])
            c.commit()
            c.close()
            """, [path])
    }

    func bulkBackup() -> BackupBuilder {
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/a.txt", size: 3)
        b.file(Self.appDomain, "Library/Preferences/com.example.app.plist", size: 40)
        return b
    }

    func assertReadInLittleMemory(
        _ folder: String, environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: folder + "/Manifest.db")[.size] as? Int)
        XCTAssertGreaterThan(size, 75_000_000, file: file, line: line)
        let m = try Measured.run(["inventory", folder, "--app", Self.app], environment: environment)
        print(
            "measured inventory of a \(size)-byte Manifest.db: \(String(format: "%.2f", m.seconds)) s, "
                + "\(String(format: "%.1f", m.peakMB)) MB peak RSS"
        )
        XCTAssertEqual(m.result.status, 0, m.result.stderr, file: file, line: line)
        XCTAssertTrue(m.result.stdout.contains("\"Documents/a.txt\""), m.result.stdout, file: file, line: line)
        XCTAssertGreaterThan(m.peakMB, 0, file: file, line: line)
        // A copy of the database alone would be 77 MB; a run over a small one holds about 40.
        XCTAssertLessThan(m.peakMB, 65, "\(m.peakMB) MB", file: file, line: line)
    }

    func testAPlainManifestDBIsNotHeldInMemory() throws {
        try Tool.requirePython("sqlite3", for: "writing 77 MB of rows into Manifest.db")
        let dir = try TempDir("backup-vfs")
        try bulkBackup().write(to: dir.sub("B"))
        try addBulk(dir.sub("B/Manifest.db"))
        let before = try FolderSnapshot(dir.sub("B"))
        try assertReadInLittleMemory(dir.sub("B"))
        // Nothing created beside it: no journal, -wal or -shm.
        XCTAssertEqual(try FolderSnapshot(dir.sub("B")), before)
    }

    func testAnEncryptedManifestDBIsDecryptedAPageAtATime() throws {
        try Tool.requirePython("sqlite3", for: "writing 77 MB of rows into Manifest.db")
        let dir = try TempDir("backup-vfs")
        let encryptor = TestBackupEncryptor(password: Self.password)
        // The database grown before it is encrypted with the backup's key.
        var encryption = encryptor.builderEncryption
        var failure: Error?
        encryption.database = { plain in
            do {
                try Data(plain).write(to: URL(fileURLWithPath: dir.sub("plain.db")))
                try self.addBulk(dir.sub("plain.db"))
                return encryptor.encryptManifestDatabase(
                    try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.sub("plain.db")))))
            } catch {
                failure = error
                return []
            }
        }
        try bulkBackup().write(to: dir.sub("B"), encryption: encryption)
        if let failure { throw failure }
        try assertReadInLittleMemory(dir.sub("B"), environment: [BackupPassword.environmentVariable: Self.password])
    }

    /// A page read through the VFS of an encrypted database is the plain page, wherever it
    /// starts, and the plain length drops the padding a length that is not whole pages carries.
    func testEncryptedReadsAtAnyOffsetMatchThePlainBytes() throws {
        let dir = try TempDir("backup-vfs")
        let encryptor = TestBackupEncryptor(password: Self.password)
        try bulkBackup().write(to: dir.sub("B"), encryption: encryptor.builderEncryption)
        let folder = try BackupFolder.open(dir.sub("B"))
        let cipher = try XCTUnwrap(try folder.cipher(password: Self.password))
        let plain = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let encrypted = encryptor.encryptManifestDatabase(plain)
        XCTAssertEqual(
            try cipher.manifestDatabaseLength(
                size: encrypted.count, what: "x", read: BackupDecryption.reader(encrypted)), 5000)
        for (offset, count) in [(0, 100), (16, 16), (4096, 904), (17, 33), (4999, 1)] {
            let start = offset / 16 * 16
            let end = (offset + count + 15) / 16 * 16
            let blocks = try cipher.manifestDatabaseBlocks(
                at: Int64(start), count: end - start, what: "x", read: BackupDecryption.reader(encrypted))
            XCTAssertEqual(
                Array(blocks[(offset - start)..<(offset - start + count)]), Array(plain[offset..<(offset + count)]),
                "at \(offset)")
        }
    }
}
