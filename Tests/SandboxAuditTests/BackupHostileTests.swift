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

/// Hostile and interrupted backup folders, each built for real (`BackupBuilder`, Python's
/// sqlite3, sparse files): rows whose paths are not UTF-8 or hold a NUL, rows only in
/// `Manifest.db-wal`, a folder swapped after `Manifest.db` was read, SQL views and generated
/// columns, sparse encrypted stores, a sparse `Manifest.db` over the limit, a `Manifest.db` that
/// is not a file, a keybag with a malformed key, a password that is not UTF-8.
final class BackupHostileTests: XCTestCase {
    static let app = "com.example.app"
    static let appDomain = "AppDomain-com.example.app"
    static let password = "correct horse"

    /// A measured run (`Measured.run`), its figures printed for the closing notes.
    func measure(_ args: [String], environment: [String: String] = [:]) throws -> Measured {
        let m = try Measured.run(args, environment: environment)
        print(
            "measured \(args.first ?? "") \(args.dropFirst().first.map { ($0 as NSString).lastPathComponent } ?? ""): "
                + "\(String(format: "%.2f", m.seconds)) s, \(String(format: "%.1f", m.peakMB)) MB peak RSS, exit "
                + "\(m.result.status)"
        )
        return m
    }

    /// At most 10 s and 300 MB, and the exit status expected.
    func assertBounded(_ m: Measured, exit: Int32, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(m.result.status, exit, "\(what): \(m.result.stderr)", file: file, line: line)
        XCTAssertLessThan(m.seconds, 10, "\(what): \(m.seconds) s", file: file, line: line)
        XCTAssertGreaterThan(m.peakMB, 0, "\(what): no RSS measured", file: file, line: line)
        XCTAssertLessThan(m.peakMB, 300, "\(what): \(m.peakMB) MB", file: file, line: line)
    }

    /// The one line of an exit-2 run: `sandbox-audit: error: …`.
    func oneLineError(_ r: CLI.Result, file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(r.status, 2, r.stderr, file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr, file: file, line: line)
        return r.stderr
    }

    /// A file row whose relativePath is the bytes given, with its own fileID.
    static func row(_ path: [UInt8], id: Character, bytes: [UInt8] = [1, 2]) -> BackupBuilder.Item {
        var item = BackupBuilder.Item(
            domain: appDomain, relativePath: "Documents/unnamed", flags: 1, bytes: bytes, mode: 0o100644)
        item.pathBytes = path
        item.fileID = String(repeating: id, count: 40)
        return item
    }

    // MARK: rows

    func testRelativePathsKeepTheirExactBytesAndANulIsAProblem() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/ok.txt", size: 3)
        let e9 = Array("Documents/caf".utf8) + [0xE9]
        let e8 = Array("Documents/caf".utf8) + [0xE8]
        let nul = Array("Documents/a".utf8) + [0] + Array("b".utf8)
        b.items += [Self.row(e9, id: "a"), Self.row(e8, id: "b"), Self.row(nul, id: "c")]
        try b.write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        let files = result.inventory.entries.filter { $0.entry.kind == .file }.map(\.path.bytes)
        XCTAssertEqual(Set(files), [Array("Documents/ok.txt".utf8), e9, e8], "\(result.inventory.problems)")
        XCTAssertNil(result.inventory.entry(at: ContainerPath("Documents/a")), "a NUL must not cut the path")
        XCTAssertEqual(result.inventory.problems.map(\.path.bytes), [nul])
        XCTAssertEqual(
            result.inventory.problems.first?.reason, "its relativePath holds a NUL byte (at byte 11): not read")
        XCTAssertFalse(result.complete)
        // The finding for the row says what fits a backup row, not the folder fix.
        let finding = try XCTUnwrap(result.findings.first { $0.ruleId == "unreadable-entry" && $0.path?.bytes == nul })
        let fix = try XCTUnwrap(finding.fix)
        XCTAssertFalse(fix.contains("chmod"), fix)
        XCTAssertTrue(fix.contains("Manifest.db"), fix)

        // The inventory carries the exact bytes (pathBase64), as for a folder's names.
        let r = try CLI.run(["inventory", dir.sub("B"), "--app", Self.app])
        let lines = r.stdoutBytes.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any]
        }
        let encoded = Set(lines.compactMap { $0["pathBase64"] as? String })
        XCTAssertTrue(
            encoded.isSuperset(of: [Data(e9).base64EncodedString(), Data(e8).base64EncodedString()]), "\(lines)")
    }

    func testRowsOnlyInTheWALAreReadAndTheFolderIsLeftAsItWas() throws {
        let dir = try TempDir("backup")
        _ = try ManifestWALBoundTests.backupWithWAL(at: dir)
        let wal = try FileManager.default.attributesOfItem(atPath: dir.sub("B/Manifest.db-wal"))[.size] as? Int ?? 0
        XCTAssertGreaterThan(wal, 0)
        let before = try FolderSnapshot(dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        XCTAssertNotNil(
            result.inventory.entry(at: ContainerPath("Documents/only-in-wal.txt")),
            "\(result.inventory.entries.map(\.path))")
        XCTAssertNotNil(result.inventory.entry(at: ContainerPath("Documents/notes.txt")))
        XCTAssertTrue(
            result.notes.contains {
                $0.hasPrefix(dir.sub("B/Manifest.db-wal: "))
                    && $0.hasSuffix(
                        "committed frames applied in memory (the backup was still being written, or was not closed "
                            + "cleanly)"
                    )
            },
            "\(result.notes)")
        XCTAssertEqual(try FolderSnapshot(dir.sub("B")), before)

        // A WAL whose frame does not match its checksum holds nothing committed: said, not silent.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.sub("B/Manifest.db-wal"))))
        bytes[32 + 24 + 100] ^= 0xFF  // the WAL header, the first frame's header, into its page
        try Data(bytes).write(to: URL(fileURLWithPath: dir.sub("B/Manifest.db-wal")))
        let garbled = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        XCTAssertNil(garbled.inventory.entry(at: ContainerPath("Documents/only-in-wal.txt")))
        XCTAssertTrue(
            garbled.notes.contains {
                $0.contains("Manifest.db-wal was not applied (it holds no valid committed frame)")
            }, "\(garbled.notes)")

        // A rollback journal beside it: the database is read as it stands, and the note says so.
        try Data(repeating: 0, count: 512).write(to: URL(fileURLWithPath: dir.sub("B/Manifest.db-journal")))
        let journal = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        XCTAssertTrue(
            journal.notes.contains { $0.contains("Manifest.db-journal (512 B) was not applied") }, "\(journal.notes)")
    }

    // MARK: one descriptor for the run

    func testAFolderSwappedAfterManifestDBWasReadIsNeverRead() throws {
        let dir = try TempDir("backup")
        let path = "Library/Preferences/com.example.app.plist"
        var first = BackupBuilder()
        first.file(Self.appDomain, path, try BackupFolderTests.largePreferences())
        first.file(
            Self.appDomain, "Library/Caches/store.db", StoreSignature.sqliteHeader + [UInt8](repeating: 0, count: 4080))
        try first.write(to: dir.sub("B"))
        var other = BackupBuilder()
        let swapped: [String: Any] = ["swappedInKey": Data(repeating: 0xCD, count: 600_000)]
        other.file(
            Self.appDomain, path,
            [UInt8](try PropertyListSerialization.data(fromPropertyList: swapped, format: .binary, options: 0)))
        other.file(Self.appDomain, "Library/Caches/store.db", [UInt8](repeating: 0x55, count: 4096))
        try other.write(to: dir.sub("Other"))

        let selection = ContainerSelection(app: Self.app)
        let choice = try BackupContainers.read(dir.sub("B"), selection)
        // Manifest.db is read; now B names the other backup.
        try FileManager.default.moveItem(atPath: dir.sub("B"), toPath: dir.sub("B.first"))
        try FileManager.default.moveItem(atPath: dir.sub("Other"), toPath: dir.sub("B"))
        let inventories = try BackupWalk.read(choice).map { Inventory(container: $0, walk: $1) }
        let result = Audit.run(
            dir.sub("B"), inventories: inventories, selection: selection, policy: Policy(), baseline: nil, backup: nil,
            scanTime: Date().timeIntervalSince1970)
        let store = try XCTUnwrap(result.inventory.entry(at: ContainerPath("Library/Caches/store.db")))
        XCTAssertEqual(store.entry.header.map { Array($0.prefix(16)) }, StoreSignature.sqliteHeader)
        let f = try XCTUnwrap(result.findings.first { $0.ruleId == "large-user-defaults" })
        XCTAssertTrue(f.message.contains("avatarImage"), f.message)
        XCTAssertFalse(f.message.contains("swappedInKey"), f.message)
        XCTAssertTrue(result.complete, "\(result.missed)")
    }

    func testAManifestDBThatIsNotAFileIsNamedAsWhatItIs() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/a.txt", size: 3)
        try b.write(to: dir.sub("B"))
        try FileManager.default.moveItem(atPath: dir.sub("B/Manifest.db"), toPath: dir.sub("real.db"))
        try FileManager.default.createSymbolicLink(
            atPath: dir.sub("B/Manifest.db"), withDestinationPath: dir.sub("real.db"))
        XCTAssertTrue(
            oneLineError(try CLI.run(["inventory", dir.sub("B"), "--app", Self.app]))
                .contains("\(dir.sub("B"))/Manifest.db: it is a symbolic link, not a regular file"))
        try FileManager.default.removeItem(atPath: dir.sub("B/Manifest.db"))
        XCTAssertEqual(mkfifo(dir.sub("B/Manifest.db"), 0o644), 0)
        // Never opened blocking: the run ends at once.
        let fifo = try measure(["scan", dir.sub("B"), "--app", Self.app])
        assertBounded(fifo, exit: 2, "a FIFO Manifest.db")
        XCTAssertTrue(
            oneLineError(fifo.result).contains("Manifest.db: it is a FIFO, not a regular file"), fifo.result.stderr)
        try FileManager.default.removeItem(atPath: dir.sub("B/Manifest.db"))
        try FileManager.default.createDirectory(atPath: dir.sub("B/Manifest.db"), withIntermediateDirectories: false)
        XCTAssertTrue(
            oneLineError(try CLI.run(["scan", dir.sub("B"), "--app", Self.app])).contains(
                "Manifest.db: it is a folder, not a regular file"))
    }

    // MARK: costs

    /// `Files` as a view: a recursive CTE that never ends, and one of huge strings; a
    /// generated column of huge strings. Each is refused in one line, at once.
    func testViewsAndGeneratedColumnsAreRefusedAtOnce() throws {
        try Tool.requirePython("sqlite3", for: "writing Manifest.db files whose Files is SQL")
        let dir = try TempDir("backup")
        let rest = "'AppDomain-com.example.app' AS domain, 'Documents/' || i AS relativePath, 1 AS flags, NULL AS file"
        let schemas = [
            "view":
                "CREATE VIEW Files AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT "
                + "printf('%040d', i) AS fileID, \(rest) FROM n",
            "strings":
                "CREATE VIEW Files AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4) "
                + "SELECT hex(zeroblob(500000000)) AS fileID, \(rest) FROM n",
            "generated":
                "CREATE TABLE Files (fileID TEXT, domain TEXT, relativePath TEXT GENERATED ALWAYS AS (printf('%.*c', "
                + "500000000, 'x')) VIRTUAL, flags INTEGER, file BLOB); INSERT INTO Files (fileID, domain, "
                + "flags) VALUES ('aa', 'AppDomain-com.example.app', 1)",
        ]
        let expected = [
            "view": "its Files is a view, not a table", "strings": "its Files is a view, not a table",
            "generated": "its Files column relativePath is computed by SQL",
        ]
        for (name, sql) in schemas.sorted(by: { $0.key < $1.key }) {
            let folder = dir.sub(name)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            _ = try python(
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2] + '; CREATE "
                    + "TABLE Properties (key TEXT, value BLOB);'); c.commit(); c.close()",
                [folder + "/Manifest.db", sql])
            let m = try measure(["inventory", folder, "--app", Self.app])
            assertBounded(m, exit: 2, name)
            XCTAssertTrue(oneLineError(m.result).contains(expected[name]!), "\(name): \(m.result.stderr)")
        }
    }

    /// The work cap holds for every query of the run: SQL that never ends is interrupted with
    /// one line naming the limit.
    func testSQLiteWorkIsCappedByTheFileSize() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/a.txt", size: 3)
        try b.write(to: dir.sub("B"))
        let folder = try BackupFolder.open(dir.sub("B"))
        let database = try ManifestDatabase(folder, cipher: nil)
        let start = Date()
        XCTAssertThrowsError(
            try database.query("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
            { _ in }
        ) { error in
            XCTAssertTrue("\(error)".contains("SQLite steps allowed for a Manifest.db of its size"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    func testASparseManifestDBOverTheLimitIsRefusedBeforeItIsRead() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/a.txt", size: 3)
        try b.write(to: dir.sub("B"))
        XCTAssertEqual(truncate(dir.sub("B/Manifest.db"), off_t(ManifestDatabase.maximumSize) + 1), 0)
        let over = try measure(["inventory", dir.sub("B"), "--app", Self.app])
        assertBounded(over, exit: 2, "a sparse Manifest.db of 2 GiB + 1 byte")
        XCTAssertTrue(
            oneLineError(over.result).contains(
                "Manifest.db: it is 2.15 GB (2147483649 bytes), over the 2 GiB limit for a backup's Manifest.db"),
            over.result.stderr)
        // At the limit: read as far as its header says the database goes, not to the end.
        XCTAssertEqual(truncate(dir.sub("B/Manifest.db"), off_t(ManifestDatabase.maximumSize)), 0)
        let at = try measure(["inventory", dir.sub("B"), "--app", Self.app])
        assertBounded(at, exit: 0, "a sparse Manifest.db of 2 GiB")
        XCTAssertTrue(at.result.stdout.contains("\"Documents/a.txt\""), at.result.stdout)
        // Zeros at the limit: its first bytes are not SQLite's, and nothing more is read.
        XCTAssertEqual(truncate(dir.sub("B/Manifest.db"), 0), 0)
        XCTAssertEqual(truncate(dir.sub("B/Manifest.db"), off_t(ManifestDatabase.maximumSize)), 0)
        let zeros = try measure(["inventory", dir.sub("B"), "--app", Self.app])
        assertBounded(zeros, exit: 2, "a sparse Manifest.db of 2 GiB of zeros")
        XCTAssertTrue(
            oneLineError(zeros.result).contains("Manifest.db: it is not a SQLite database"), zeros.result.stderr)
    }

    /// Ten stores of 260 MB, sparse (a few kB on disk): their headers cost two AES blocks each.
    func testSparseEncryptedStoresDecryptOnlyTheBlocksRead() throws {
        let dir = try TempDir("backup")
        let encryptor = TestBackupEncryptor(password: Self.password)
        var b = BackupBuilder()
        let size = 260_000_000
        for i in 0..<10 {
            b.file(
                Self.appDomain, "Library/Caches/store-\(i).db",
                StoreSignature.sqliteHeader + [UInt8](repeating: 7, count: 4080))
            b.items[b.items.count - 1].size = Int64(size)
        }
        try b.write(to: dir.sub("B"), encryption: encryptor.builderEncryption)
        for i in 0..<10 {
            let id = BackupBuilder.fileID(Self.appDomain, "Library/Caches/store-\(i).db")
            XCTAssertEqual(truncate(dir.sub("B/\(id.prefix(2))/\(id)"), off_t(size + 16)), 0)
        }
        let m = try measure(
            ["inventory", dir.sub("B"), "--app", Self.app],
            environment: [BackupPassword.environmentVariable: Self.password])
        assertBounded(m, exit: 0, "ten sparse encrypted 260 MB stores")
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app, password: Self.password))
        for i in 0..<10 {
            let store = try XCTUnwrap(result.inventory.entry(at: ContainerPath("Library/Caches/store-\(i).db")))
            XCTAssertEqual(store.entry.size, Int64(size))
            XCTAssertEqual(store.entry.header.map { Array($0.prefix(16)) }, StoreSignature.sqliteHeader)
        }
    }

    /// A row's `Size` near 2^63, plain and encrypted: listed, its bytes read as far as the file
    /// holds them (encrypted: refused, as the ciphertext is shorter), never a trap.
    func testASizeNearTwoToTheSixtyThreeIsListedNeverATrap() throws {
        let dir = try TempDir("backup")
        for encrypted in [false, true] {
            var b = BackupBuilder()
            b.file(
                Self.appDomain, "Library/Caches/huge.db",
                StoreSignature.sqliteHeader + [UInt8](repeating: 0, count: 496))
            b.items[b.items.count - 1].size = Int64.max - 7
            let folder = dir.sub(encrypted ? "E" : "P")
            try b.write(
                to: folder, encryption: encrypted ? TestBackupEncryptor(password: Self.password).builderEncryption : nil
            )
            let result = try Audit.run(
                folder, selection: ContainerSelection(app: Self.app, password: encrypted ? Self.password : nil))
            let entry = try XCTUnwrap(result.inventory.entry(at: ContainerPath("Library/Caches/huge.db")))
            // The inventory counts it up to its total's bound, and says so.
            XCTAssertEqual(entry.entry.size, Inventory.maximumTotal)
            XCTAssertTrue(
                result.inventory.problems.contains { $0.path == entry.path && $0.operation == "size" },
                "\(result.inventory.problems)")
            let source = try XCTUnwrap(result.inventory.container.backup)
            let read = source.read(ContainerPath("Library/Caches/huge.db"), limit: Int.max)
            if encrypted {
                guard case .failure(let failure) = read else { return XCTFail("read a Size past the ciphertext") }
                XCTAssertTrue(
                    failure.reason.contains("bytes of ciphertext, fewer than its MBFile Size (\(Int64.max - 7))"),
                    failure.reason)
                XCTAssertTrue(failure.reason.contains(folder + "/"), failure.reason)
            } else {
                XCTAssertEqual(try read.get().count, 512)
            }
        }
    }

    // MARK: encryption's errors

    func testCiphertextOfTheWrongSizeNamesTheBackupFolder() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/a.txt", size: 3)
        try b.write(to: dir.sub("B"), encryption: TestBackupEncryptor(password: Self.password).builderEncryption)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.sub("B/Manifest.db")))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let size = try FileManager.default.attributesOfItem(atPath: dir.sub("B/Manifest.db"))[.size] as? Int ?? 0
        let r = try CLI.run(
            ["inventory", dir.sub("B"), "--app", Self.app],
            environment: [BackupPassword.environmentVariable: Self.password])
        XCTAssertTrue(
            oneLineError(r).contains(
                "\(dir.sub("B"))/Manifest.db: \(size) bytes of ciphertext, not a whole number of 16-byte AES blocks"),
            r.stderr)
    }

    func testAKeybagWithAMalformedWrappedKeySaysSo() throws {
        let encryptor = TestBackupEncryptor(password: Self.password)
        // The first class key's WPKY (40 bytes) cut to 39: its length field and its value.
        var bag = encryptor.keybag
        let tag = Array("WPKY".utf8)
        let at = try XCTUnwrap((0..<bag.count - 4).first { Array(bag[$0..<$0 + 4]) == tag })
        bag.replaceSubrange(at + 4..<at + 8, with: TestBackupEncryptor.u32(39))
        bag.remove(at: at + 8)
        var plist = encryptor.manifestPlistEntries
        plist["BackupKeyBag"] = Data(bag)
        XCTAssertThrowsError(try BackupDecryption(manifestPlist: plist, password: Self.password)) { error in
            XCTAssertEqual(
                "\(error)",
                "Manifest.plist BackupKeyBag: the keybag is malformed: class 1's WPKY is 39 bytes, not an RFC 3394 "
                    + "wrapped key (a multiple of 8 bytes, 24 at least)"
            )
        }
    }

    func testAPasswordInTheEnvironmentThatIsNotUTF8IsRefusedInOneLine() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/a.txt", size: 3)
        // The password's UTF-8 is what the key comes from; "\u{FFFD}" is what a lossy read makes of 0xFF.
        try b.write(to: dir.sub("B"), encryption: TestBackupEncryptor(password: "\u{FFFD}").builderEncryption)
        let r = try shell(
            "SANDBOX_AUDIT_BACKUP_PASSWORD=\"$(printf '\\377')\" exec \"$0\" inventory B --app \(Self.app)",
            in: dir.path)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertEqual(
            r.stderr,
            "sandbox-audit: error: the environment variable SANDBOX_AUDIT_BACKUP_PASSWORD is not UTF-8 text: a "
                + "backup password is text, and its key is derived from its UTF-8 bytes\n"
        )
    }
}
