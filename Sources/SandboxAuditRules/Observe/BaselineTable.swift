import SandboxAuditCore
import SandboxAuditSystem

/// A baseline's files as columns: every path's bytes in one buffer, the fixed fields in arrays,
/// one row per file, sorted by path bytes (the order the file is written in), no path twice. A
/// 200,000-file baseline holds 38 bytes a row besides its path's bytes, where a dictionary
/// of path objects held several allocations a row. A row is an index; a `ContainerPath` is made
/// only for the rows looked at.
package struct BaselineTable: Sendable {
    private var pathBytes: [UInt8] = []
    /// Where each row's path ends in `pathBytes` (it starts where the row before ends).
    private var pathEnds: [Int] = []
    private var sizes: [Int64] = []
    private var mtimes: [Int64] = []
    private var inodes: [UInt64] = []
    private var zones: [Zone] = []
    private var flags: [UInt8] = []
    /// Index into `ownerNames`; -1 for none.
    private var owners: [Int32] = []
    private var ownerNames: [String] = []
    private var ownerIndex: [String: Int32] = [:]
    /// A hard-linked file's other names, by the path of the row that records it, and the row
    /// path each other name belongs to: only hard-linked files have entries, so both stay small.
    private var linkNames: [[UInt8]: [ContainerPath]] = [:]
    private var linkedPath: [[UInt8]: [UInt8]] = [:]

    private enum Flag {
        static let backedUp: UInt8 = 1, hasInode: UInt8 = 2, excludedKnown: UInt8 = 4, excluded: UInt8 = 8
        static let keptKnown: UInt8 = 16, kept: UInt8 = 32, namesOwner: UInt8 = 64
    }

    package init() {}

    package var count: Int { sizes.count }
    package var isEmpty: Bool { sizes.isEmpty }
    package var indices: Range<Int> { 0..<count }

    /// Adds a row (`finish` sorts the rows when they were not added in order).
    /// `namesOwner`: the row has an `owner` key, even null.
    package mutating func append<C: Collection>(path: C, _ f: Baseline.File, namesOwner: Bool = true)
    where C.Element == UInt8 {
        pathBytes.append(contentsOf: path)
        pathEnds.append(pathBytes.count)
        sizes.append(f.size)
        mtimes.append(f.mtime)
        inodes.append(f.inode ?? 0)
        zones.append(f.zone)
        var bits: UInt8 = 0
        if f.backedUp { bits |= Flag.backedUp }
        if f.inode != nil { bits |= Flag.hasInode }
        if let e = f.excluded { bits |= Flag.excludedKnown | (e ? Flag.excluded : 0) }
        if let k = f.survivesUpdate { bits |= Flag.keptKnown | (k ? Flag.kept : 0) }
        if namesOwner { bits |= Flag.namesOwner }
        flags.append(bits)
        if let o = f.owner {
            if let i = ownerIndex[o] {
                owners.append(i)
            } else {
                let i = Int32(ownerNames.count)
                ownerNames.append(o)
                ownerIndex[o] = i
                owners.append(i)
            }
        } else {
            owners.append(-1)
        }
    }

    /// Records `names`, the other names of the file at `path` (a hard-linked file): a later
    /// scan that records it under one of them is the same file (docs/baseline-format.md).
    /// A name already recorded as another file's is returned, and not recorded.
    package mutating func addLinks<C: Collection>(_ names: [ContainerPath], of path: C) -> ContainerPath?
    where C.Element == UInt8 {
        let key = Array(path)
        for n in names {
            if linkedPath[n.bytes] != nil || n.bytes == key { return n }
            linkedPath[n.bytes] = key
        }
        linkNames[key, default: []].append(contentsOf: names)
        return nil
    }

    /// Whether some file records other names.
    package var hasLinks: Bool { !linkNames.isEmpty }

    /// Row `i`'s other names (a hard-linked file's), in path order; empty for most files.
    package func links(_ i: Int) -> [ContainerPath] {
        linkNames.isEmpty ? [] : (linkNames[Array(pathSlice(i))] ?? []).sorted()
    }

    /// The row of the file `path` names, as its recorded path or as another name of it.
    package func row(named path: ContainerPath) -> Int? {
        row(path) ?? linkedPath[path.bytes].flatMap { row(ContainerPath(bytes: $0)) }
    }

    /// An other name that is also a row's path (the file format can say it, a scan never
    /// writes it), the first in path order.
    package func linkNamingARow() -> ContainerPath? {
        linkedPath.keys.map { ContainerPath(bytes: $0) }.sorted().first { row($0) != nil }
    }

    private func range(_ i: Int) -> Range<Int> { (i == 0 ? 0 : pathEnds[i - 1])..<pathEnds[i] }

    /// Row `i`'s path bytes.
    package func pathSlice(_ i: Int) -> ArraySlice<UInt8> { pathBytes[range(i)] }
    package func path(_ i: Int) -> ContainerPath { ContainerPath(bytes: Array(pathSlice(i))) }
    package func size(_ i: Int) -> Int64 { sizes[i] }
    package func zone(_ i: Int) -> Zone { zones[i] }
    package func backedUp(_ i: Int) -> Bool { flags[i] & Flag.backedUp != 0 }
    package func excluded(_ i: Int) -> Bool? {
        flags[i] & Flag.excludedKnown != 0 ? flags[i] & Flag.excluded != 0 : nil
    }
    package func survivesUpdate(_ i: Int) -> Bool? { flags[i] & Flag.keptKnown != 0 ? flags[i] & Flag.kept != 0 : nil }
    package func owner(_ i: Int) -> String? { owners[i] < 0 ? nil : ownerNames[Int(owners[i])] }
    package func namesOwner(_ i: Int) -> Bool { flags[i] & Flag.namesOwner != 0 }

    /// Row `i` as a record.
    func file(_ i: Int) -> Baseline.File {
        Baseline.File(
            size: sizes[i], mtime: mtimes[i], zone: zones[i], backedUp: backedUp(i),
            inode: flags[i] & Flag.hasInode != 0 ? inodes[i] : nil, excluded: excluded(i),
            survivesUpdate: survivesUpdate(i), owner: owner(i))
    }

    /// The row of `path` (binary search: the rows are sorted once `finish` ran).
    package func row(_ path: ContainerPath) -> Int? {
        var low = 0
        var high = count
        let key = path.bytes
        while low < high {
            let mid = (low + high) / 2
            if Bytes.compare(pathSlice(mid), key) < 0 { low = mid + 1 } else { high = mid }
        }
        guard low < count, Bytes.compare(pathSlice(low), key) == 0 else { return nil }
        return low
    }

    subscript(path: ContainerPath) -> Baseline.File? { row(path).map(file) }

    /// Rows looked up one after another in path order (`scan --baseline` asks for every entry
    /// of a container in path order): each path is looked for forward from the row found for
    /// the one before, in steps that double, rather than by a binary search over every row. A
    /// path asked out of order is looked for from the first row: the answers are `row(_:)`'s.
    package struct Lookup {
        private let table: BaselineTable
        /// Every row before it sorts before the last path asked.
        private var cursor = 0

        init(_ table: BaselineTable) { self.table = table }

        package mutating func row(_ path: ContainerPath) -> Int? {
            let key = path.bytes[...]
            let n = table.count
            if cursor > 0, Bytes.compare(table.pathSlice(cursor - 1), key) >= 0 { cursor = 0 }
            var low = cursor
            var high = cursor
            var step = 1
            while high < n, Bytes.compare(table.pathSlice(high), key) < 0 {
                low = high + 1
                high = low + step
                step *= 2
            }
            high = min(high, n)
            while low < high {
                let mid = (low + high) / 2
                if Bytes.compare(table.pathSlice(mid), key) < 0 { low = mid + 1 } else { high = mid }
            }
            cursor = low
            guard low < n, Bytes.compare(table.pathSlice(low), key) == 0 else { return nil }
            return low
        }
    }

    /// A lookup of rows in path order, from the first row.
    package func lookup() -> Lookup { Lookup(self) }

    /// Two rows hold one path: the rows (in the order they were added).
    package struct Repeated: Error { package let first: Int, second: Int }

    /// Sorts the rows by path bytes when they were not added in order (a baseline is written
    /// sorted: checked in one pass), then refuses a path held twice (`Repeated`) or, with
    /// `keepingLast`, keeps the last row added for it.
    package mutating func finish(keepingLast: Bool = false) throws(Repeated) {
        var sorted = true
        for i in 1..<max(count, 1) {
            let c = Bytes.compare(pathSlice(i - 1), pathSlice(i))
            if c < 0 { continue }
            if !keepingLast, c == 0 { throw Repeated(first: i - 1, second: i) }
            sorted = false
            break
        }
        if sorted { return }
        // Rare (a baseline written by hand or by another tool): rows reordered through a permutation.
        let order = indices.sorted { a, b in
            let c = Bytes.compare(pathSlice(a), pathSlice(b))
            return c == 0 ? a < b : c < 0
        }
        var out = BaselineTable()
        out.ownerNames = ownerNames
        out.ownerIndex = ownerIndex
        out.linkNames = linkNames
        out.linkedPath = linkedPath
        var k = 0
        while k < order.count {
            var last = order[k]
            while k + 1 < order.count, Bytes.compare(pathSlice(order[k + 1]), pathSlice(last)) == 0 {
                if !keepingLast { throw Repeated(first: min(last, order[k + 1]), second: max(last, order[k + 1])) }
                k += 1
                last = order[k]
            }
            out.pathBytes.append(contentsOf: pathSlice(last))
            out.pathEnds.append(out.pathBytes.count)
            out.sizes.append(sizes[last])
            out.mtimes.append(mtimes[last])
            out.inodes.append(inodes[last])
            out.zones.append(zones[last])
            out.flags.append(flags[last])
            out.owners.append(owners[last])
            k += 1
        }
        self = out
    }
}
