import Foundation
import SandboxAuditSystem

/// Counts and sizes for one zone. Sizes are apparent sizes of regular files' contents (a symlink
/// adds 0, as a backup records it); `allocated` is what the entries occupy on disk, directories
/// included. Every sum saturates (`+|=`), and `Inventory.boundedSizes` keeps any sum far below it.
package struct ZoneTotals: Sendable, Equatable {
    package var files = 0
    package var directories = 0
    package var symlinks = 0
    package var others = 0
    package var size: Int64 = 0
    package var allocated: Int64 = 0
    package var backedUpSize: Int64 = 0
    package var excludedSize: Int64 = 0
    package var survivesUpdateSize: Int64 = 0
    package var survivesRestoreSize: Int64 = 0

    package init() {}

    /// Counts one entry that counts in totals (not a system entry).
    mutating func add(
        kind: WalkEntry.Kind, size entrySize: Int64, allocated entryAllocated: Int64, placement: Placement,
        excluded: Bool
    ) {
        switch kind {
        case .file: files += 1
        case .directory: directories += 1
        case .symlink: symlinks += 1
        case .other: others += 1
        }
        let content = kind == .file ? entrySize : 0
        size +|= content
        allocated +|= entryAllocated
        if placement.backedUp && !excluded { backedUpSize +|= content }
        if excluded { excludedSize +|= content }
        if placement.keptOnUpdate { survivesUpdateSize +|= content }
        if placement.restored && !excluded { survivesRestoreSize +|= content }
    }

    package static func + (a: ZoneTotals, b: ZoneTotals) -> ZoneTotals {
        var t = a
        t.files += b.files
        t.directories += b.directories
        t.symlinks += b.symlinks
        t.others += b.others
        t.size +|= b.size
        t.allocated +|= b.allocated
        t.backedUpSize +|= b.backedUpSize
        t.excludedSize +|= b.excludedSize
        t.survivesUpdateSize +|= b.survivesUpdateSize
        t.survivesRestoreSize +|= b.survivesRestoreSize
        return t
    }
}

/// The classified container: entries sorted by path bytes, totals, and what could not be read.
public struct Inventory: Sendable {
    public let container: Container
    public let entries: InventoryEntries
    package let problems: [WalkProblem]
    package let rootMarks: [AttributeMark]
    /// The inventory's verdict on the data root: its own attribute excludes it (and with it
    /// everything), where the attributes on disk decide.
    package let rootExcluded: Bool
    package let sidecarCount: Int
    /// Sidecars that describe no entry (the `orphan-sidecar` rule reports them).
    package let orphanSidecars: [SidecarOrphan]
    /// The archive the inventory was read from, as it was opened (nil for a folder or backup).
    package let archive: ArchiveSnapshot?
    /// Totals per app zone (system entries are not counted).
    package let zoneTotals: [Zone: ZoneTotals]
    /// How many entries are the system's (`Zone.system`), counted once as they are classified.
    package let systemEntries: Int

    package var total: ZoneTotals { zoneTotals.values.reduce(ZoneTotals(), +) }
    /// Bytes an iCloud or computer backup carries.
    public var backupFootprint: Int64 { total.backedUpSize }
    /// Bytes an app update keeps (Documents and Library; all of a group container).
    public var keptOnUpdate: Int64 { total.survivesUpdateSize }
    /// Bytes a restore onto a new device brings back (the backed-up set, less what restore skips).
    public var keptOnRestore: Int64 { total.survivesRestoreSize }
    /// The backup domain: `AppDomain-ID`, `AppDomainPlugin-ID` or `AppDomainGroup-ID`.
    public var domain: String { container.domain }

    /// Classifies a walk. Hard-linked files count once: at their first backed-up path in byte
    /// order, or their first path when no link is backed up.
    /// `skippedByBackup`: iOS backs none of the container up (an App Clip's): nothing is backed
    /// up or restored, whatever its place.
    /// The walk is taken over: handed over by its last holder (as `Audit` does), its columns
    /// are put in order without a second copy of them alive at once.
    package init(container: Container, walk: consuming WalkResult, skippedByBackup: Bool = false) {
        self.container = container
        var problems = walk.problems
        var raw = walk.entries
        walk.entries = WalkEntries()
        Inventory.boundSizes(&raw, problems: &problems)
        Inventory.shareLinkMarks(&raw)
        self.problems = problems.sorted { $0.path < $1.path }
        self.rootMarks = walk.rootMarks
        self.sidecarCount = walk.sidecarCount
        self.archive = walk.archive
        self.orphanSidecars = walk.orphanSidecars.sorted { $0.sidecar < $1.sidecar }
        // In path order, as columns: everything after reads them in order.
        let columns = raw.ordered()
        let n = columns.count

        // Zones, placements and exclusion, in path order. Exclusion flows down through the
        // folders: an entry is excluded by itself when it carries the attribute, else by
        // whatever excludes its folder.
        let role = container.role
        let sets = role.pathSets
        let fromBackup = container.source.capabilities.recordsBackup
        // Where the attributes on disk decide (not in a device backup, which holds no excluded
        // file: the attributes it records on what it holds excluded nothing).
        let marksDecide = container.source.capabilities.attributesDecide
        let rootExcluded = marksDecide && walk.rootMarks.contains { $0.attribute == .exclude }
        self.rootExcluded = rootExcluded
        // Per folder: whether a directory entry of its path carries the attribute, and then
        // what excludes it (`InventoryStore.excludedBy`'s numbering). A folder no entry names
        // (a backup's, with no row of its own) passes nothing on.
        let folderCount = columns.folders.count
        var folderMarked = [Bool](repeating: false, count: folderCount)
        var folderListed = [Bool](repeating: false, count: folderCount)
        for (i, g) in columns.folderOfDirectory {
            folderListed[Int(g)] = true
            if Inventory.excludes(Int(i), columns, marksDecide) { folderMarked[Int(g)] = true }
        }
        var known = [Int32?](repeating: nil, count: folderCount)
        known[0] = rootExcluded ? InventoryStore.byFolder(0) : InventoryStore.notExcluded
        let folderExcludedBy = (0..<folderCount).map { g in
            Inventory.excluding(Int32(g), columns.folderParent, folderMarked, folderListed, &known)
        }
        // Per folder two levels down or deeper: its zone and placement, every entry's in it.
        var folderZone = [Zone?](repeating: nil, count: folderCount)
        var folderPlacement = [Placement?](repeating: nil, count: folderCount)
        for g in 0..<folderCount {
            let path = columns.folders[Int32(g)]
            guard path.contains(UInt8(ascii: "/")) else { continue }
            let p = ContainerPath(bytes: Array(path))
            folderZone[g] = Zone.of(p, role: role)
            folderPlacement[g] = sets.placement(of: p)
        }

        // Each entry's zone, placement and what excludes it: each on its own, so in a run per
        // core for a large inventory, then the runs one after the other.
        let verdictRuns = Parallel.runs(n, parts: Parallel.parts(n, atLeast: 100_000))
        let (heldFolderZone, heldFolderPlacement, heldFolderExcludedBy) = (
            folderZone, folderPlacement, folderExcludedBy
        )
        let halves = Parallel.map(verdictRuns.count) {
            part -> (zones: [Zone], placements: [Placement], excludedBy: [Int32]) in
            var zones = [Zone]()
            var placements = [Placement]()
            var excludedBy = [Int32]()
            let run = verdictRuns[part]
            zones.reserveCapacity(run.count)
            placements.reserveCapacity(run.count)
            excludedBy.reserveCapacity(run.count)
            for i in run {
                let f = columns.folder[i]
                var zone: Zone
                var placement: Placement
                if f >= 0, let z = heldFolderZone[Int(f)], let p = heldFolderPlacement[Int(f)] {
                    zone = z
                    placement = p
                } else {
                    let path = columns.path(i)
                    zone = Zone.of(path, role: role)
                    placement = sets.placement(of: path)
                }
                // A backup's entries are what the backup holds: backed up by definition.
                if fromBackup && !placement.backedUp {
                    placement = Placement(
                        backedUp: true, restored: placement.restored, keptOnUpdate: placement.keptOnUpdate)
                }
                if skippedByBackup {
                    placement = Placement(backedUp: false, restored: false, keptOnUpdate: placement.keptOnUpdate)
                }
                // System entries have no verdicts: nothing excludes them (format: null).
                let by: Int32 =
                    zone == .system
                    ? InventoryStore.notExcluded
                    : Inventory.excludes(i, columns, marksDecide)
                        ? Int32(i)
                        : (f >= 0
                            ? heldFolderExcludedBy[Int(f)]
                            : (rootExcluded ? InventoryStore.byFolder(0) : InventoryStore.notExcluded))
                zones.append(zone)
                placements.append(placement)
                excludedBy.append(by)
            }
            return (zones, placements, excludedBy)
        }
        var zones = halves[0].zones
        var placements = halves[0].placements
        var excludedBy = halves[0].excludedBy
        for half in halves.dropFirst() {
            zones += half.zones
            placements += half.placements
            excludedBy += half.excludedBy
        }

        // What counts in the totals, in path order: not a system entry, and for a hard-linked
        // file its first backed-up path (else its first).
        var counts = [Bool](repeating: false, count: n)
        var primary: [HardLinkKey: Int] = [:]
        var systemEntries = 0
        for i in 0..<n {
            if zones[i] == .system {
                systemEntries += 1
                continue
            }
            counts[i] = true
            if columns.kind[i] == .file, columns.links[i] > 1 {
                let key = HardLinkKey(device: columns.device[i], inode: columns.inode[i])
                if let current = primary[key] {
                    counts[i] = false
                    if placements[i].backedUp && excludedBy[i] == InventoryStore.notExcluded
                        && !(placements[current].backedUp && excludedBy[current] == InventoryStore.notExcluded)
                    {
                        counts[current] = false
                        counts[i] = true
                        primary[key] = i
                    }
                } else {
                    primary[key] = i
                }
            }
        }

        var totals = [ZoneTotals?](repeating: nil, count: Zone.allCases.count)
        for i in 0..<n where counts[i] {
            let z = zones[i].ordinal
            var t = totals[z] ?? ZoneTotals()
            t.add(
                kind: columns.kind[i].kind, size: columns.size[i], allocated: columns.allocated[i],
                placement: placements[i],
                excluded: excludedBy[i] != InventoryStore.notExcluded)
            totals[z] = t
        }
        var byZone: [Zone: ZoneTotals] = [:]
        for zone in Zone.allCases { if let t = totals[zone.ordinal] { byZone[zone] = t } }
        self.zoneTotals = byZone
        self.systemEntries = systemEntries
        self.entries = InventoryEntries(
            InventoryStore(columns: columns, zone: zones, placement: placements, excludedBy: excludedBy, counts: counts)
        )
    }

    /// Whether entry `i`'s own attribute excludes it (where the attributes decide).
    private static func excludes(_ i: Int, _ columns: EntryColumns, _ marksDecide: Bool) -> Bool {
        marksDecide && columns.held[i] & EntryColumns.hasMarks != 0
            && (columns.marks[Int32(i)]?.contains { $0.attribute == .exclude } ?? false)
    }

    /// What excludes folder `g` (`InventoryStore.excludedBy`'s numbering): up to the nearest
    /// folder worked out already, marked, or named by no entry, then the same for each folder
    /// on the way (`known`: the folders worked out; the root's is known from the start).
    private static func excluding(
        _ g: Int32, _ parent: [Int32], _ marked: [Bool], _ listed: [Bool], _ known: inout [Int32?]
    ) -> Int32 {
        var chain: [Int32] = []
        var f = g
        var found = InventoryStore.notExcluded
        while true {
            if let k = known[Int(f)] {
                found = k
                break
            }
            chain.append(f)
            if !listed[Int(f)] {
                found = InventoryStore.notExcluded
                break
            }
            if marked[Int(f)] {
                found = InventoryStore.byFolder(f)
                break
            }
            f = parent[Int(f)]
        }
        for c in chain { known[Int(c)] = found }
        return known[Int(g)]!
    }

    /// The entry at `path`, found by binary search (entries are in path-byte order).
    package func entry(at path: ContainerPath) -> InventoryEntry? { index(of: path).map { entries[$0] } }

    /// The position of the entry at `path` (entries are in path order), nil when none is there.
    package func index(of path: ContainerPath) -> Int? { index(of: path, in: 0, entries.count) }

    /// `index(of:)` for a path that sorts before position `limit`, most often just before it:
    /// looked for backwards from there in steps that double, then by halving what is left.
    package func index(of path: ContainerPath, before limit: Int) -> Int? {
        var high = min(limit, entries.count)
        var step = 1
        var low = max(0, high - step)
        while low > 0, entries.store.columns.comparePath(low, path.bytes) > 0 {
            high = low
            step *= 2
            low = max(0, high - step)
        }
        return index(of: path, in: low, high)
    }

    /// The position of `path` between `low` and `high` (a binary search), nil when none is there.
    private func index(of path: ContainerPath, in low: Int, _ high: Int) -> Int? {
        var low = low
        var high = high
        while low < high {
            let mid = (low + high) / 2
            if entries.store.columns.comparePath(mid, path.bytes) < 0 { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries.store.columns.comparePath(low, path.bytes) == 0 ? low : nil
    }

    /// The subtree size (content bytes that count) under each top-level item.
    /// Found by folder number: a path is made per top-level item, not per entry.
    package func topLevelSizes() -> [ContainerPath: Int64] {
        // Each folder's top-level folder (the one in the data root it lies in or is).
        var top = [Int32](repeating: -1, count: entries.store.columns.folders.count)
        func topOf(_ f: Int32) -> Int32 {
            // Up to a folder known or in the data root, then the same answer for the way up.
            var chain: [Int32] = []
            var g = f
            while top[Int(g)] < 0 {
                chain.append(g)
                let parent = entries.parentFolder(g) ?? 0
                if parent == 0 {
                    top[Int(g)] = g
                    break
                }
                g = parent
            }
            for c in chain { top[Int(c)] = top[Int(g)] }
            return top[Int(f)]
        }
        var byFolder: [Int32: Int64] = [:]
        var sizes: [ContainerPath: Int64] = [:]
        for i in entries.indices {
            let f = entries.folder(i)
            if f < 0 { continue }  // the data root itself
            let counted = entries[i].countedSize
            if f == 0 {
                sizes[ContainerPath(bytes: Array(entries.name(i))), default: 0] +|= counted
            } else {
                byFolder[topOf(f), default: 0] +|= counted
            }
        }
        for (f, size) in byFolder { sizes[entries.folderPath(f), default: 0] +|= size }
        return sizes
    }
}

package struct HardLinkKey: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
