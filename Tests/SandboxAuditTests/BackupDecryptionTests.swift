import Crypto
import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The encrypted-backup reader against backups encrypted by the test with the documented
/// algorithm (TestBackupEncryptor): round trips, a wrong password, hostile keybags, bad keys and
/// ciphertexts, and the PBKDF2 chain against Python's hashlib.
final class BackupDecryptionTests: XCTestCase {
    static let password = "correct horse battery staple"

    /// The error `body` throws: an InputError of one line.
    func inputError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            try body()
            XCTFail("no error", file: file, line: line)
            return ""
        } catch let error as InputError {
            XCTAssertFalse(error.message.contains("\n"), error.message, file: file, line: line)
            XCTAssertFalse(error.message.contains(Self.password), error.message, file: file, line: line)
            return error.message
        } catch {
            XCTFail("not an InputError: \(error)", file: file, line: line)
            return ""
        }
    }

    func testManifestDatabaseRoundTrip() throws {
        let encryptor = TestBackupEncryptor(password: Self.password)
        let cipher = try BackupDecryption(manifestPlist: encryptor.manifestPlistEntries, password: Self.password)
        // SQLite-like sizes (whole 4096-byte pages) and odd ones; PKCS#7 adds 1…16 bytes.
        for size in [0, 1, 15, 16, 17, 4096, 3 * 4096] {
            let plain = TestBackupEncryptor.random(size)
            let encrypted = encryptor.encryptManifestDatabase(plain)
            XCTAssertEqual(encrypted.count, size / 16 * 16 + 16)
            XCTAssertEqual(try cipher.manifestDatabase(encrypted), plain, "size \(size)")
        }
        // Without padding (a whole number of pages, ciphertext as long as the plain text), nothing is cut,
        // even when the last page ends in bytes that look like padding.
        var page = TestBackupEncryptor.random(4096)
        page.replaceSubrange(4092..<4096, with: [4, 4, 4, 4])
        let iv = try AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16))
        let unpadded = [UInt8](try AES._CBC.encrypt(page, using: encryptor.manifestKey, iv: iv, noPadding: true))
        XCTAssertEqual(unpadded.count, 4096)
        XCTAssertEqual(try cipher.manifestDatabase(unpadded), page)

        // A real SQLite file with the public Manifest.db schema comes back byte for byte.
        let dir = try TempDir("manifest")
        let db = try SQLiteFile(dir.sub("Manifest.db"))
        try db.transaction {
            try db.execute(
                "CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)"
            )
            for i in 0..<200 {
                try db.execute(
                    "INSERT INTO Files VALUES (?, 'AppDomain-com.example.app', ?, 1, ?)",
                    [
                        .text(String(format: "%040x", i)), .text("Documents/\(i).txt"),
                        .blob(TestBackupEncryptor.random(100)),
                    ])
            }
        }
        try db.close()
        let sqlite = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.sub("Manifest.db"))))
        XCTAssertEqual(sqlite.count % 4096, 0)
        XCTAssertEqual(Array(sqlite.prefix(16)), Array("SQLite format 3\0".utf8))
        XCTAssertEqual(try cipher.manifestDatabase(encryptor.encryptManifestDatabase(sqlite)), sqlite)
    }

    func testFileRoundTrips() throws {
        let encryptor = TestBackupEncryptor(password: Self.password)
        let cipher = try BackupDecryption(manifestPlist: encryptor.manifestPlistEntries, password: Self.password)
        for (size, encryptedSize) in [(0, 16), (1, 16), (15, 16), (16, 32), (17, 32), (100_000, 100_016)] {
            for protectionClass in [1, 3, 4, 11] {
                let plain = TestBackupEncryptor.random(size)
                let (bytes, key) = encryptor.encryptFile(plain, protectionClass: protectionClass)
                XCTAssertEqual(bytes.count, encryptedSize)
                XCTAssertEqual(key.count, 44)  // 4-byte class, 40-byte wrapped key
                XCTAssertEqual(
                    try cipher.file(bytes, encryptionKey: key, size: Int64(size)), plain,
                    "size \(size), class \(protectionClass)")
            }
        }
        // A keybag from before iOS 10.2: no DPSL/DPIC, the SHA-1 step alone.
        let old = TestBackupEncryptor(password: Self.password, doubleProtection: false)
        XCTAssertNil(try BackupKeybag(old.keybag).doubleProtectionIterations)
        let oldCipher = try BackupDecryption(manifestPlist: old.manifestPlistEntries, password: Self.password)
        let (bytes, key) = old.encryptFile(Array("hello".utf8))
        XCTAssertEqual(try oldCipher.file(bytes, encryptionKey: key, size: 5), Array("hello".utf8))
    }

    func testWrongPasswordIsOneLine() throws {
        let encryptor = TestBackupEncryptor(password: Self.password)
        for wrong in ["", "correct horse battery stapl", "Correct horse battery staple", Self.password + " "] {
            XCTAssertEqual(
                inputError { _ = try BackupDecryption(manifestPlist: encryptor.manifestPlistEntries, password: wrong) },
                "wrong password for the encrypted backup")
        }
    }

    /// Every truncation of a real-shaped keybag: cut inside a record, it is refused in one line;
    /// cut at a record boundary, it parses (fewer class keys) or is refused for what it lacks.
    func testTruncatedKeybags() throws {
        let bag = TestBackupEncryptor(password: Self.password).keybag
        var boundaries: Set<Int> = []
        var offset = 0
        while offset < bag.count {
            boundaries.insert(offset)
            offset += 8 + Int(BackupKeybag.bigEndian(bag[offset + 4..<offset + 8]))
        }
        XCTAssertEqual(boundaries.count, 10 + 11 * 5)  // 10 keybag records, 11 class keys of 5
        var refused = 0
        var parsed = 0
        for length in 0..<bag.count {
            do {
                let keybag = try BackupKeybag(Array(bag.prefix(length)))
                XCTAssertTrue(boundaries.contains(length), "cut at \(length) parsed")
                XCTAssertLessThanOrEqual(keybag.classKeys.count, 11)
                parsed += 1
            } catch let error as InputError {
                XCTAssertFalse(error.message.contains("\n"))
                XCTAssertTrue(error.message.hasPrefix("Manifest.plist BackupKeyBag: "), error.message)
                refused += 1
            }
        }
        // Parses from the end of the first class key's CLAS (byte 236) on, at every boundary but
        // the 11 between a class key's UUID and its CLAS: 11 × 5 - 12.
        XCTAssertEqual(parsed, 43)
        XCTAssertEqual(refused, bag.count - parsed)
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(Array(bag.prefix(3))) },
            "Manifest.plist BackupKeyBag: 3 stray bytes at byte 0, too few for a record (8-byte header)")
    }

    func testGarbledKeybags() throws {
        let encryptor = TestBackupEncryptor(password: Self.password)
        let bag = encryptor.keybag
        typealias R = TestBackupEncryptor
        func replacing(_ tag: String, with value: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            var offset = 0
            while offset < bag.count {
                let length = Int(BackupKeybag.bigEndian(bag[offset + 4..<offset + 8]))
                let t = String(decoding: bag[offset..<offset + 4], as: UTF8.self)
                out += t == tag ? R.record(tag, value) : Array(bag[offset..<offset + 8 + length])
                offset += 8 + length
            }
            return out
        }
        var huge = bag
        huge.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(huge) },
            "Manifest.plist BackupKeyBag: record VERS at byte 0 says 4294967295 bytes, past the keybag's end "
                + "(\(bag.count) bytes)"
        )
        var binary = bag
        binary[0] = 0x00
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(binary) },
            "Manifest.plist BackupKeyBag: no ASCII tag at byte 0: not a keybag, or garbled")
        // Huge iteration counts are refused at once, before any PBKDF2 runs.
        let started = Date()
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(replacing("DPIC", with: R.u32(.max))) },
            "Manifest.plist BackupKeyBag: DPIC is 4294967295 iterations, over the limit of 50000000")
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(replacing("ITER", with: R.u32(10_000_001))) },
            "Manifest.plist BackupKeyBag: ITER is 10000001 iterations, over the limit of 10000000")
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(replacing("ITER", with: R.u32(0))) },
            "Manifest.plist BackupKeyBag: ITER is 0 iterations")
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(replacing("ITER", with: [1, 2])) },
            "Manifest.plist BackupKeyBag: record ITER is 2 bytes, not a 4-byte integer")
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(replacing("SALT", with: [])) },
            "Manifest.plist BackupKeyBag: SALT is 0 bytes (1…1024 expected)")
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(replacing("CLAS", with: R.u32(3))) },
            "Manifest.plist BackupKeyBag: class 3 has two keys")
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(Array(bag.prefix(200)) + R.record("WPKY", [1])) },
            "Manifest.plist BackupKeyBag: class key record WPKY at byte 200 before any class key's UUID")
        XCTAssertEqual(
            inputError { _ = try BackupKeybag([UInt8](repeating: 0x41, count: 65_537)) },
            "Manifest.plist BackupKeyBag: is 65537 bytes, over the limit of 65536")
        XCTAssertEqual(inputError { _ = try BackupKeybag([]) }, "Manifest.plist BackupKeyBag: is empty")
        var many = Array(bag.prefix(200))
        for c in UInt32(1)...65 { many += R.record("UUID", R.random(16)) + R.record("CLAS", R.u32(c)) }
        XCTAssertEqual(
            inputError { _ = try BackupKeybag(many) }, "Manifest.plist BackupKeyBag: more than 64 class keys")
        // A wrapped class key that is garbage is the wrong-password error (the unwrap's check fails).
        var garbled = bag
        garbled[garbled.count - 1] ^= 0xFF
        var plist = encryptor.manifestPlistEntries
        plist["BackupKeyBag"] = Data(garbled)
        XCTAssertEqual(
            inputError { _ = try BackupDecryption(manifestPlist: plist, password: Self.password) },
            BackupDecryption.wrongPassword)
    }

    func testManifestKeyProblems() throws {
        let encryptor = TestBackupEncryptor(password: Self.password)
        func decryption(_ change: (inout [String: Any]) -> Void) -> String {
            var plist = encryptor.manifestPlistEntries
            change(&plist)
            return inputError { _ = try BackupDecryption(manifestPlist: plist, password: Self.password) }
        }
        XCTAssertEqual(
            decryption { $0["ManifestKey"] = nil },
            "Manifest.plist: the backup is encrypted but has no ManifestKey (Manifest.db's key)")
        XCTAssertEqual(
            decryption { $0["BackupKeyBag"] = nil }, "Manifest.plist: the backup is encrypted but has no BackupKeyBag")
        XCTAssertEqual(decryption { $0["ManifestKey"] = "key" }, "Manifest.plist: ManifestKey is not data")
        XCTAssertEqual(
            decryption { $0["ManifestKey"] = Data([3, 0, 0]) },
            "Manifest.plist ManifestKey is 3 bytes, too short for a class and a wrapped key")
        let wrapped = Array(encryptor.manifestKeyBytes.dropFirst(4))
        XCTAssertEqual(
            decryption { $0["ManifestKey"] = Data([12, 0, 0, 0] + wrapped) },
            "Manifest.plist ManifestKey names protection class 12, which the backup's keybag has no unlocked key for")
        XCTAssertEqual(
            decryption { $0["ManifestKey"] = Data([2, 0, 0, 0] + wrapped) },
            "Manifest.plist ManifestKey does not unwrap with the key of protection class 2: corrupt")
    }

    func testWrongSizeCiphertexts() throws {
        let encryptor = TestBackupEncryptor(password: Self.password)
        let cipher = try BackupDecryption(manifestPlist: encryptor.manifestPlistEntries, password: Self.password)
        let (bytes, key) = encryptor.encryptFile(TestBackupEncryptor.random(20))
        XCTAssertEqual(
            inputError { _ = try cipher.file(Array(bytes.dropLast()), encryptionKey: key, size: 20) },
            "backup file: 31 bytes of ciphertext, not a whole number of 16-byte AES blocks")
        XCTAssertEqual(
            inputError { _ = try cipher.file(bytes, encryptionKey: key, size: 33) },
            "backup file: 32 bytes of ciphertext, fewer than its MBFile Size (33)")
        XCTAssertEqual(
            inputError { _ = try cipher.file(bytes, encryptionKey: key, size: -1) },
            "backup file: MBFile Size is negative (-1)")
        XCTAssertEqual(
            inputError {
                _ = try cipher.file(bytes, encryptionKey: [3, 0, 0, 0] + key.dropFirst(4).dropLast(8), size: 20)
            },
            "MBFile EncryptionKey does not unwrap with the key of protection class 3: corrupt")
        XCTAssertEqual(
            inputError { _ = try cipher.manifestDatabase(TestBackupEncryptor.random(4097)) },
            "Manifest.db: 4097 bytes of ciphertext, not a whole number of 16-byte AES blocks")
        // The wrong key decrypts to noise of the right length: the Size cut still holds.
        let other = encryptor.encryptFile([]).encryptionKey
        XCTAssertEqual(try cipher.file(bytes, encryptionKey: other, size: 20).count, 20)
    }

    /// The PBKDF2 chain's order (SHA-256 with DPSL/DPIC first, then SHA-1 with SALT/ITER) proven
    /// against Python's hashlib: a class key wrapped with Python's key unlocks.
    func testPasswordKeyMatchesPython() throws {
        try Tool.require("python3", for: "the PBKDF2 known vector is computed by Python's hashlib")
        let dpsl = Array(0..<20).map { UInt8($0) }
        let salt = Array(100..<120).map { UInt8($0) }
        let script = """
            import hashlib
            a = hashlib.pbkdf2_hmac('sha256', b'\(Self.password)', bytes(range(0, 20)), 1000, 32)
            print(hashlib.pbkdf2_hmac('sha1', a, bytes(range(100, 120)), 10, 32).hex())
            """
        let hex = try python(script).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(hex.count, 64)
        let pythonKey = SymmetricKey(
            data: stride(from: 0, to: hex.count, by: 2).map {
                UInt8(hex.dropFirst($0).prefix(2), radix: 16)!
            })

        let encryptor = TestBackupEncryptor(
            password: Self.password, sha256Rounds: 1000, sha1Rounds: 10,
            sha256Salt: dpsl, sha1Salt: salt)
        let keybag = try BackupKeybag(encryptor.keybag)
        XCTAssertEqual(keybag.doubleProtectionIterations, 1000)
        XCTAssertEqual(keybag.iterations, 10)
        XCTAssertEqual(keybag.classKeys.count, 11)
        let swiftKey = try BackupDecryption.passwordKey(Self.password, keybag: keybag)
        XCTAssertEqual(swiftKey.withUnsafeBytes { Array($0) }, pythonKey.withUnsafeBytes { Array($0) })

        // A keybag whose only class key is wrapped with Python's key, and a ManifestKey under it.
        typealias R = TestBackupEncryptor
        let classKey = SymmetricKey(size: .bits256)
        let manifestKey = SymmetricKey(size: .bits256)
        let wrappedClassKey = Array(try AES.KeyWrap.wrap(classKey, using: pythonKey))
        let wrappedManifestKey = Array(try AES.KeyWrap.wrap(manifestKey, using: classKey))
        let bag =
            R.record("VERS", R.u32(5)) + R.record("TYPE", R.u32(1)) + R.record("UUID", R.random(16))
            + R.record("WRAP", R.u32(0)) + R.record("SALT", salt) + R.record("ITER", R.u32(10))
            + R.record("DPIC", R.u32(1000)) + R.record("DPSL", dpsl) + R.record("UUID", R.random(16))
            + R.record("CLAS", R.u32(3)) + R.record("WRAP", R.u32(2)) + R.record("KTYP", R.u32(0))
            + R.record("WPKY", wrappedClassKey)
        let decryption = try BackupDecryption(
            keybag: BackupKeybag(bag), manifestKey: R.le32(3) + wrappedManifestKey,
            password: Self.password)
        XCTAssertEqual(decryption.manifestKey, manifestKey.withUnsafeBytes { Array($0) })
    }
}
