import SandboxAuditSystem

/// Decrypts what an encrypted Finder or iTunes backup holds: its `Manifest.db` and its files'
/// bytes. The backup reader asks for one when `Manifest.plist` says `IsEncrypted`;
/// `BackupDecryption` is the one made from the backup's keybag and password.
///
/// Ciphertext is read through `read` (bytes at an offset, fewer only at the end: a `pread` of
/// the descriptor held for the file), so only the blocks needed are read and decrypted.
///
/// The format, as the public readers implement it: iOSbackup
/// (https://github.com/avibrazil/iOSbackup), pymobiledevice3
/// (https://github.com/doronz88/pymobiledevice3), mvt (https://github.com/mvt-project/mvt).
protocol BackupCipher: Sendable {
    /// Decrypts the backup's `Manifest.db` (`size` bytes of ciphertext) into `out` (at least
    /// `size` bytes), a block run at a time; returns the plain length, its padding removed.
    /// `what` names the file in errors.
    func manifestDatabase(size: Int, what: String, read: CiphertextRead, into out: UnsafeMutableRawBufferPointer) throws -> Int
    /// The first `limit` plain bytes (at most its `MBFile` `Size`) of one file of the backup,
    /// `ciphertextSize` bytes long: only the blocks that hold them are read and decrypted.
    /// `encryptionKey` is its `MBFile`'s `EncryptionKey` (a 4-byte little-endian protection
    /// class, then the wrapped key).
    func file(encryptionKey: [UInt8], size: Int64, ciphertextSize: Int64, limit: Int, what: String, read: CiphertextRead) throws -> [UInt8]
}

/// Ciphertext bytes at an offset: `count` of them, fewer only at the end of the file.
typealias CiphertextRead = (_ offset: Int64, _ count: Int) throws -> [UInt8]

extension BackupCipher {
    /// The plain bytes of a whole encrypted `Manifest.db` held in memory.
    func manifestDatabase(_ encrypted: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: encrypted.count)
        let n = try out.withUnsafeMutableBytes { buffer in
            try manifestDatabase(size: encrypted.count, what: "Manifest.db", read: Self.reader(encrypted), into: buffer)
        }
        return Array(out.prefix(n))
    }

    /// The plain bytes of a whole encrypted file held in memory, cut to `size`.
    func file(_ encrypted: [UInt8], encryptionKey: [UInt8], size: Int64) throws -> [UInt8] {
        try file(encryptionKey: encryptionKey, size: size, ciphertextSize: Int64(encrypted.count), limit: Int.max,
                 what: "backup file", read: Self.reader(encrypted))
    }

    static func reader(_ bytes: [UInt8]) -> CiphertextRead {
        { offset, count in
            let start = Int(clamping: min(max(offset, 0), Int64(bytes.count)))
            return Array(bytes[start..<(start + min(count, bytes.count - start))])
        }
    }
}
