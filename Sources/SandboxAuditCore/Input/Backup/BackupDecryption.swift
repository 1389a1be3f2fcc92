import Crypto
import Foundation
import SandboxAuditSystem
import _CryptoExtras

/// Decrypts an encrypted Finder or iTunes backup with its password, in memory.
///
/// The algorithm, as the public readers implement it: iphone_backup_decrypt
/// (https://github.com/jsharkey13/iphone_backup_decrypt, its `google_iphone_dataprotection.py`
/// and `iphone_backup.py`), iOSbackup (https://github.com/avibrazil/iOSbackup, its
/// `iOSbackup/__init__.py`) and mvt (https://github.com/mvt-project/mvt, its
/// `src/mvt/ios/decrypt.py`, built on iOSbackup). See docs/backup-encryption.md.
/// 1. password key = PBKDF2-HMAC-SHA1(PBKDF2-HMAC-SHA256(password, DPSL, DPIC, 32 bytes),
///    SALT, ITER, 32 bytes) — the SHA-1 step alone for keybags without DPSL/DPIC (before iOS 10.2);
/// 2. every class key whose `WRAP` has bit 2 is unwrapped (AES key wrap, RFC 3394) with the
///    password key; one that fails means the password is wrong;
/// 3. `Manifest.plist`'s `ManifestKey` (a 4-byte little-endian protection class, then the
///    wrapped key) is unwrapped with that class's key; `Manifest.db` is AES-256-CBC with a zero
///    IV under it;
/// 4. each file's `MBFile` `EncryptionKey` is read the same way; its bytes are AES-256-CBC with a
///    zero IV, cut to the `MBFile`'s `Size`. Only the blocks that hold the bytes asked for are
///    read and decrypted.
///
/// Only swift-crypto's primitives are used (`AES.KeyWrap`, `KDF.Insecure.PBKDF2`, `AES._CBC`).
struct BackupDecryption: BackupCipher {
    /// The unwrapped class keys' bytes, by protection class (bytes: swift-crypto's
    /// `SymmetricKey` is not `Sendable` on every platform).
    let classKeys: [UInt32: [UInt8]]
    /// The bytes of the key `Manifest.db` is encrypted with.
    let manifestKey: [UInt8]

    /// The error a wrong password gives, word for word.
    static let wrongPassword = "wrong password for the encrypted backup"

    /// Reads `BackupKeyBag` and `ManifestKey` from `Manifest.plist` (as
    /// `PropertyListSerialization` returns it) and unlocks them with `password`.
    init(manifestPlist: [String: Any], password: String) throws {
        guard let bag = manifestPlist["BackupKeyBag"] else {
            throw InputError("Manifest.plist: the backup is encrypted but has no BackupKeyBag")
        }
        guard let bagData = bag as? Data else {
            throw InputError("Manifest.plist: BackupKeyBag is not data")
        }
        guard let key = manifestPlist["ManifestKey"] else {
            throw InputError("Manifest.plist: the backup is encrypted but has no ManifestKey (Manifest.db's key)")
        }
        guard let keyData = key as? Data else {
            throw InputError("Manifest.plist: ManifestKey is not data")
        }
        try self.init(keybag: BackupKeybag([UInt8](bagData)), manifestKey: [UInt8](keyData), password: password)
    }

    /// Unlocks `keybag` with `password` and unwraps `manifestKey` (`Manifest.plist`'s
    /// `ManifestKey` bytes) with its class key.
    init(keybag: BackupKeybag, manifestKey: [UInt8], password: String) throws {
        let passwordKey = try Self.passwordKey(password, keybag: keybag)
        var unwrapped: [UInt32: [UInt8]] = [:]
        for classKey in keybag.classKeys where classKey.wrap & 2 != 0 {
            guard let wrapped = classKey.wrappedKey else { continue }
            // RFC 3394 wraps whole 8-byte blocks, two at least, behind an 8-byte check value.
            guard wrapped.count >= 24, wrapped.count % 8 == 0 else {
                throw InputError(
                    "Manifest.plist BackupKeyBag: the keybag is malformed: class \(classKey.protectionClass)'s WPKY "
                        + "is \(wrapped.count) bytes, not an RFC 3394 wrapped key (a multiple of 8 bytes, 24 at least)"
                )
            }
            guard let key = try? AES.KeyWrap.unwrap(wrapped, using: passwordKey) else {
                throw InputError(Self.wrongPassword)
            }
            unwrapped[classKey.protectionClass] = key.withUnsafeBytes { [UInt8]($0) }
        }
        guard !unwrapped.isEmpty else {
            throw InputError(
                "Manifest.plist BackupKeyBag: no class key is wrapped with the backup password (WRAP bit 2)")
        }
        classKeys = unwrapped
        self.manifestKey = try Self.unwrap(manifestKey, with: unwrapped, what: "Manifest.plist ManifestKey")
    }

    /// The key the class keys are wrapped with: PBKDF2-HMAC-SHA256 (DPSL, DPIC) then
    /// PBKDF2-HMAC-SHA1 (SALT, ITER), 32 bytes each. Real backups use DPIC 10,000,000 and ITER
    /// 10,000, below swift-crypto's checked minimum, hence `unsafeUncheckedRounds`.
    static func passwordKey(_ password: String, keybag: BackupKeybag) throws -> SymmetricKey {
        var secret = [UInt8](password.utf8)
        if let salt = keybag.doubleProtectionSalt, let rounds = keybag.doubleProtectionIterations {
            let first = try KDF.Insecure.PBKDF2.deriveKey(
                from: secret, salt: salt, using: .sha256,
                outputByteCount: 32, unsafeUncheckedRounds: rounds)
            secret = first.withUnsafeBytes { [UInt8]($0) }
        }
        return try KDF.Insecure.PBKDF2.deriveKey(
            from: secret, salt: keybag.salt, using: .insecureSHA1,
            outputByteCount: 32, unsafeUncheckedRounds: keybag.iterations)
    }

    func manifestDatabaseBlocks(at offset: Int64, count: Int, what: String, read: CiphertextRead) throws -> [UInt8] {
        try Self.blocks(at: offset, count: count, key: SymmetricKey(data: manifestKey), what: what, read: read)
    }

    func file(
        encryptionKey: [UInt8], size: Int64, ciphertextSize: Int64, limit: Int, what: String, read: CiphertextRead
    ) throws -> [UInt8] {
        guard size >= 0 else { throw InputError("\(what): MBFile Size is negative (\(size))") }
        guard ciphertextSize % 16 == 0 else {
            throw InputError("\(what): \(ciphertextSize) bytes of ciphertext, not a whole number of 16-byte AES blocks")
        }
        guard size <= ciphertextSize else {
            throw InputError("\(what): \(ciphertextSize) bytes of ciphertext, fewer than its MBFile Size (\(size))")
        }
        let key = try Self.unwrap(encryptionKey, with: classKeys, what: "MBFile EncryptionKey")
        // The blocks that hold the bytes wanted: never past the ciphertext, whose length is a
        // whole number of blocks, so the rounding cannot overflow.
        let wanted = min(Int64(max(limit, 0)), size)
        let blocks = wanted / 16 * 16 + (wanted % 16 == 0 ? 0 : 16)
        guard blocks <= Int64(Self.maximumDecryptedRead) else {
            throw InputError(
                "\(what): \(ByteSize.format(wanted)) asked, over the "
                    + "\(ByteSize.format(Int64(Self.maximumDecryptedRead))) decrypted for one read"
            )
        }
        let plain = try Self.blocks(at: 0, count: Int(blocks), key: SymmetricKey(data: key), what: what, read: read)
        return Array(plain.prefix(Int(wanted)))
    }

    /// One read of an encrypted file decrypts at most this (256 MiB); a rule asks for far less.
    static let maximumDecryptedRead = 256 << 20

    /// A wrapped key with its class: a 4-byte little-endian protection class, then the RFC 3394
    /// wrapped key (40 bytes for a 32-byte key).
    static func unwrap(_ classAndKey: [UInt8], with classKeys: [UInt32: [UInt8]], what: String) throws -> [UInt8] {
        guard classAndKey.count > 4 else {
            throw InputError("\(what) is \(classAndKey.count) bytes, too short for a class and a wrapped key")
        }
        let protectionClass = classAndKey[0..<4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard let classKey = classKeys[protectionClass] else {
            throw InputError(
                "\(what) names protection class \(protectionClass), which the backup's keybag has no unlocked key for")
        }
        guard let key = try? AES.KeyWrap.unwrap(classAndKey[4...], using: SymmetricKey(data: classKey)) else {
            throw InputError("\(what) does not unwrap with the key of protection class \(protectionClass): corrupt")
        }
        guard key.bitCount == 256 else {
            throw InputError("\(what) unwraps to a \(key.bitCount / 8)-byte key, not an AES-256 key")
        }
        return key.withUnsafeBytes { [UInt8]($0) }
    }

    /// The plain bytes of the `count` ciphertext bytes at `offset` (both multiples of 16),
    /// AES-256-CBC with a zero IV, no padding removed. A block needs only the ciphertext block
    /// before it (the zero IV for the first), so nothing before `offset - 16` is read.
    static func blocks(at offset: Int64, count: Int, key: SymmetricKey, what: String, read: CiphertextRead) throws
        -> [UInt8]
    {
        if count == 0 { return [] }
        let ivBytes = offset == 0 ? [UInt8](repeating: 0, count: 16) : try read(offset - 16, 16)
        let encrypted = try read(offset, count)
        guard ivBytes.count == 16, encrypted.count == count else {
            throw InputError(
                "\(what): the ciphertext ended before byte \(offset + Int64(count)) (it changed while it was read)")
        }
        return [UInt8](try AES._CBC.decrypt(encrypted, using: key, iv: AES._CBC.IV(ivBytes: ivBytes), noPadding: true))
    }
}
