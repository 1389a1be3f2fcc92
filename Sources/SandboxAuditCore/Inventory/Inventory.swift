import Foundation
import SandboxAuditSystem

/// One entry with its zone and verdicts: the model every output is built from. A class, so
/// that the rules' passes over hundreds of thousands of entries share rather than copy them.
public final class InventoryEntry: Sendable {
    /// The nearest path carrying the exclude attribute: the entry itself or its closest marked
    /// ancestor. Nil when not excluded. (Stored first: with the entry after it and the small
    /// fields last, the object takes 115 bytes, a 128-byte allocation.)
    package let excludedBy: ContainerPath?
    package let entry: WalkEntry
    package let zone: Zone
    /// False for the second and later paths of a hard-linked file, and for system entries:
    /// their bytes are not added to any total.
    package let countsInTotals: Bool
    /// What backup, restore and update do with the entry because of where it is
    /// (`BackupPathSets` of its container's role); exclusion comes on top.
    package let placement: Placement

    init(entry: WalkEntry, zone: Zone, placement: Placement, excludedBy: ContainerPath?, countsInTotals: Bool) {
        self.entry = entry
        self.zone = zone
        self.placement = placement
        self.excludedBy = excludedBy
        self.countsInTotals = countsInTotals
    }

    public var path: ContainerPath { entry.path }
    package var isSystem: Bool { zone == .system }
    /// Nil for system entries, as are the verdicts below.
    public var excluded: Bool? { isSystem ? nil : excludedBy != nil }
    /// Backup carries it: its place is backed up and it is not excluded.
    public var backedUp: Bool? { isSystem ? nil : placement.backedUp && excludedBy == nil }
    public var survivesUpdate: Bool? { isSystem ? nil : placement.keptOnUpdate }
    /// A restore onto a new device brings back the backed-up set, less what restore skips
    /// (Saved Application State, SplashBoard).
    public var survivesRestore: Bool? { isSystem ? nil : placement.restored && excludedBy == nil }

    /// Content that counts in the totals: a file's or symlink's bytes, once per hard-linked file.
    package var countsAsContent: Bool { countsInTotals && entry.holdsContent }
    /// The bytes this entry adds to the totals (0 when it adds none; a symlink adds none).
    public var countedSize: Int64 { countsInTotals ? entry.contentSize : 0 }

    /// The class a device backup records (nil: not recorded, or not a backup input).
    package var protectionClass: ProtectionClass? { entry.protectionClass }
    /// The inventory's verdict: the entry's own attribute excludes it (not a folder above). The
    /// rules read this, never the raw marks: in a device backup a recorded attribute excludes
    /// nothing.
    package var excludesItself: Bool { excludedBy == entry.path }
    package var carriesLegacy: Bool { entry.marks.contains { $0.attribute == .legacy } }
}

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

    /// Counts one entry that counts in totals.
    mutating func add(_ item: InventoryEntry) {
        let e = item.entry
        switch e.kind {
        case .file: files += 1
        case .directory: directories += 1
        case .symlink: symlinks += 1
        case .other: others += 1
        }
        let content = e.contentSize
        size +|= content
        allocated +|= e.allocated
        if item.backedUp == true { backedUpSize +|= content }
        if item.excludedBy != nil { excludedSize +|= content }
        if item.survivesUpdate == true { survivesUpdateSize +|= content }
        if item.survivesRestore == true { survivesRestoreSize +|= content }
    }

    package static func + (a: ZoneTotals, b: ZoneTotals) -> ZoneTotals {
        var t = a
        t.files += b.files; t.directories += b.directories; t.symlinks += b.symlinks; t.others += b.others
        t.size +|= b.size; t.allocated +|= b.allocated; t.backedUpSize +|= b.backedUpSize
        t.excludedSize +|= b.excludedSize; t.survivesUpdateSize +|= b.survivesUpdateSize
        t.survivesRestoreSize +|= b.survivesRestoreSize
        return t
    }
}

/// The classified container: entries sorted by path bytes, totals, and what could not be read.
public struct Inventory: Sendable {
    public let container: Container
    public let entries: [InventoryEntry]
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
    /// The walk is taken over: its entries are let go chunk by chunk as the inventory's are
    /// made. Handed over by its last holder (as `Audit` does), they are never copied; entries
    /// someone else still holds are copied as they are put in order.
    package init(container: Container, walk: consuming WalkResult, skippedByBackup: Bool = false) {
        self.container = container
        var problems = walk.problems
        var raw = Inventory.boundedSizes(walk.entries, problems: &problems)
        walk.entries = WalkEntries()
        Inventory.shareLinkMarks(&raw)
        self.problems = problems.sorted { $0.path < $1.path }
        self.rootMarks = walk.rootMarks
        self.sidecarCount = walk.sidecarCount
        self.archive = walk.archive
        self.orphanSidecars = walk.orphanSidecars.sorted { $0.sidecar < $1.sidecar }
        // The walk's entries put in path order where they are (no copy of them is made):
        // everything after reads them in order, and the inventory's entries are made in order.
        raw.permute(by: raw.pathOrder())
        let n = raw.count

        // Zones, placements and exclusion, in path order, in two halves on two cores.
        // Exclusion flows down through the folders the walk met: an entry is excluded by itself
        // when it carries the attribute, else by whatever excludes its folder.
        let role = container.role
        let sets = role.pathSets
        let fromBackup = container.source.capabilities.recordsBackup
        // Where the attributes on disk decide (not in a device backup, which holds no excluded
        // file: the attributes it records on what it holds excluded nothing).
        let marksDecide = container.source.capabilities.attributesDecide
        let rootExcluded = marksDecide && walk.rootMarks.contains { $0.attribute == .exclude }
        self.rootExcluded = rootExcluded
        // Every folder, and whether it carries the attribute (what a backup holds is backed up:
        // an attribute its rows record excludes nothing).
        let folders = raw.withEntryPointers { w in
            var folders: [ContainerPath: Bool] = [:]
            for i in 0..<n where w[i].kind == .directory {
                folders[w[i].path] = (folders[w[i].path] ?? false) || (marksDecide && w[i].marks.contains { $0.attribute == .exclude })
            }
            return folders
        }
        let halves = n >= 20_000 ? 2 : 1
        // Per entry, its zone, placement and what excludes it; per half, the position that
        // counts for each hard-linked file: its first backed-up one, else its first.
        let (verdicts, linkParts) = raw.withEntryPointers { w in
            Parallel.array(count: n, runs: Parallel.runs(n, parts: halves)) { (_, out: inout RunWriter<Verdict>) -> [HardLinkKey: Int] in
                // What excludes each folder met (nil: nothing), worked out once per folder.
                var byFolder: [ContainerPath: ContainerPath?] = [:]
                func excluding(_ folder: ContainerPath) -> ContainerPath? {
                    if folder.bytes.isEmpty { return rootExcluded ? .root : nil }
                    if let known = byFolder[folder] { return known }
                    let by: ContainerPath? = switch folders[folder] {
                    case .some(true): folder
                    case .some(false): excluding(folder.parent ?? .root)
                    case nil: nil
                    }
                    byFolder[folder] = by
                    return by
                }
                var primary: [HardLinkKey: Int] = [:]
                // Siblings sort next to each other: remember the last parent looked
                // up. Every path set lies at most two levels down: below that, an
                // entry's placement is its parent's.
                var lastParent = ContainerPath.root
                var lastInherited = excluding(.root)
                var parentPlacement: Placement?
                for pos in out.run {
                    let path = w[pos].path
                    if !path.isChild(of: lastParent) {
                        lastParent = path.parent ?? .root
                        lastInherited = excluding(lastParent)
                        parentPlacement = lastParent.bytes.contains(UInt8(ascii: "/")) ? sets.placement(of: lastParent) : nil
                    }
                    let zone = Zone.of(path, role: role)
                    var placement = parentPlacement ?? sets.placement(of: path)
                    // A backup's entries are what the backup holds: backed up by definition.
                    if fromBackup && !placement.backedUp {
                        placement = Placement(backedUp: true, restored: placement.restored, keptOnUpdate: placement.keptOnUpdate)
                    }
                    if skippedByBackup { placement = Placement(backedUp: false, restored: false, keptOnUpdate: placement.keptOnUpdate) }
                    let by = marksDecide && w[pos].marks.contains { $0.attribute == .exclude } ? path : lastInherited
                    // System entries have no verdicts: nothing excludes them (format: null).
                    out.append(Verdict(excludedBy: zone == .system ? nil : by, zone: zone, placement: placement))
                    if w[pos].kind == .file, w[pos].linkCount > 1, zone != .system {
                        let key = HardLinkKey(device: w[pos].device, inode: w[pos].inode)
                        if let current = primary[key] {
                            if placement.backedUp && by == nil && !out[current].backedUp { primary[key] = pos }
                        } else {
                            primary[key] = pos
                        }
                    }
                }
                return primary
            }
        }
        // The halves' choices joined: the first half's, unless only the second half has a
        // backed-up path of the file.
        var primary = linkParts[0]
        for (key, second) in linkParts.dropFirst().first ?? [:] {
            guard let first = primary[key] else { primary[key] = second; continue }
            if !verdicts[first].backedUp && verdicts[second].backedUp { primary[key] = second }
        }

        // The entries and the totals, on both cores, each half a run of the walk's chunks (in
        // path order now): each chunk is let go once its entries are in the inventory's, so the
        // two are never both whole in memory.
        let chunks = raw.ownedChunks
        let mid = chunks.count / 2
        let chunkRuns = halves == 1 ? [0..<chunks.count] : [0..<mid, mid..<chunks.count]
        let entryRuns = chunkRuns.map { r in
            (r.isEmpty ? n : chunks[r.lowerBound].first)..<(r.upperBound == chunks.count ? n : chunks[r.upperBound].first)
        }
        let linkPrimary = primary
        let (entries, partial) = Parallel.array(count: n, runs: entryRuns) { (half, out: inout RunWriter<InventoryEntry>) -> [ZoneTotals?] in
            var totals = [ZoneTotals?](repeating: nil, count: Zone.allCases.count)
            for (first, chunk) in chunks[chunkRuns[half]] {
                for j in 0..<chunk.count {
                    let pos = first + j
                    // Moved out (no reference counted): the chunk is freed after.
                    let e = chunk.moveOut(j)
                    let v = verdicts[pos]
                    var counts = v.zone != .system
                    if counts, e.kind == .file, e.linkCount > 1 {
                        counts = linkPrimary[HardLinkKey(device: e.device, inode: e.inode)] == pos
                    }
                    let item = InventoryEntry(entry: e, zone: v.zone, placement: v.placement, excludedBy: v.excludedBy, countsInTotals: counts)
                    out.append(item)
                    guard counts else { continue }
                    var t = totals[v.zone.ordinal] ?? ZoneTotals()
                    t.add(item)
                    totals[v.zone.ordinal] = t
                }
                chunk.releaseMovedOut()
            }
            return totals
        }
        self.entries = entries
        var byZone: [Zone: ZoneTotals] = [:]
        for zone in Zone.allCases {
            let parts = partial.compactMap { $0[zone.ordinal] }
            if !parts.isEmpty { byZone[zone] = parts.reduce(ZoneTotals(), +) }
        }
        self.zoneTotals = byZone
        self.systemEntries = verdicts.reduce(0) { $1.zone == .system ? $0 + 1 : $0 }
    }

    /// The entry at `path`, found by binary search (entries are in path-byte order).
    package func entry(at path: ContainerPath) -> InventoryEntry? { index(of: path).map { entries[$0] } }

    /// The position of the entry at `path` (entries are in path order), nil when none is there.
    package func index(of path: ContainerPath) -> Int? { index(of: path, in: 0, entries.count) }

    /// `index(of:)` for a path that sorts before position `limit`, most often just before it:
    /// looked for backwards from there in steps that double, then by halving what is left.
    package func index(of path: ContainerPath, before limit: Int) -> Int? {
        var high = min(limit, entries.count), step = 1
        var low = max(0, high - step)
        while low > 0, path < entries[low].path {
            high = low
            step *= 2
            low = max(0, high - step)
        }
        return index(of: path, in: low, high)
    }

    /// The position of `path` between `low` and `high` (a binary search), nil when none is there.
    private func index(of path: ContainerPath, in low: Int, _ high: Int) -> Int? {
        var low = low, high = high
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].path < path { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries[low].path == path ? low : nil
    }

    /// The subtree size (content bytes that count) under each top-level item.
    package func topLevelSizes() -> [ContainerPath: Int64] {
        var sizes: [ContainerPath: Int64] = [:]
        for e in entries {
            guard let first = e.path.leadingComponents(1).first else { continue }
            let top = ContainerPath(bytes: Array(first))
            sizes[top, default: 0] +|= e.countedSize
        }
        return sizes
    }
}

/// What the inventory works out for one entry of the walk before making its `InventoryEntry`.
struct Verdict: Sendable {
    let excludedBy: ContainerPath?
    let zone: Zone
    let placement: Placement
    /// Backed up and not excluded: the path that counts for a hard-linked file when it can.
    var backedUp: Bool { placement.backedUp && excludedBy == nil }
}

package struct HardLinkKey: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
