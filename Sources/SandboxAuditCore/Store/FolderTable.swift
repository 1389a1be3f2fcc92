import SandboxAuditSystem

/// The folders a walk's entries lie in, each once, by number: their whole paths (relative to
/// the root) in one byte buffer, found again by a hash of their bytes. Folder 0 is the root
/// (the empty path).
struct FolderTable: Sendable {
    private(set) var bytes: [UInt8] = []
    /// Folder `f`'s path is `bytes[start[f]..<start[f + 1]]`.
    private(set) var start: [Int] = [0, 0]
    /// The newest folder of each hash, and per folder the one before it with the same hash.
    private var newest: [Int: Int32]
    private var older: [Int32] = [-1]

    init() { newest = [FolderTable.hash([UInt8]()[...]): 0] }

    var count: Int { start.count - 1 }

    subscript(f: Int32) -> ArraySlice<UInt8> { bytes[start[Int(f)]..<start[Int(f) + 1]] }

    /// Where the last component of folder `f` starts in `bytes`.
    func nameStart(_ f: Int32) -> Int {
        let path = self[f]
        return path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? path.startIndex
    }

    private static func hash(_ path: ArraySlice<UInt8>) -> Int {
        var h = Hasher()
        path.withUnsafeBytes { h.combine(bytes: $0) }
        return h.finalize()
    }

    /// The number of `path`, nil when it is no folder here.
    func find(_ path: ArraySlice<UInt8>) -> Int32? {
        var f = newest[FolderTable.hash(path)] ?? -1
        while f >= 0 {
            if Bytes.compare(self[f], path) == 0 { return f }
            f = older[Int(f)]
        }
        return nil
    }

    /// The number of `path`, added when it is new.
    mutating func number(of path: ArraySlice<UInt8>) -> Int32 {
        let h = FolderTable.hash(path)
        var f = newest[h] ?? -1
        while f >= 0 {
            if Bytes.compare(self[f], path) == 0 { return f }
            f = older[Int(f)]
        }
        let added = Int32(count)
        older.append(newest[h] ?? -1)
        newest[h] = added
        bytes += path
        start.append(bytes.count)
        return added
    }
}
