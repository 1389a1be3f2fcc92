import Foundation

/// One entry with its zone and verdicts: the model every output is built from. A class, so
/// that the rules' passes over hundreds of thousands of entries share rather than copy them.
public final class InventoryEntry: Sendable {
    public let entry: WalkEntry
    public let zone: Zone
    /// The nearest path carrying the exclude attribute: the entry itself or its closest marked
    /// ancestor. Nil when not excluded.
    public let excludedBy: ContainerPath?
    /// False for the second and later paths of a hard-linked file, and for system entries:
    /// their bytes are not added to any total.
    public let countsInTotals: Bool

    init(entry: WalkEntry, zone: Zone, excludedBy: ContainerPath?, countsInTotals: Bool) {
        self.entry = entry
        self.zone = zone
        self.excludedBy = excludedBy
        self.countsInTotals = countsInTotals
    }

    public var path: ContainerPath { entry.path }
    public var isSystem: Bool { zone == .system }
    /// Nil for system entries, as are the verdicts below.
    public var excluded: Bool? { isSystem ? nil : excludedBy != nil }
    public var backedUp: Bool? { zone.isBackedUp.map { $0 && excludedBy == nil } }
    public var survivesUpdate: Bool? { zone.survivesUpdate }
    /// A restore onto a new device brings back the backed-up set only.
    public var survivesRestore: Bool? { backedUp }

    /// The exclude attribute on the entry itself, if any.
    public var ownExcludeMarks: [AttributeMark] { entry.marks.filter { $0.attribute == .exclude } }
    public var carriesExclude: Bool { entry.marks.contains { $0.attribute == .exclude } }
    public var carriesLegacy: Bool { entry.marks.contains { $0.attribute == .legacy } }
}

/// Counts and sizes for one zone. Sizes are apparent sizes of file contents (regular files and
/// symlinks); `allocated` is what the entries occupy on disk, directories included.
public struct ZoneTotals: Sendable, Equatable {
    public var files = 0
    public var directories = 0
    public var symlinks = 0
    public var others = 0
    public var size: Int64 = 0
    public var allocated: Int64 = 0
    public var backedUpSize: Int64 = 0
    public var excludedSize: Int64 = 0
    public var survivesUpdateSize: Int64 = 0

    public init() {}

    public static func + (a: ZoneTotals, b: ZoneTotals) -> ZoneTotals {
        var t = a
        t.files += b.files; t.directories += b.directories; t.symlinks += b.symlinks; t.others += b.others
        t.size += b.size; t.allocated += b.allocated; t.backedUpSize += b.backedUpSize
        t.excludedSize += b.excludedSize; t.survivesUpdateSize += b.survivesUpdateSize
        return t
    }
}

/// The classified container: entries sorted by path bytes, totals, and what could not be read.
public struct Inventory: Sendable {
    public let container: Container
    public let entries: [InventoryEntry]
    public let problems: [WalkProblem]
    public let rootMarks: [AttributeMark]
    public let sidecarCount: Int
    /// Totals per app zone (system entries are not counted).
    public let zoneTotals: [Zone: ZoneTotals]

    public var total: ZoneTotals { zoneTotals.values.reduce(ZoneTotals(), +) }
    /// Bytes an iCloud or computer backup carries.
    public var backupFootprint: Int64 { total.backedUpSize }
    /// Bytes an app update keeps (Documents and Library).
    public var keptOnUpdate: Int64 { total.survivesUpdateSize }
    /// Bytes a restore onto a new device brings back (the backed-up set).
    public var keptOnRestore: Int64 { total.backedUpSize }

    /// Classifies a walk. Hard-linked files count once: at their first backed-up path in byte
    /// order, or their first path when no link is backed up.
    public init(container: Container, walk: WalkResult) {
        self.container = container
        self.problems = walk.problems.sorted { $0.path < $1.path }
        self.rootMarks = walk.rootMarks
        self.sidecarCount = walk.sidecarCount
        let raw = Inventory.sortedByPath(walk.entries)

        // Exclusion flows down: a parent sorts before its children, so one pass suffices.
        let rootExcluded = walk.rootMarks.contains { $0.attribute == .exclude }
        var directoryExclusion: [ContainerPath: ContainerPath?] = [:]
        var excludedBy: [ContainerPath?] = []
        excludedBy.reserveCapacity(raw.count)
        // Siblings sort next to each other: remember the last parent looked up, so most entries
        // need neither a new parent path nor a dictionary lookup.
        var lastParent = ContainerPath.root
        var lastInherited: ContainerPath? = rootExcluded ? .root : nil
        for e in raw {
            let bytes = e.path.bytes
            let cut = bytes.lastIndex(of: UInt8(ascii: "/")) ?? 0
            let sameParent = cut == lastParent.bytes.count && bytes.withUnsafeBufferPointer { b in
                lastParent.bytes.withUnsafeBufferPointer { p in cut == 0 || memcmp(b.baseAddress!, p.baseAddress!, cut) == 0 }
            }
            if !sameParent {
                lastParent = ContainerPath(bytes: Array(bytes[..<cut]))
                lastInherited = directoryExclusion[lastParent] ?? nil
            }
            let inherited = lastInherited
            let own = e.marks.contains { $0.attribute == .exclude }
            let by = own ? e.path : inherited
            excludedBy.append(by)
            if e.kind == .directory { directoryExclusion[e.path] = .some(by) }
        }

        // Hard links: pick the path that counts.
        let zones = raw.map { Zone.of($0.path) }
        var primary: [HardLinkKey: Int] = [:]
        for (i, e) in raw.enumerated() where e.kind == .file && e.linkCount > 1 && zones[i] != .system {
            let key = HardLinkKey(device: e.device, inode: e.inode)
            let backed = zones[i].isBackedUp == true && excludedBy[i] == nil
            if let current = primary[key] {
                let currentBacked = zones[current].isBackedUp == true && excludedBy[current] == nil
                if backed && !currentBacked { primary[key] = i }
            } else {
                primary[key] = i
            }
        }

        var entries: [InventoryEntry] = []
        entries.reserveCapacity(raw.count)
        var totals = [ZoneTotals?](repeating: nil, count: Zone.allCases.count)
        for (i, e) in raw.enumerated() {
            let zone = zones[i]
            var counts = zone != .system
            if counts, e.kind == .file, e.linkCount > 1 {
                counts = primary[HardLinkKey(device: e.device, inode: e.inode)] == i
            }
            let item = InventoryEntry(entry: e, zone: zone, excludedBy: excludedBy[i], countsInTotals: counts)
            entries.append(item)
            guard counts else { continue }
            var t = totals[zone.ordinal] ?? ZoneTotals()
            let content: Int64 = (e.kind == .file || e.kind == .symlink) ? e.size : 0
            switch e.kind {
            case .file: t.files += 1
            case .directory: t.directories += 1
            case .symlink: t.symlinks += 1
            case .other: t.others += 1
            }
            t.size += content
            t.allocated += e.allocated
            if item.backedUp == true { t.backedUpSize += content }
            if item.excludedBy != nil { t.excludedSize += content }
            if item.survivesUpdate == true { t.survivesUpdateSize += content }
            totals[zone.ordinal] = t
        }
        self.entries = entries
        var byZone: [Zone: ZoneTotals] = [:]
        for zone in Zone.allCases { if let t = totals[zone.ordinal] { byZone[zone] = t } }
        self.zoneTotals = byZone
    }

    /// Sorts by path bytes; large inventories are sorted in two halves on two cores, then merged.
    static func sortedByPath(_ entries: [WalkEntry]) -> [WalkEntry] {
        var all = entries
        guard all.count >= 20_000 else {
            all.sort { $0.path < $1.path }
            return all
        }
        let mid = all.count / 2
        all.withUnsafeMutableBufferPointer { buffer in
            let whole = buffer
            DispatchQueue.concurrentPerform(iterations: 2) { half in
                let range = half == 0 ? 0..<mid : mid..<whole.count
                var part = UnsafeMutableBufferPointer(rebasing: whole[range])
                part.sort { $0.path < $1.path }
            }
        }
        var merged: [WalkEntry] = []
        merged.reserveCapacity(all.count)
        var i = 0, j = mid
        while i < mid && j < all.count {
            if all[j].path < all[i].path { merged.append(all[j]); j += 1 } else { merged.append(all[i]); i += 1 }
        }
        merged += all[i..<mid]
        merged += all[j...]
        return merged
    }

    /// The subtree size (content bytes that count) under each top-level item.
    public func topLevelSizes() -> [ContainerPath: Int64] {
        var sizes: [ContainerPath: Int64] = [:]
        for e in entries {
            guard let first = e.path.leadingComponents(1).first else { continue }
            let top = ContainerPath(bytes: Array(first))
            let content: Int64 = e.countsInTotals && (e.entry.kind == .file || e.entry.kind == .symlink) ? e.entry.size : 0
            sizes[top, default: 0] += content
        }
        return sizes
    }
}

struct HardLinkKey: Hashable {
    let device: UInt64
    let inode: UInt64
}
