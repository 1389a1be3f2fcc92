import Crypto
import Foundation
import _CryptoExtras

/// Makes an encrypted backup's keys and encrypted bytes the way iOS does (as the public readers
/// document it: https://github.com/jsharkey13/iphone_backup_decrypt,
/// https://github.com/avibrazil/iOSbackup), so the tests hold the reader against the algorithm,
/// never against a fake of it: random class keys (classes 1…11) wrapped (RFC 3394) with the key
/// derived from the password, a `BackupKeyBag` of TLV records, a `ManifestKey` of class 3, and
/// AES-256-CBC (zero IV, PKCS#7) under fresh per-file keys.
struct TestBackupEncryptor {
    let password: String
    let sha256Rounds: Int
    let sha1Rounds: Int
    let sha256Salt: [UInt8]
    let sha1Salt: [UInt8]
    /// The plain class keys, by protection class.
    let classKeys: [UInt32: SymmetricKey]
    /// The key Manifest.db is encrypted with, and its wrapped form with its class.
    let manifestKey: SymmetricKey
    let manifestKeyBytes: [UInt8]
    /// The keybag's TLV bytes.
    let keybag: [UInt8]

    /// `doubleProtection` false makes a keybag without DPSL/DPIC (before iOS 10.2). Fixed salts
    /// give a known vector; random ones otherwise.
    init(
        password: String, sha256Rounds: Int = 1000, sha1Rounds: Int = 10,
        sha256Salt: [UInt8]? = nil, sha1Salt: [UInt8]? = nil, doubleProtection: Bool = true
    ) {
        self.password = password
        self.sha256Rounds = sha256Rounds
        self.sha1Rounds = sha1Rounds
        self.sha256Salt = sha256Salt ?? Self.random(20)
        self.sha1Salt = sha1Salt ?? Self.random(20)
        var secret = [UInt8](password.utf8)
        if doubleProtection {
            secret = try! KDF.Insecure.PBKDF2.deriveKey(
                from: secret, salt: self.sha256Salt, using: .sha256,
                outputByteCount: 32, unsafeUncheckedRounds: sha256Rounds
            )
            .withUnsafeBytes { [UInt8]($0) }
        }
        let passwordKey = try! KDF.Insecure.PBKDF2.deriveKey(
            from: secret, salt: self.sha1Salt, using: .insecureSHA1,
            outputByteCount: 32, unsafeUncheckedRounds: sha1Rounds)

        var keys: [UInt32: SymmetricKey] = [:]
        var bag =
            Self.record("VERS", Self.u32(5)) + Self.record("TYPE", Self.u32(1))
            + Self.record("UUID", Self.random(16)) + Self.record("HMCK", Self.random(40))
            + Self.record("WRAP", Self.u32(0)) + Self.record("SALT", self.sha1Salt)
            + Self.record("ITER", Self.u32(UInt32(sha1Rounds)))
        if doubleProtection {
            bag +=
                Self.record("DPWT", Self.u32(1)) + Self.record("DPIC", Self.u32(UInt32(sha256Rounds)))
                + Self.record("DPSL", self.sha256Salt)
        }
        for protectionClass in UInt32(1)...11 {
            let key = SymmetricKey(size: .bits256)
            keys[protectionClass] = key
            bag +=
                Self.record("UUID", Self.random(16)) + Self.record("CLAS", Self.u32(protectionClass))
                + Self.record("WRAP", Self.u32(protectionClass == 4 ? 3 : 2)) + Self.record("KTYP", Self.u32(0))
                + Self.record("WPKY", [UInt8](try! AES.KeyWrap.wrap(key, using: passwordKey)))
        }
        classKeys = keys
        keybag = bag
        manifestKey = SymmetricKey(size: .bits256)
        manifestKeyBytes = Self.le32(3) + [UInt8](try! AES.KeyWrap.wrap(manifestKey, using: keys[3]!))
    }

    /// What `Manifest.plist` holds for an encrypted backup.
    var manifestPlistEntries: [String: Any] {
        ["BackupKeyBag": Data(keybag), "ManifestKey": Data(manifestKeyBytes), "IsEncrypted": true]
    }

    func encryptManifestDatabase(_ plain: [UInt8]) -> [UInt8] {
        Self.cbc(plain, key: manifestKey)
    }

    /// A file's encrypted bytes and its `MBFile` `EncryptionKey` (4-byte little-endian class,
    /// then the fresh key wrapped with that class's key).
    func encryptFile(_ plain: [UInt8], protectionClass: Int = 3) -> (bytes: [UInt8], encryptionKey: [UInt8]) {
        let key = SymmetricKey(size: .bits256)
        let wrapped = try! AES.KeyWrap.wrap(key, using: classKeys[UInt32(protectionClass)]!)
        return (Self.cbc(plain, key: key), Self.le32(UInt32(protectionClass)) + [UInt8](wrapped))
    }

    static func cbc(_ plain: [UInt8], key: SymmetricKey) -> [UInt8] {
        let iv = try! AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16))
        return [UInt8](try! AES._CBC.encrypt(plain, using: key, iv: iv))
    }

    static func record(_ tag: String, _ value: [UInt8]) -> [UInt8] {
        Array(tag.utf8) + u32(UInt32(value.count)) + value
    }

    static func u32(_ n: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: n >> $0) } }
    static func le32(_ n: UInt32) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: n >> $0) } }
    static func random(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 0...255) } }
}

extension TestBackupEncryptor {
    /// The builder's encryption hook: Manifest.plist's keys, Manifest.db and every file
    /// encrypted as a device does.
    var builderEncryption: BackupBuilder.Encryption {
        BackupBuilder.Encryption(
            manifestPlist: manifestPlistEntries,
            database: { encryptManifestDatabase($0) },
            file: { encryptFile($0) })
    }
}
