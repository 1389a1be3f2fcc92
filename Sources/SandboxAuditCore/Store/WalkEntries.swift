import SandboxAuditSystem

/// A walk's entries as columns: one byte buffer of names, each entry's folder as an index into
/// a table of folders, and each fixed field in an array of its own, four bytes for nearly every
/// 64-bit value (`NarrowColumn`). A million-entry walk holds about 55 MB here, with no object
/// and no allocation per entry (an object per entry, its path an array of its own, took 300 MB
/// and most of the walk's own time).
///
/// The walks append to it as they list (`append(listedIn:…)` for a folder's listing, or
/// `append(_:)` for an entry read whole from an archive or a backup); `ordered()` puts the
/// entries in path-byte order for the inventory (`EntryColumns`). Values: a copy shares the
/// columns until either side writes.
package struct WalkEntries: RandomAccessCollection, EntryColumnStore, Sendable {
    /// The folders entries lie in, by number (`FolderTable`). Folder 0 is the root.
    var folders = FolderTable()
    /// The folder each entry lies in (-1: the entry is the root itself).
    var folder: [Int32] = []
    /// Every entry's name, one after the other in entry order: entry `i`'s ends at
    /// `nameEnd[i]` and starts where entry `i - 1`'s ends.
    var names: [UInt8] = []
    var nameEnd = NarrowColumn<Int>()
    var size = NarrowColumn<Int64>()
    var allocated = NarrowColumn<Int64>()
    var modifiedSeconds = NarrowColumn<Int64>()
    var modifiedNanoseconds: [Int32] = []
    var device = NarrowColumn<UInt64>()
    var inode = NarrowColumn<UInt64>()
    var mode: [UInt32] = []
    var links: [UInt32] = []
    /// `Kind` and `Special`, one byte (`EntryKind`).
    var kind: [EntryKind] = []
    /// The few entries that carry more: attributes, a symlink's target or a file's first
    /// bytes, a recorded protection class (sparse, by entry).
    var marks: [Int32: [AttributeMark]] = [:]
    var content: [Int32: [UInt8]] = [:]
    var protection: [Int32: Int64] = [:]

    package init() {}

    package init(_ entries: some Sequence<WalkEntry>) {
        for e in entries { append(e) }
    }

    package var count: Int { folder.count }
    package var startIndex: Int { 0 }
    package var endIndex: Int { folder.count }

    /// The folder `path` (relative to the root), for the entries of its listing.
    mutating func addFolder(_ path: ContainerPath) -> Int32 { folders.number(of: path.bytes[...]) }

    /// An entry listed in `folder` (`addFolder`), its name as `readdir` gave it.
    mutating func append(
        listedIn folder: Int32, name: UnsafeBufferPointer<UInt8>, status st: FileStatus, kind: EntryKind
    ) {
        self.folder.append(folder)
        names.append(contentsOf: name)
        nameEnd.append(names.count)
        size.append(st.size)
        allocated.append(st.allocated)
        modifiedSeconds.append(st.modifiedSeconds)
        modifiedNanoseconds.append(st.modifiedNanoseconds)
        device.append(st.device)
        inode.append(st.inode)
        mode.append(st.mode)
        links.append(UInt32(clamping: st.linkCount))
        self.kind.append(kind)
    }

    /// An entry read whole (its path relative to the root).
    package mutating func append(_ e: WalkEntry) {
        let b = e.path.bytes
        let slash = b.lastIndex(of: UInt8(ascii: "/"))
        let f: Int32
        if b.isEmpty {
            f = -1
        } else if let slash {
            f = folders.number(of: b[..<slash])
        } else {
            f = 0
        }
        let name = slash.map { b[($0 + 1)...] } ?? b[...]
        folder.append(f)
        names.append(contentsOf: name)
        nameEnd.append(names.count)
        size.append(0)
        allocated.append(0)
        modifiedSeconds.append(0)
        modifiedNanoseconds.append(0)
        device.append(0)
        inode.append(0)
        mode.append(0)
        links.append(0)
        kind.append(.file)
        set(e, at: count - 1)
    }

    mutating func setContent(_ bytes: [UInt8]?, at i: Int) { content[Int32(i)] = bytes }
    mutating func setMarks(_ marks: [AttributeMark], at i: Int) { self.marks[Int32(i)] = marks.isEmpty ? nil : marks }
    mutating func addMarks(_ more: [AttributeMark], at i: Int) {
        guard !more.isEmpty else { return }
        marks[Int32(i), default: []] += more
    }

    /// Every field of `e` but its path, at entry `i`.
    mutating func set(_ e: WalkEntry, at i: Int) {
        size[i] = e.size
        allocated[i] = e.allocated
        modifiedSeconds[i] = e.modifiedSeconds
        modifiedNanoseconds[i] = e.modifiedNanoseconds
        device[i] = e.device
        inode[i] = e.inode
        mode[i] = e.mode
        links[i] = UInt32(clamping: e.linkCount)
        kind[i] = EntryKind(e.kind, e.special)
        let key = Int32(i)
        marks[key] = e.marks.isEmpty ? nil : e.marks
        content[key] = (e.kind == .symlink ? e.symlinkTarget : e.header)
        protection[key] = e.protectionClass?.number
    }

    /// Entry `i` as one value (its path made); setting it writes every field but the path.
    package subscript(i: Int) -> WalkEntry {
        get { walkEntry(i) }
        set { set(newValue, at: i) }
    }

    /// Adds `other`'s entries after these (their folders numbered among these), taking them
    /// out of `other` column by column: a column is never held three times over (ours, theirs
    /// and the two joined), only ours and theirs while they join.
    package mutating func join(_ other: inout WalkEntries) {
        guard other.count > 0 || other.folders.count > 1 else { return }
        guard count > 0 || folders.count > 1 else {
            swap(&self, &other)
            return
        }
        let nameBase = names.count
        let entryBase = Int32(count)
        let total = count + other.count
        // Their folders numbered among ours (the root is folder 0 in both).
        let renumber = (0..<other.folders.count).map { folders.number(of: other.folders[Int32($0)]) }
        other.folders = FolderTable()
        func move<T>(_ mine: inout [T], _ theirs: inout [T]) {
            mine.reserveCapacity(total)
            mine += theirs
            theirs = []
        }
        folder.reserveCapacity(total)
        folder += other.folder.lazy.map { $0 < 0 ? $0 : renumber[Int($0)] }
        other.folder = []
        nameEnd.take(&other.nameEnd, reserving: total, adding: nameBase)
        names.reserveCapacity(names.count + other.names.count)
        names += other.names
        other.names = []
        size.take(&other.size, reserving: total)
        allocated.take(&other.allocated, reserving: total)
        modifiedSeconds.take(&other.modifiedSeconds, reserving: total)
        move(&modifiedNanoseconds, &other.modifiedNanoseconds)
        device.take(&other.device, reserving: total)
        inode.take(&other.inode, reserving: total)
        move(&mode, &other.mode)
        move(&links, &other.links)
        move(&kind, &other.kind)
        for (k, v) in other.marks { marks[k + entryBase] = v }
        for (k, v) in other.content { content[k + entryBase] = v }
        for (k, v) in other.protection { protection[k + entryBase] = v }
        other = WalkEntries()
    }
}

/// An entry's kind and, for `other`, which special file: one byte per entry.
@usableFromInline package struct EntryKind: Sendable, Equatable {
    @usableFromInline let raw: UInt8

    init(_ kind: WalkEntry.Kind, _ special: WalkEntry.Special?) {
        switch (kind, special) {
        case (.file, _): raw = 0
        case (.directory, _): raw = 1
        case (.symlink, _): raw = 2
        case (.other, nil): raw = 3
        case (.other, .fifo?): raw = 4
        case (.other, .socket?): raw = 5
        case (.other, .characterDevice?): raw = 6
        case (.other, .blockDevice?): raw = 7
        }
    }

    @usableFromInline static let file = EntryKind(.file, nil)
    @usableFromInline static let directory = EntryKind(.directory, nil)

    @inlinable var kind: WalkEntry.Kind {
        switch raw {
        case 0: .file
        case 1: .directory
        case 2: .symlink
        default: .other
        }
    }

    @inlinable var special: WalkEntry.Special? {
        switch raw {
        case 4: .fifo
        case 5: .socket
        case 6: .characterDevice
        case 7: .blockDevice
        default: nil
        }
    }
}
