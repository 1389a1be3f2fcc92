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

    /// The committed state of `wal` (held in memory) for a database of `pageSize`-byte pages.
    static func commit(_ wal: [UInt8], pageSize: Int) -> Result<Commit?, MBFile.Refusal> {
        commit(size: Int64(wal.count), pageSize: pageSize) { offset, count in
            let from = min(wal.count, Int(offset))
            return Array(wal[from..<min(wal.count, from + count)])
        }
    }

    /// How many bytes of frames one read takes (whole frames, at least one).
    static let batchBytes = 1 << 20

    /// The committed state of a WAL of `size` bytes read through `read(offset, count)` (fewer
    /// bytes at the end), for a database of `pageSize`-byte pages; nil when it holds no commit; a
    /// phrase when it is not a WAL of this database. As SQLite reads one
    /// (https://www.sqlite.org/walformat.html): the 32-byte header first, and nothing more
    /// when it is not a WAL of this database; then the frames in order, a batch of whole frames
    /// (about 1 MiB) at a time, until the first whose salts or running checksum do not match.
    /// Held: one batch and 4 bytes per frame (its page number), then the committed pages' map;
    /// the pages themselves stay in the file (`Commit.pages` are offsets in it).
    static func commit(size: Int64, pageSize: Int, read: (Int64, Int) throws -> [UInt8]) -> Result<
        Commit?, MBFile.Refusal
    > {
        guard size >= Int64(headerSize) else {
            return .failure(.init(reason: "\(size) bytes, shorter than a WAL header"))
        }
        guard let header = try? read(0, headerSize), header.count == headerSize else {
            return .failure(.init(reason: "its header could not be read"))
        }
        let magic = word(header, 0, bigEndian: true)
        guard magic & 0xFFFF_FFFE == 0x377F_0682 else { return .failure(.init(reason: "no WAL magic number")) }
        let bigEndian = magic & 1 == 1
        let walPageSize = Int(word(header, 8, bigEndian: true))
        guard walPageSize == pageSize, pageSize >= 512 else {
            return .failure(.init(reason: "its page size (\(walPageSize)) is not the database's (\(pageSize))"))
        }
        var sum = checksum(header[0..<24], bigEndian: bigEndian, (0, 0))
        guard sum.0 == word(header, 24, bigEndian: true), sum.1 == word(header, 28, bigEndian: true) else {
            return .failure(.init(reason: "its header checksum does not match"))
        }
        let salts = (word(header, 16, bigEndian: true), word(header, 20, bigEndian: true))
        let frameSize = frameHeaderSize + pageSize
        let perBatch = max(1, batchBytes / frameSize)
        var framePages: [UInt32] = []
        var committedFrames = 0
        var databasePages: UInt32 = 0
        var offset = Int64(headerSize)
        frames: while size - offset >= Int64(frameSize) {
            let count = Int(min(Int64(perBatch), (size - offset) / Int64(frameSize)))
            guard let batch = try? read(offset, count * frameSize), batch.count == count * frameSize else { break }
            for f in 0..<count {
                let at = f * frameSize
                let page = word(batch, at, bigEndian: true)
                let commitSize = word(batch, at + 4, bigEndian: true)
                guard page > 0, word(batch, at + 8, bigEndian: true) == salts.0,
                    word(batch, at + 12, bigEndian: true) == salts.1
                else { break frames }
                sum = checksum(batch[at..<at + 8], bigEndian: bigEndian, sum)
                sum = checksum(batch[at + frameHeaderSize..<at + frameSize], bigEndian: bigEndian, sum)
                guard sum.0 == word(batch, at + 16, bigEndian: true), sum.1 == word(batch, at + 20, bigEndian: true)
                else { break frames }
                framePages.append(page)
                if commitSize > 0 {
                    committedFrames = framePages.count
                    databasePages = commitSize
                }
            }
            offset += Int64(count * frameSize)
        }
        guard committedFrames > 0 else { return .success(nil) }
        var pages: [UInt32: Int] = [:]
        for (i, page) in framePages.prefix(committedFrames).enumerated() {
            pages[page] = headerSize + i * frameSize + frameHeaderSize
        }
        return .success(Commit(pages: pages, databasePages: databasePages, frames: committedFrames))
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

    static func word<C: RandomAccessCollection>(_ b: C, _ i: C.Index, bigEndian: Bool) -> UInt32
    where C.Element == UInt8, C.Index == Int {
        let (b0, b1, b2, b3) = (UInt32(b[i]), UInt32(b[i + 1]), UInt32(b[i + 2]), UInt32(b[i + 3]))
        return bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
    }
}
