import SandboxAuditSystem

/// The committed frames of a `Manifest.db-wal`: what a backup still being written holds beside
/// `Manifest.db`. Read as SQLite's own recovery reads a WAL without its index (the format:
/// "Database File Format", section 4, https://www.sqlite.org/fileformat2.html#the_write_ahead_log):
/// a 32-byte header (magic 0x377f0682 or 0x377f0683, whose low bit says the checksums' byte
/// order; version; page size; checkpoint sequence; two salts; a checksum of the header), then
/// frames of a 24-byte header (page number; the database's size in pages after a commit, else
/// 0; the two salts; a checksum running over every frame so far) and a page. The frames up to
/// the last valid commit are applied, later ones and everything after the first frame whose
/// salts or checksum do not match are not: the state a reader would see.
enum ManifestWAL {
    /// What applying the WAL does: the pages to copy (page number, offset of its bytes in the
    /// WAL; the last frame of a page wins) and the database's size in pages afterwards.
    struct Commit: Equatable {
        var pages: [UInt32: Int]
        var databasePages: UInt32
        var frames: Int
    }

    static let headerSize = 32
    static let frameHeaderSize = 24

    /// The committed state of `wal` for a database of `pageSize`-byte pages; nil when it holds no
    /// commit; a phrase when it is not a WAL of this database.
    static func commit(_ wal: [UInt8], pageSize: Int) -> Result<Commit?, MBFile.Refusal> {
        guard wal.count >= headerSize else { return .failure(.init(reason: "\(wal.count) bytes, shorter than a WAL header")) }
        let magic = word(wal, 0, bigEndian: true)
        guard magic & 0xFFFF_FFFE == 0x377F_0682 else { return .failure(.init(reason: "no WAL magic number")) }
        let bigEndian = magic & 1 == 1
        let walPageSize = Int(word(wal, 8, bigEndian: true))
        guard walPageSize == pageSize else {
            return .failure(.init(reason: "its page size (\(walPageSize)) is not the database's (\(pageSize))"))
        }
        var sum = checksum(wal[0..<24], bigEndian: bigEndian, (0, 0))
        guard sum.0 == word(wal, 24, bigEndian: true), sum.1 == word(wal, 28, bigEndian: true) else {
            return .failure(.init(reason: "its header checksum does not match"))
        }
        let salts = (word(wal, 16, bigEndian: true), word(wal, 20, bigEndian: true))
        var pending: [UInt32: Int] = [:]
        var committed: Commit?
        var frames = 0
        var offset = headerSize
        while wal.count - offset >= frameHeaderSize + pageSize {
            let page = word(wal, offset, bigEndian: true)
            let size = word(wal, offset + 4, bigEndian: true)
            guard page > 0, word(wal, offset + 8, bigEndian: true) == salts.0, word(wal, offset + 12, bigEndian: true) == salts.1 else { break }
            sum = checksum(wal[offset..<offset + 8], bigEndian: bigEndian, sum)
            sum = checksum(wal[offset + frameHeaderSize..<offset + frameHeaderSize + pageSize], bigEndian: bigEndian, sum)
            guard sum.0 == word(wal, offset + 16, bigEndian: true), sum.1 == word(wal, offset + 20, bigEndian: true) else { break }
            pending[page] = offset + frameHeaderSize
            frames += 1
            if size > 0 { committed = Commit(pages: pending, databasePages: size, frames: frames) }
            offset += frameHeaderSize + pageSize
        }
        return .success(committed)
    }

    /// SQLite's WAL checksum: over 32-bit words in pairs, `s0 += x0 + s1; s1 += x1 + s0`.
    static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, _ start: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = start
        var i = bytes.startIndex
        while i + 8 <= bytes.endIndex {
            s0 = s0 &+ word(bytes, i, bigEndian: bigEndian) &+ s1
            s1 = s1 &+ word(bytes, i + 4, bigEndian: bigEndian) &+ s0
            i += 8
        }
        return (s0, s1)
    }

    static func word<C: RandomAccessCollection>(_ b: C, _ i: C.Index, bigEndian: Bool) -> UInt32 where C.Element == UInt8, C.Index == Int {
        let (b0, b1, b2, b3) = (UInt32(b[i]), UInt32(b[i + 1]), UInt32(b[i + 2]), UInt32(b[i + 3]))
        return bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
    }
}
