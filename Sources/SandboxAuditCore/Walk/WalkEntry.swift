import SandboxAuditSystem

/// What the walk records for one entry, from `lstat` and the entry's attributes. Nothing here
/// is a judgement: zones and verdicts come later (Classify).
@usableFromInline package struct WalkEntry: Sendable {
    @usableFromInline package enum Kind: String, Sendable { case file, directory, symlink, other }
    @usableFromInline package enum Special: String, Sendable {
        case fifo, socket
        case characterDevice = "character-device"
        case blockDevice = "block-device"
    }

    // Stored with the 8-byte fields first and the small ones last, with a symlink's target and
    // a file's first bytes in one field, so that an entry takes 86 bytes, not 120: a
    // million-entry container holds it once in the walk and once in its inventory, whose
    // object then fits a 128-byte allocation.
    package var path: ContainerPath
    /// `st_size`: apparent size.
    package var size: Int64
    /// `st_blocks` × 512: allocated size.
    package var allocated: Int64
    /// Modification time, seconds and nanoseconds since 1970.
    package var modifiedSeconds: Int64
    package var device: UInt64
    package var inode: UInt64
    /// The recorded protection class's number; 0 for none.
    private var protectionNumber: Int64
    /// A symlink's target, or a file's first bytes.
    private var content: [UInt8]?
    /// Backup attributes found on the entry (native or from sidecars).
    package var marks: [AttributeMark]
    /// `st_nlink`, up to 2^32 − 1 (no file system links a file more often).
    private var links: UInt32
    package var mode: UInt32
    package var modifiedNanoseconds: Int32
    package var kind: Kind
    /// For `other`: which kind of special file.
    package var special: Special?

    package init(
        path: ContainerPath, kind: Kind, special: Special?, size: Int64, allocated: Int64, mode: UInt32,
        modifiedSeconds: Int64, modifiedNanoseconds: Int32, device: UInt64, inode: UInt64, linkCount: UInt64,
        symlinkTarget: [UInt8]?, header: [UInt8]?, marks: [AttributeMark], protectionClass: ProtectionClass? = nil
    ) {
        self.path = path
        self.size = size
        self.allocated = allocated
        self.modifiedSeconds = modifiedSeconds
        self.device = device
        self.inode = inode
        self.protectionNumber = protectionClass?.number ?? 0
        self.content = kind == .symlink ? symlinkTarget : header
        self.marks = marks
        self.links = UInt32(clamping: linkCount)
        self.mode = mode
        self.modifiedNanoseconds = modifiedNanoseconds
        self.kind = kind
        self.special = special
    }

    package var linkCount: UInt64 {
        get { UInt64(links) }
        set { links = UInt32(clamping: newValue) }
    }
    /// For symlinks: the target, as stored.
    package var symlinkTarget: [UInt8]? {
        get { kind == .symlink ? content : nil }
        set { content = newValue }
    }
    /// The file's first bytes, when the walk was asked for them (`Walker.headerLength`).
    package var header: [UInt8]? {
        get { kind == .symlink ? nil : content }
        set { content = newValue }
    }
    /// The data protection class a device backup records for the entry; nil when not recorded
    /// or not observable (every input but a backup).
    package var protectionClass: ProtectionClass? {
        get { ProtectionClass(recorded: protectionNumber) }
        set { protectionNumber = newValue?.number ?? 0 }
    }

    package var modifiedTime: Double { Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9 }
    /// Files and symlinks hold content (a symlink: its target); folders and special files do not.
    package var holdsContent: Bool { kind == .file || kind == .symlink }
    /// The bytes an entry adds to sizes and the backup footprint: a file's `size`, 0 for the
    /// rest. A symlink's `size` is its target's length, which a backup does not count (a
    /// real backup's `Manifest.db` records `Size` 0 for every symlink).
    package var contentSize: Int64 { kind == .file ? size : 0 }
}

/// Something the walk could not read. The walk records it and goes on.
package struct WalkProblem: Sendable, Hashable {
    package var path: ContainerPath
    /// The system call or step that failed ("open directory", "read attributes" …).
    package var operation: String
    package var reason: String
    /// True when the entry disappeared while the scan ran.
    package var vanished: Bool

    init(path: ContainerPath, operation: String, reason: String, vanished: Bool = false) {
        self.path = path
        self.operation = operation
        self.reason = reason
        self.vanished = vanished
    }
}

/// Everything one walk produced.
package struct WalkResult: Sendable {
    /// In no particular order; the inventory sorts.
    var entries = WalkEntries()
    /// Attributes on the walked root itself.
    var rootMarks: [AttributeMark] = []
    var problems: [WalkProblem] = []
    /// Sidecars whose file was not beside them (all of them, in a `__MACOSX` mirror), by the
    /// path of the item they describe, relative to the walked root.
    var unmatchedSidecars: [ContainerPath: Sidecar] = [:]
    /// Sidecars that describe no entry of the container, in no particular order. Their bytes
    /// count with the sidecars, never in the app's totals.
    var orphanSidecars: [SidecarOrphan] = []
    /// How many AppleDouble files were read (kept out of every total).
    var sidecarCount = 0
    /// The archive read, as opened and held (nil for a folder or a backup).
    var archive: ArchiveSnapshot?
    /// This walker's count for the progress line (nothing when nobody watches).
    var progress = ProgressCounter()

    package init() {}
}

/// What one AppleDouble `._NAME` file held.
struct Sidecar: Sendable {
    /// The backup attributes in it (none when it holds other attributes or Finder info only).
    var marks: [AttributeMark]
    /// The sidecar file's own size.
    var size: Int64

    init(marks: [AttributeMark], size: Int64) {
        self.marks = marks
        self.size = size
    }
}

/// An AppleDouble sidecar that describes no entry: its item is gone, or is named with other
/// bytes (the same name in another Unicode normalisation, NFC against NFD).
package struct SidecarOrphan: Sendable {
    /// Where the sidecar is, relative to the data root (`../` leads out of it, to a sidecar
    /// beside the data root or to a `__MACOSX` mirror beside it).
    package var sidecar: ContainerPath
    /// The item it names, relative to the data root.
    package var target: ContainerPath
    package var marks: [AttributeMark]
    /// The sidecar file's size.
    package var size: Int64
    /// The entry in the same folder whose name equals the target's under Unicode
    /// normalisation, else the entry there nearest by name; nil when the folder holds none.
    package var nearest: ContainerPath?
    /// True when `nearest` is the same name under Unicode normalisation: a Mac's file system
    /// treats the two as one name, so the sidecar's marks were given to that entry.
    package var sameUnderNormalisation = false

    init(sidecar: ContainerPath, target: ContainerPath, marks: [AttributeMark], size: Int64) {
        self.sidecar = sidecar
        self.target = target
        self.marks = marks
        self.size = size
    }
}
