import Foundation
import SandboxAuditSystem

/// A walk's entries, in chunks of `chunkCapacity`, every chunk full but the last.
///
/// A million-entry walk holds about 100 MB of entries. In one array, they were copied each
/// time it doubled, with the old and the new copy both alive, then copied again into one array
/// for the two workers' entries; and the inventory, which copies every entry into its own, let
/// the walk's go only at the end. In chunks, appending never moves what is there, two walks'
/// entries join by moving whole chunks, and the inventory lets each chunk go once it has read
/// it (`release`), so a walk's entries and the inventory's are never both whole in memory.
///
/// A value type: a copy shares the chunks until either side writes to one.
package struct WalkEntries: RandomAccessCollection, MutableCollection, Sendable {
    static let chunkShift = 14
    /// 16,384 entries, 1.7 MB.
    static let chunkCapacity = 1 << chunkShift
    static let chunkMask = chunkCapacity - 1

    /// One chunk's entries, in pages of its own, given back to the system when the chunk is
    /// freed or released (`PageMemory`).
    final class Chunk: @unchecked Sendable {
        let base = PageMemory.allocate(WalkEntry.self, capacity: WalkEntries.chunkCapacity)
        var count = 0
        private var released = false

        func copy() -> Chunk {
            let other = Chunk()
            other.base.initialize(from: base, count: count)
            other.count = count
            return other
        }

        /// Frees the entries and their memory. Only the inventory's reading does this, on a
        /// chunk it owns alone and will not read again.
        func release() {
            guard !released else { return }
            base.deinitialize(count: count)
            count = 0
            PageMemory.deallocate(base, capacity: WalkEntries.chunkCapacity)
            released = true
        }

        /// Entry `j`, moved out (no reference counted): the chunk must be released with
        /// `releaseMovedOut` once every entry is.
        func moveOut(_ j: Int) -> WalkEntry {
            precondition(j >= 0 && j < count, "walk entry index out of range")
            return (base + j).move()
        }

        /// Frees the memory of a chunk whose entries were all moved out (`moveOut`).
        func releaseMovedOut() {
            count = 0
            release()
        }

        deinit { release() }
    }

    private(set) var chunks: [Chunk] = []
    package private(set) var count = 0

    package init() {}

    package init(_ entries: some Sequence<WalkEntry>) {
        for e in entries { append(e) }
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    package subscript(position: Int) -> WalkEntry {
        get {
            precondition(position >= 0 && position < count, "walk entry index out of range")
            return chunks[position >> Self.chunkShift].base[position & Self.chunkMask]
        }
        _modify {
            precondition(position >= 0 && position < count, "walk entry index out of range")
            let c = position >> Self.chunkShift
            if !isKnownUniquelyReferenced(&chunks[c]) { chunks[c] = chunks[c].copy() }
            yield &chunks[c].base[position & Self.chunkMask]
        }
    }

    package mutating func append(_ entry: WalkEntry) {
        if count & Self.chunkMask == 0 {
            chunks.append(Chunk())
        } else if !isKnownUniquelyReferenced(&chunks[chunks.count - 1]) {
            chunks[chunks.count - 1] = chunks[chunks.count - 1].copy()
        }
        let last = chunks[chunks.count - 1]
        (last.base + last.count).initialize(to: entry)
        last.count += 1
        count += 1
    }

    /// Adds `other`'s entries: its full chunks are taken as they are, and the entries of the
    /// two last chunks are packed after them. The order of entries changes only between chunks:
    /// the entries of one chunk stay together and in order, so one folder's listing keeps its
    /// order (a walk's entries are in no particular order otherwise: the inventory sorts).
    package mutating func join(_ other: WalkEntries) {
        guard !other.chunks.isEmpty else { return }
        guard !chunks.isEmpty else { self = other; return }
        var tail: [Chunk] = []
        if count & Self.chunkMask != 0 { tail.append(chunks.removeLast()) }
        count = chunks.count << Self.chunkShift
        var theirs = other.chunks
        if other.count & Self.chunkMask != 0 { tail.append(theirs.removeLast()) }
        chunks += theirs
        count += theirs.count << Self.chunkShift
        for chunk in tail {
            for j in 0..<chunk.count { append(chunk.base[j]) }
        }
    }

    /// Puts the entry at `order[k]` at `k`, for every `k` (`order` is a permutation of the
    /// indices): each entry is moved once, in place, with no second copy of the entries and
    /// no reference counted. A chunk another value shares is copied first, so afterwards no
    /// chunk is shared (`ownedChunks`).
    mutating func permute(by order: [Int]) {
        precondition(order.count == count, "a permutation of every entry")
        for c in chunks.indices where !isKnownUniquelyReferenced(&chunks[c]) { chunks[c] = chunks[c].copy() }
        let bases = chunks.map(\.base)
        func at(_ i: Int) -> UnsafeMutablePointer<WalkEntry> { bases[i >> Self.chunkShift] + (i & Self.chunkMask) }
        let held = UnsafeMutablePointer<WalkEntry>.allocate(capacity: 1)
        defer { held.deallocate() }
        var placed = [Bool](repeating: false, count: count)
        for start in 0..<count where !placed[start] {
            placed[start] = true
            guard order[start] != start else { continue }
            // One cycle of the permutation: the entry at `start` waits in `held` until the
            // place whose entry comes from `start` is reached.
            held.moveInitialize(from: at(start), count: 1)
            var k = start
            while order[k] != start {
                let from = order[k]
                at(k).moveInitialize(from: at(from), count: 1)
                placed[from] = true
                k = from
            }
            at(k).moveInitialize(from: held, count: 1)
        }
    }

    /// The entries read in place, for reading many without a bounds check or a reference count
    /// each (`EntryPointers`). Good while `body` runs and nothing writes to the entries.
    package func withEntryPointers<R>(_ body: (EntryPointers) throws -> R) rethrows -> R {
        try withExtendedLifetime(chunks) { try body(EntryPointers(bases: chunks.map { UnsafePointer($0.base) })) }
    }

    /// The chunks in order, as (the index of their first entry, the chunk), after `permute`:
    /// no other value shares them then, so a reader may move their entries out and free each
    /// (`Chunk.releaseMovedOut`).
    var ownedChunks: [(first: Int, chunk: Chunk)] {
        chunks.enumerated().map { ($0.offset << Self.chunkShift, $0.element) }
    }
}

/// The entries of `WalkEntries.withEntryPointers`: `w[i]` reads entry `i` in place, neither
/// copying the entry nor checking a bound (what `w[i].path` returns is a copy, as any read).
/// `@unchecked Sendable`: it holds the chunks' addresses, read-only, and is good only inside
/// `withEntryPointers`, which keeps the chunks alive while nothing writes to them; so several
/// threads may read through it at once (the inventory's two halves do).
package struct EntryPointers: @unchecked Sendable {
    let bases: [UnsafePointer<WalkEntry>]

    package subscript(i: Int) -> WalkEntry {
        _read { yield bases[i >> WalkEntries.chunkShift][i & WalkEntries.chunkMask] }
    }
}

extension WalkEntries {
    /// The entries' positions in path-byte order. The paths are copied into one buffer first,
    /// so that comparing two of them is a memcmp; large walks sort in two halves on two cores,
    /// then merge.
    func pathOrder() -> [Int] {
        let n = count
        var offsets = [Int](repeating: 0, count: n + 1)
        let arena = withEntryPointers { w in
            for i in 0..<n { offsets[i + 1] = offsets[i] + w[i].path.bytes.count }
            var arena = [UInt8](repeating: 0, count: Swift.max(offsets[n], 1))
            arena.withUnsafeMutableBufferPointer { a in
                for i in 0..<n {
                    w[i].path.bytes.withUnsafeBufferPointer { b in
                        if b.count > 0 { (a.baseAddress! + offsets[i]).update(from: b.baseAddress!, count: b.count) }
                    }
                }
            }
            return arena
        }
        let offsetTable = offsets
        /// `body` with `less`, the path order of two positions, read in place.
        @Sendable func withOrder<R>(_ body: ((Int, Int) -> Bool) -> R) -> R {
            arena.withUnsafeBufferPointer { a in
                offsetTable.withUnsafeBufferPointer { o in
                    let base = a.baseAddress!
                    return body { x, y in
                        let lx = o[x + 1] - o[x], ly = o[y + 1] - o[y]
                        let c = memcmp(base + o[x], base + o[y], Swift.min(lx, ly))
                        return c != 0 ? c < 0 : lx < ly
                    }
                }
            }
        }
        guard n >= 20_000 else { return withOrder { less in (0..<n).sorted(by: less) } }
        let halves = Parallel.map(2) { half in
            withOrder { less in Array(half == 0 ? 0..<n / 2 : n / 2..<n).sorted(by: less) }
        }
        return withOrder { less in
            let first = halves[0], second = halves[1]
            var merged: [Int] = []
            merged.reserveCapacity(n)
            var i = 0, j = 0
            while i < first.count && j < second.count {
                if less(second[j], first[i]) { merged.append(second[j]); j += 1 } else { merged.append(first[i]); i += 1 }
            }
            merged += first[i...]
            merged += second[j...]
            return merged
        }
    }
}
