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
    /// The plain bytes of the `count` bytes of the backup's `Manifest.db` ciphertext at
    /// `offset` (both multiples of 16), no padding removed: AES-CBC needs only the block before
    /// them, so a page is decrypted alone, when SQLite reads it. `what` names the file in errors.
    func manifestDatabaseBlocks(at offset: Int64, count: Int, what: String, read: CiphertextRead) throws -> [UInt8]
    /// The first `limit` plain bytes (at most its `MBFile` `Size`) of one file of the backup,
    /// `ciphertextSize` bytes long: only the blocks that hold them are read and decrypted.
    /// `encryptionKey` is its `MBFile`'s `EncryptionKey` (a 4-byte little-endian protection
    /// class, then the wrapped key).
    func file(
        encryptionKey: [UInt8], size: Int64, ciphertextSize: Int64, limit: Int, what: String, read: CiphertextRead
    ) throws -> [UInt8]
}

/// Ciphertext bytes at an offset: `count` of them, fewer only at the end of the file.
typealias CiphertextRead = (_ offset: Int64, _ count: Int) throws -> [UInt8]

extension BackupCipher {
    /// Decrypts the backup's `Manifest.db` (`size` bytes of ciphertext) into `out` (at least
    /// `size` bytes), a block run at a time; returns the plain length, its padding removed.
    func manifestDatabase(size: Int, what: String, read: CiphertextRead, into out: inout [UInt8]) throws -> Int {
        try Self.checkBlocks(size, what: what)
        var done = 0
        while done < size {
            let count = min(Self.manifestRun, size - done)
            let plain = try manifestDatabaseBlocks(at: Int64(done), count: count, what: what, read: read)
            out[done..<(done + count)] = plain[0..<count]
            done += count
        }
        return size - Self.padding(size: size, last: Array(out[max(size - 16, 0)..<size]))
    }

    /// The plain length of the first `size` bytes of `Manifest.db`'s ciphertext, its padding
    /// removed: only the last block is decrypted.
    func manifestDatabaseLength(size: Int, what: String, read: CiphertextRead) throws -> Int {
        try Self.checkBlocks(size, what: what)
        guard size % 512 != 0, size > 0 else { return size }
        return size
            - Self.padding(
                size: size, last: try manifestDatabaseBlocks(at: Int64(size - 16), count: 16, what: what, read: read))
    }

    /// What `manifestDatabase(size:what:read:into:)` decrypts at a time (1 MiB).
    static var manifestRun: Int { 1 << 20 }

    static func checkBlocks(_ size: Int, what: String) throws {
        guard size % 16 == 0 else {
            throw InputError("\(what): \(size) bytes of ciphertext, not a whole number of 16-byte AES blocks")
        }
    }

    /// The PKCS#7 padding at the end of `size` plain bytes (`last`: their last block), when it is
    /// there. An SQLite file is a whole number of pages (512 bytes at least), so a ciphertext of
    /// such a length carries no padding at all.
    static func padding(size: Int, last: [UInt8]) -> Int {
        guard size % 512 != 0, size > 0, let pad = last.last.map(Int.init) else { return 0 }
        guard pad >= 1, pad <= 16, pad <= last.count, last.suffix(pad).allSatisfy({ Int($0) == pad }) else { return 0 }
        return pad
    }

    /// The plain bytes of a whole encrypted `Manifest.db` held in memory.
    func manifestDatabase(_ encrypted: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: encrypted.count)
        let n = try manifestDatabase(
            size: encrypted.count, what: "Manifest.db", read: Self.reader(encrypted), into: &out)
        return Array(out.prefix(n))
    }

    /// The plain bytes of a whole encrypted file held in memory, cut to `size`.
    func file(_ encrypted: [UInt8], encryptionKey: [UInt8], size: Int64) throws -> [UInt8] {
        try file(
            encryptionKey: encryptionKey, size: size, ciphertextSize: Int64(encrypted.count), limit: Int.max,
            what: "backup file", read: Self.reader(encrypted))
    }

    static func reader(_ bytes: [UInt8]) -> CiphertextRead {
        { offset, count in
            let start = Int(clamping: min(max(offset, 0), Int64(bytes.count)))
            return Array(bytes[start..<(start + min(count, bytes.count - start))])
        }
    }
}
