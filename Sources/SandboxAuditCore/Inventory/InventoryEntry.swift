import SandboxAuditSystem

/// The classified entries, in path-byte order: the walk's columns (`EntryColumns`) and the
/// inventory's verdicts, as columns too. Made once by `Inventory.init`, then only read.
@usableFromInline package final class InventoryStore: Sendable {
    @usableFromInline let columns: EntryColumns
    @usableFromInline let zone: [Zone]
    @usableFromInline let placement: [Placement]
    /// What excludes each entry: `notExcluded`; the entry itself (its own position); or a
    /// folder (`byFolder`: the root, or the folder of a marked directory above it).
    @usableFromInline let excludedBy: [Int32]
    /// False for the second and later paths of a hard-linked file, and for system entries.
    @usableFromInline let counts: [Bool]

    @usableFromInline static let notExcluded = Int32.min
    static func byFolder(_ f: Int32) -> Int32 { -2 - f }

    init(columns: EntryColumns, zone: [Zone], placement: [Placement], excludedBy: [Int32], counts: [Bool]) {
        self.columns = columns
        self.zone = zone
        self.placement = placement
        self.excludedBy = excludedBy
        self.counts = counts
    }

    func excludedByPath(_ i: Int) -> ContainerPath? {
        let by = excludedBy[i]
        if by == InventoryStore.notExcluded { return nil }
        if by >= 0 { return columns.path(Int(by)) }
        return ContainerPath(bytes: Array(columns.folders[-2 - by]))
    }
}

/// The inventory's entries: a random-access collection of `InventoryEntry`, each a position.
public struct InventoryEntries: RandomAccessCollection, Sendable {
    @usableFromInline let store: InventoryStore
    public let endIndex: Int
    // The columns a pass over every entry reads, held here as well as in `store`: read from a
    // value the caller holds, an element costs one load, where read through the store (a class)
    // each read retained and released the column (about half of a rule's pass).
    @usableFromInline let kinds: [EntryKind]
    @usableFromInline let zones: [Zone]
    @usableFromInline let placements: [Placement]
    @usableFromInline let excludedBy: [Int32]
    @usableFromInline let counts: [Bool]
    @usableFromInline let folders: [Int32]
    @usableFromInline let sizes: NarrowColumn<Int64>
    @usableFromInline let held: [UInt8]
    @usableFromInline let names: [UInt8]
    @usableFromInline let nameEnd: NarrowColumn<Int>

    init(_ store: InventoryStore) {
        self.store = store
        endIndex = store.zone.count
        kinds = store.columns.kind
        zones = store.zone
        placements = store.placement
        excludedBy = store.excludedBy
        counts = store.counts
        folders = store.columns.folder
        sizes = store.columns.size
        held = store.columns.held
        names = store.columns.names
        nameEnd = store.columns.nameEnd
    }

    public var startIndex: Int { 0 }
    @inlinable public subscript(position: Int) -> InventoryEntry {
        precondition(position >= 0 && position < endIndex, "inventory entry index out of range")
        return InventoryEntry(store: store, index: position)
    }

    // A pass over every entry reads these by position, with no `InventoryEntry` made for an
    // entry it passes over: each is one array read (the same as `self[i].…`).
    @inlinable package func kind(_ i: Int) -> WalkEntry.Kind { kinds[i].kind }
    @inlinable package func zone(_ i: Int) -> Zone { zones[i] }
    @inlinable package func size(_ i: Int) -> Int64 { sizes[i] }
    @inlinable package func folder(_ i: Int) -> Int32 { folders[i] }
    @inlinable package func name(_ i: Int) -> ArraySlice<UInt8> { names[nameEnd.span(i)] }
    @inlinable package func countsInTotals(_ i: Int) -> Bool { counts[i] }
    /// `self[i].countsAsContent`: counted, and a file or a symlink.
    @inlinable package func countsAsContent(_ i: Int) -> Bool {
        counts[i] && (kinds[i] == .file || kinds[i].kind == .symlink)
    }
    @inlinable package func isExcluded(_ i: Int) -> Bool { excludedBy[i] != InventoryStore.notExcluded }
    /// What excludes entry `i`, as a number (`InventoryStore.notExcluded`: nothing). Two files
    /// have the same number exactly when the same path excludes them (`excludedBy`); a
    /// directory excluded by its own attribute has a number of its own, its contents another.
    @inlinable package func exclusionSource(_ i: Int) -> Int32 { excludedBy[i] }
    /// `self[i].backedUp == true`: not a system entry, in a backed-up place, not excluded.
    @inlinable package func isBackedUp(_ i: Int) -> Bool {
        zones[i] != .system && placements[i].backedUp && excludedBy[i] == InventoryStore.notExcluded
    }
    /// Whether the entry carries any backup attribute (`self[i].entry.marks` is not empty).
    @inlinable package func hasMarks(_ i: Int) -> Bool { held[i] & EntryColumns.hasMarks != 0 }

    /// The path of folder `f` (an entry's `folder`, or a directory's `ownFolder`).
    package func folderPath(_ f: Int32) -> ContainerPath { ContainerPath(bytes: Array(store.columns.folders[f])) }
    /// The number of the folder at `path` (relative to the data root), nil when no entry lies in it.
    package func folderNumber(of path: ArraySlice<UInt8>) -> Int32? { store.columns.folders.find(path) }
    /// The folder that holds folder `f` (nil for the root, folder 0).
    package func parentFolder(_ f: Int32) -> Int32? {
        let p = store.columns.folderParent[Int(f)]
        return p < 0 ? nil : p
    }
    /// How many components folder `f`'s path has (0 for the root).
    package func depth(ofFolder f: Int32) -> Int {
        let path = store.columns.folders[f]
        return path.isEmpty ? 0 : path.reduce(1) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 }
    }
}

/// One entry with its zone and verdicts: the model every output is built from. A position in
/// the inventory's columns (`InventoryStore`); its path is made when asked for.
public struct InventoryEntry: Sendable {
    @usableFromInline let store: InventoryStore
    /// The entry's position in the inventory (path order).
    @usableFromInline package let index: Int

    @usableFromInline init(store: InventoryStore, index: Int) {
        self.store = store
        self.index = index
    }

    public var path: ContainerPath { store.columns.path(index) }
    /// The last component of the path (what `path.name` is), without making the path.
    @inlinable package var name: ArraySlice<UInt8> { store.columns.name(index) }
    /// What the walk recorded of the entry.
    @inlinable package var entry: EntryFields { EntryFields(store: store, index: index) }
    /// The folder the entry lies in, by number (`InventoryEntries.folderPath`): 0 for the data
    /// root's own items, -1 for the data root itself (a backup's row for it). Siblings share it.
    @inlinable package var folder: Int32 { store.columns.folder[index] }
    /// For a directory with something in it: the number of the folder it is.
    @inlinable package var ownFolder: Int32? { store.columns.folderOfDirectory[Int32(index)] }
    @inlinable package var zone: Zone { store.zone[index] }
    /// What backup, restore and update do with the entry because of where it is
    /// (`BackupPathSets` of its container's role); exclusion comes on top.
    @inlinable package var placement: Placement { store.placement[index] }
    /// The nearest path carrying the exclude attribute: the entry itself or its closest marked
    /// ancestor. Nil when not excluded.
    package var excludedBy: ContainerPath? { store.excludedByPath(index) }
    /// Whether anything excludes the entry (`excludedBy != nil`, with no path made).
    @inlinable package var isExcluded: Bool { store.excludedBy[index] != InventoryStore.notExcluded }
    /// False for the second and later paths of a hard-linked file, and for system entries:
    /// their bytes are not added to any total.
    @inlinable package var countsInTotals: Bool { store.counts[index] }

    @inlinable package var isSystem: Bool { zone == .system }
    /// Nil for system entries, as are the verdicts below.
    @inlinable public var excluded: Bool? { isSystem ? nil : isExcluded }
    /// Backup carries it: its place is backed up and it is not excluded.
    @inlinable public var backedUp: Bool? { isSystem ? nil : placement.backedUp && !isExcluded }
    @inlinable public var survivesUpdate: Bool? { isSystem ? nil : placement.keptOnUpdate }
    /// A restore onto a new device brings back the backed-up set, less what restore skips
    /// (Saved Application State, SplashBoard).
    @inlinable public var survivesRestore: Bool? { isSystem ? nil : placement.restored && !isExcluded }

    /// Content that counts in the totals: a file's or symlink's bytes, once per hard-linked file.
    @inlinable package var countsAsContent: Bool { countsInTotals && entry.holdsContent }
    /// The bytes this entry adds to the totals (0 when it adds none; a symlink adds none).
    @inlinable public var countedSize: Int64 { countsInTotals ? entry.contentSize : 0 }

    /// The class a device backup records (nil: not recorded, or not a backup input).
    package var protectionClass: ProtectionClass? { entry.protectionClass }
    /// The inventory's verdict: the entry's own attribute excludes it (not a folder above). The
    /// rules read this, never the raw marks: in a device backup a recorded attribute excludes
    /// nothing.
    package var excludesItself: Bool {
        let by = store.excludedBy[index]
        if by == Int32(index) { return true }
        // A directory excluded by its own folder (another entry of the same path carries it).
        return by < -1 && by != InventoryStore.notExcluded && entry.kind == .directory && excludedBy == path
    }
    package var carriesLegacy: Bool { entry.marks.contains { $0.attribute == .legacy } }
}

/// What the walk recorded of one inventory entry, read from the columns: the fields of a
/// `WalkEntry`, with no path made unless `path` is asked for.
@usableFromInline package struct EntryFields: Sendable {
    @usableFromInline let store: InventoryStore
    @usableFromInline let index: Int

    @usableFromInline init(store: InventoryStore, index: Int) {
        self.store = store
        self.index = index
    }

    package var path: ContainerPath { store.columns.path(index) }
    @inlinable package var name: ArraySlice<UInt8> { store.columns.name(index) }
    @inlinable package var kind: WalkEntry.Kind { store.columns.kind[index].kind }
    @inlinable package var special: WalkEntry.Special? { store.columns.kind[index].special }
    @inlinable package var size: Int64 { store.columns.size[index] }
    @inlinable package var allocated: Int64 { store.columns.allocated[index] }
    @inlinable package var mode: UInt32 { store.columns.mode[index] }
    @inlinable package var modifiedSeconds: Int64 { store.columns.modifiedSeconds[index] }
    @inlinable package var modifiedNanoseconds: Int32 { store.columns.modifiedNanoseconds[index] }
    @inlinable package var modifiedTime: Double { Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9 }
    @inlinable package var device: UInt64 { store.columns.device[index] }
    @inlinable package var inode: UInt64 { store.columns.inode[index] }
    @inlinable package var linkCount: UInt64 { UInt64(store.columns.links[index]) }
    @inlinable package var marks: [AttributeMark] {
        store.columns.held[index] & EntryColumns.hasMarks == 0 ? [] : store.columns.marks[Int32(index)] ?? []
    }
    @inlinable var content: [UInt8]? {
        store.columns.held[index] & EntryColumns.hasContent == 0 ? nil : store.columns.content[Int32(index)]
    }
    @inlinable package var symlinkTarget: [UInt8]? { kind == .symlink ? content : nil }
    @inlinable package var header: [UInt8]? { kind == .symlink ? nil : content }
    package var protectionClass: ProtectionClass? {
        store.columns.held[index] & EntryColumns.hasProtection == 0
            ? nil : ProtectionClass(recorded: store.columns.protection[Int32(index)])
    }
    @inlinable package var holdsContent: Bool {
        let k = kind
        return k == .file || k == .symlink
    }
    @inlinable package var contentSize: Int64 { kind == .file ? size : 0 }
    /// The entry as one value, its path made.
    package var walkEntry: WalkEntry { store.columns.walkEntry(index) }
}
