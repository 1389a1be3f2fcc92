import Foundation
import SandboxAuditSystem

/// A walk's entries in path-byte order, as columns (`WalkEntries.ordered()`): what the
/// inventory classifies and every rule and report reads, an entry being its position.
@usableFromInline package struct EntryColumns: EntryColumnStore, Sendable {
    /// Every folder an entry lies in, and every folder above one (named by no entry of an
    /// archive or a backup that stores only files: implied).
    let folders: FolderTable
    /// Each folder's parent (-1 for the root, folder 0).
    let folderParent: [Int32]
    /// The folder each directory entry is (the folder of its path), for the directories
    /// whose folder holds something.
    @usableFromInline let folderOfDirectory: [Int32: Int32]
    @usableFromInline let folder: [Int32]
    /// The names in entry order (`WalkEntries.names`).
    @usableFromInline let names: [UInt8]
    @usableFromInline let nameEnd: NarrowColumn<Int>
    @usableFromInline let size: NarrowColumn<Int64>
    @usableFromInline let allocated: NarrowColumn<Int64>
    @usableFromInline let modifiedSeconds: NarrowColumn<Int64>
    @usableFromInline let modifiedNanoseconds: [Int32]
    @usableFromInline let device: NarrowColumn<UInt64>
    @usableFromInline let inode: NarrowColumn<UInt64>
    @usableFromInline let mode: [UInt32]
    @usableFromInline let links: [UInt32]
    @usableFromInline let kind: [EntryKind]
    @usableFromInline let marks: [Int32: [AttributeMark]]
    @usableFromInline let content: [Int32: [UInt8]]
    @usableFromInline let protection: [Int32: Int64]
    /// Per entry, which of the sparse fields above hold something for it (`hasMarks` …), so
    /// that a pass over every entry's marks looks up only the few that have some.
    @usableFromInline let held: [UInt8]
    @usableFromInline static let hasMarks: UInt8 = 1, hasContent: UInt8 = 2, hasProtection: UInt8 = 4

    package var count: Int { folder.count }

    @inlinable func name(_ i: Int) -> ArraySlice<UInt8> {
        names[nameEnd.span(i)]
    }

    /// Entry `i`'s path against `other`, byte by byte, without making the path: < 0, 0 or > 0.
    /// Read in place from the folders' and names' buffers (no slice made: a report looks up an
    /// entry for each of its findings, ten comparisons or so each).
    func comparePath(_ i: Int, _ other: [UInt8]) -> Int {
        let f = folder[i]
        if f < 0 { return other.isEmpty ? 0 : -1 }
        let parentStart = folders.start[Int(f)]
        let parentEnd = folders.start[Int(f) + 1]
        let name = nameEnd.span(i)
        return folders.bytes.withUnsafeBufferPointer { fb in
            names.withUnsafeBufferPointer { nb in
                other.withUnsafeBufferPointer { o in
                    var k = 0
                    /// `count` bytes at `base` against `other` from `k` on: nil while equal (then
                    /// `k` moves past them).
                    func step(_ base: UnsafePointer<UInt8>?, _ count: Int) -> Int? {
                        let left = o.count - k
                        let common = Swift.min(count, left)
                        if common > 0, let base, let ob = o.baseAddress {
                            let c = memcmp(base, ob + k, common)
                            if c != 0 { return c < 0 ? -1 : 1 }
                        }
                        if count > left { return 1 }
                        k += count
                        return nil
                    }
                    if parentEnd > parentStart {
                        if let c = step(fb.baseAddress.map { $0 + parentStart }, parentEnd - parentStart) { return c }
                        let slash = UInt8(ascii: "/")
                        if k == o.count { return 1 }
                        if o[k] != slash { return slash < o[k] ? -1 : 1 }
                        k += 1
                    }
                    if let c = step(nb.baseAddress.map { $0 + name.lowerBound }, name.count) { return c }
                    return k == o.count ? 0 : -1
                }
            }
        }
    }
}

/// The columns the walk's entries (`WalkEntries`) and their ordered copy (`EntryColumns`) both
/// hold, and what is read from them alike.
protocol EntryColumnStore {
    var folders: FolderTable { get }
    var folder: [Int32] { get }
    var names: [UInt8] { get }
    var nameEnd: NarrowColumn<Int> { get }
    var size: NarrowColumn<Int64> { get }
    var allocated: NarrowColumn<Int64> { get }
    var modifiedSeconds: NarrowColumn<Int64> { get }
    var modifiedNanoseconds: [Int32] { get }
    var device: NarrowColumn<UInt64> { get }
    var inode: NarrowColumn<UInt64> { get }
    var mode: [UInt32] { get }
    var links: [UInt32] { get }
    var kind: [EntryKind] { get }
    var marks: [Int32: [AttributeMark]] { get }
    var content: [Int32: [UInt8]] { get }
    var protection: [Int32: Int64] { get }
}

extension EntryColumnStore {
    /// The last component of entry `i`'s path.
    func name(_ i: Int) -> ArraySlice<UInt8> { names[nameEnd.span(i)] }

    /// The path of entry `i`, made now.
    func path(_ i: Int) -> ContainerPath {
        let f = folder[i]
        if f < 0 { return .root }
        let parent = folders[f]
        let name = names[nameEnd.span(i)]
        if parent.isEmpty { return ContainerPath(bytes: Array(name)) }
        var b = [UInt8]()
        b.reserveCapacity(parent.count + 1 + name.count)
        b += parent
        b.append(UInt8(ascii: "/"))
        b += name
        return ContainerPath(bytes: b)
    }

    /// Entry `i` as one value (its path made): for the few readers that want a `WalkEntry`.
    func walkEntry(_ i: Int) -> WalkEntry {
        let k = kind[i]
        let key = Int32(i)
        let held = content[key]
        return WalkEntry(
            path: path(i), kind: k.kind, special: k.special, size: size[i], allocated: allocated[i], mode: mode[i],
            modifiedSeconds: modifiedSeconds[i], modifiedNanoseconds: modifiedNanoseconds[i], device: device[i],
            inode: inode[i], linkCount: UInt64(links[i]), symlinkTarget: k.kind == .symlink ? held : nil,
            header: k.kind == .symlink ? nil : held, marks: marks[key] ?? [],
            protectionClass: ProtectionClass(recorded: protection[key]))
    }
}

extension WalkEntries {
    /// The entries in path-byte order. The order is made folder by folder, with no path made:
    /// within a folder, its entries sort by name and each subfolder's contents as one block
    /// keyed by the subfolder's name and a slash (whatever follows "NAME/" in a path sorts
    /// where "NAME/" does, against any name without a slash); the whole order is then those
    /// folders' orders read depth first. Each folder's own sort is small, and the folders
    /// are shared out between the cores.
    /// The columns are emptied one by one as their ordered copies are made, so that at most one
    /// column is held twice at a time. `sortRuns`: how many runs the folders' sort is cut into
    /// (the tests ask for more than this machine's cores); by default one per core.
    package mutating func ordered(sortRuns: Int? = nil) -> EntryColumns {
        var folders = self.folders
        // Every folder's parent, added when no entry lies in it (an archive's or a backup's
        // folder that is stored with nothing but what is beneath it).
        var parent: [Int32] = [-1]
        var f: Int32 = 1
        while Int(f) < folders.count {
            let path = folders[f]
            let above = Array(path[..<(path.lastIndex(of: UInt8(ascii: "/")) ?? path.startIndex)])
            parent.append(folders.number(of: above[...]))
            f += 1
        }
        let folderCount = folders.count
        let n = count

        // Each folder's keys: its entries (the entry's number) and its subfolders (the
        // folder's number with the top bit set), grouped by folder.
        var keyStart = [Int](repeating: 0, count: folderCount + 1)
        for g in folder where g >= 0 { keyStart[Int(g) + 1] += 1 }
        for g in 1..<folderCount { keyStart[Int(parent[g]) + 1] += 1 }
        for g in 0..<folderCount { keyStart[g + 1] += keyStart[g] }
        var keys = [UInt32](repeating: 0, count: keyStart[folderCount])
        var cursor = keyStart
        for i in 0..<n where folder[i] >= 0 {
            let g = Int(folder[i])
            keys[cursor[g]] = UInt32(i)
            cursor[g] += 1
        }
        for g in 1..<folderCount {
            let p = Int(parent[g])
            keys[cursor[p]] = PathOrder.folderBit | UInt32(g)
            cursor[p] += 1
        }
        keys = PathOrder.sortFolders(
            keys, keyStart: keyStart, names: names, nameEnd: nameEnd, folders: folders,
            parts: sortRuns ?? Parallel.parts(keys.count, atLeast: 20_000))

        // Depth first: the root itself (an entry of some backups) first.
        var order = [Int32]()
        order.reserveCapacity(n)
        for i in 0..<n where folder[i] < 0 { order.append(Int32(i)) }
        var stack: [(folder: Int, next: Int)] = [(0, keyStart[0])]
        while let top = stack.last {
            guard top.next < keyStart[top.folder + 1] else {
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            let key = keys[top.next]
            if key & PathOrder.folderBit != 0 {
                let g = Int(key & ~PathOrder.folderBit)
                stack.append((g, keyStart[g]))
            } else {
                order.append(Int32(key))
            }
        }
        keys = []
        precondition(order.count == n, "every entry lies in a folder reached from the root")

        var inverse = [Int32](repeating: 0, count: n)
        for (k, i) in order.enumerated() { inverse[Int(i)] = Int32(k) }
        /// The column in order; the unordered one let go.
        func gather<T: Sendable>(_ column: inout [T]) -> [T] {
            let out = PathOrder.gather(column, order)
            column = []
            return out
        }
        // The names too, so that each entry's starts where the one before it ends: a run of the
        // order per core, then the runs one after the other.
        let unorderedNames = names
        let unorderedEnds = nameEnd
        let newOrder = order
        let nameRuns = Parallel.runs(n, parts: Parallel.parts(n, atLeast: 100_000))
        let nameParts = Parallel.map(nameRuns.count) { part -> (names: [UInt8], ends: [Int]) in
            var bytes: [UInt8] = []
            var ends: [Int] = []
            ends.reserveCapacity(nameRuns[part].count)
            for k in nameRuns[part] {
                let i = Int(newOrder[k])
                bytes += unorderedNames[unorderedEnds.span(i)]
                ends.append(bytes.count)
            }
            return (bytes, ends)
        }
        names = []
        nameEnd = NarrowColumn()
        var orderedNames = [UInt8]()
        orderedNames.reserveCapacity(nameParts.reduce(0) { $0 + $1.names.count })
        var orderedNameEnd = NarrowColumn<Int>()
        orderedNameEnd.reserveCapacity(n)
        for part in nameParts {
            let base = orderedNames.count
            for end in part.ends { orderedNameEnd.append(base + end) }
            orderedNames += part.names
        }
        func renumber<T>(_ sparse: [Int32: T]) -> [Int32: T] {
            var out = [Int32: T](minimumCapacity: sparse.count)
            for (i, v) in sparse { out[inverse[Int(i)]] = v }
            return out
        }
        let kinds = gather(&kind)
        let orderedFolder = gather(&folder)
        let orderedSize = size.gathered(order, inverse: inverse)
        let orderedAllocated = allocated.gathered(order, inverse: inverse)
        let orderedSeconds = modifiedSeconds.gathered(order, inverse: inverse)
        let orderedNanoseconds = gather(&modifiedNanoseconds)
        let orderedDevice = device.gathered(order, inverse: inverse)
        let orderedInode = inode.gathered(order, inverse: inverse)
        let orderedMode = gather(&mode)
        let orderedLinks = gather(&links)
        // The folder each directory is: its path looked up among the folders.
        var folderOfDirectory: [Int32: Int32] = [:]
        var scratch: [UInt8] = []
        for k in 0..<n where kinds[k] == .directory && orderedFolder[k] >= 0 {
            scratch.removeAll(keepingCapacity: true)
            let above = folders[orderedFolder[k]]
            if !above.isEmpty {
                scratch += above
                scratch.append(UInt8(ascii: "/"))
            }
            scratch += orderedNames[orderedNameEnd.span(k)]
            if let g = folders.find(scratch[...]) { folderOfDirectory[Int32(k)] = g }
        }
        let orderedMarks = renumber(marks)
        let orderedContent = renumber(content)
        let orderedProtection = renumber(protection)
        marks = [:]
        content = [:]
        protection = [:]
        var held = [UInt8](repeating: 0, count: n)
        for k in orderedMarks.keys { held[Int(k)] |= EntryColumns.hasMarks }
        for k in orderedContent.keys { held[Int(k)] |= EntryColumns.hasContent }
        for k in orderedProtection.keys { held[Int(k)] |= EntryColumns.hasProtection }
        return EntryColumns(
            folders: folders, folderParent: parent, folderOfDirectory: folderOfDirectory, folder: orderedFolder,
            names: orderedNames,
            nameEnd: orderedNameEnd, size: orderedSize, allocated: orderedAllocated,
            modifiedSeconds: orderedSeconds, modifiedNanoseconds: orderedNanoseconds, device: orderedDevice,
            inode: orderedInode, mode: orderedMode, links: orderedLinks, kind: kinds, marks: orderedMarks,
            content: orderedContent, protection: orderedProtection, held: held)
    }
}

/// The sort inside each folder (`WalkEntries.ordered`).
enum PathOrder {
    static let folderBit: UInt32 = 1 << 31

    /// `column` read in `order` (old positions), in a run per core for a large one (each run an
    /// array of its own, then joined: a copy, where writing the runs in place through
    /// `Parallel.array` went through the generic writer element by element).
    static func gather<T: Sendable>(_ column: [T], _ order: [Int32]) -> [T] {
        let runs = Parallel.runs(order.count, parts: Parallel.parts(order.count, atLeast: 100_000))
        guard runs.count > 1 else { return order.map { column[Int($0)] } }
        return Parallel.map(runs.count) { part in runs[part].map { column[Int(order[$0])] } }.flatMap { $0 }
    }

    /// Each folder's run of `keys` sorted: by name, a subfolder's name followed by a slash;
    /// equal names (an archive's duplicate members) in the order they were appended. The
    /// folders are cut into a run per core of about as many keys each, sorted at once.
    static func sortFolders(
        _ keys: [UInt32], keyStart: [Int], names: [UInt8], nameEnd: NarrowColumn<Int>,
        folders: FolderTable, parts: Int
    ) -> [UInt32] {
        let folderCount = keyStart.count - 1
        let total = keys.count
        var runs: [Range<Int>] = [0..<total]
        var folderRuns: [Range<Int>] = [0..<folderCount]
        if parts > 1, folderCount > 0 {
            // Each run ends with the folder where its share of the keys is reached.
            var cuts = [0]
            for w in 1..<parts {
                var low = cuts.last!
                var high = folderCount
                while low < high {
                    let mid = (low + high) / 2
                    if keyStart[mid + 1] < total * w / parts { low = mid + 1 } else { high = mid }
                }
                cuts.append(max(cuts.last!, min(low + 1, folderCount)))
            }
            cuts.append(folderCount)
            folderRuns = (0..<parts).map { cuts[$0]..<cuts[$0 + 1] }
            runs = (0..<parts).map { keyStart[cuts[$0]]..<keyStart[cuts[$0 + 1]] }
        }
        let folderNameStart = (0..<folderCount).map { folders.nameStart(Int32($0)) }
        let folderEnd = Array(folders.start.dropFirst())
        let folderBytes = folders.bytes
        let folderRunsHeld = folderRuns
        return Parallel.array(count: total, runs: runs) { (part, out: inout RunWriter<UInt32>) in
            names.withUnsafeBufferPointer { nb in
                folderBytes.withUnsafeBufferPointer { fb in
                    let slash = UInt8(ascii: "/")
                    /// The bytes of a key's name, and whether a slash follows them.
                    func bytes(_ key: UInt32) -> (UnsafePointer<UInt8>?, Int, Bool) {
                        if key & folderBit != 0 {
                            let g = Int(key & ~folderBit)
                            return (
                                fb.baseAddress.map { $0 + folderNameStart[g] }, folderEnd[g] - folderNameStart[g], true
                            )
                        }
                        let name = nameEnd.span(Int(key))
                        return (nb.baseAddress.map { $0 + name.lowerBound }, name.count, false)
                    }
                    func less(_ a: UInt32, _ b: UInt32) -> Bool {
                        let (pa, la, sa) = bytes(a)
                        let (pb, lb, sb) = bytes(b)
                        let common = min(la, lb)
                        if common > 0, let pa, let pb {
                            let c = memcmp(pa, pb, common)
                            if c != 0 { return c < 0 }
                        }
                        // One name is the other's start: what follows it (a slash, or
                        // nothing) against the other's next byte.
                        if la == lb {
                            if sa != sb { return !sa }
                            return (a & ~folderBit) < (b & ~folderBit)
                        }
                        if la < lb {
                            guard sa, let pb else { return true }
                            return slash < pb[la]
                        }
                        guard sb, let pa else { return false }
                        return pa[lb] < slash
                    }
                    /// A key's first 8 bytes, a subfolder's slash included, as one number
                    /// (zeros past its end: a name holds none): two keys whose numbers differ
                    /// sort as their numbers do, with no byte of the names looked at again.
                    func prefix(_ key: UInt32) -> UInt64 {
                        let (p, l, s) = bytes(key)
                        var v: UInt64 = 0
                        for k in 0..<8 {
                            let b: UInt8 = k < l ? p![k] : (k == l && s ? slash : 0)
                            v = v << 8 | UInt64(b)
                        }
                        return v
                    }
                    var run: [(prefix: UInt64, key: UInt32)] = []
                    for g in folderRunsHeld[part] {
                        run.removeAll(keepingCapacity: true)
                        for key in keys[keyStart[g]..<keyStart[g + 1]] { run.append((prefix(key), key)) }
                        if run.count > 1 {
                            run.sort { $0.prefix != $1.prefix ? $0.prefix < $1.prefix : less($0.key, $1.key) }
                        }
                        for item in run { out.append(item.key) }
                    }
                }
            }
        }.0
    }
}
