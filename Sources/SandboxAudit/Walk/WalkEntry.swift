/// What the walk records for one entry, from `lstat` and the entry's attributes. Nothing here
/// is a judgement: zones and verdicts come later (Classify).
public struct WalkEntry: Sendable {
    public enum Kind: String, Sendable { case file, directory, symlink, other }
    public enum Special: String, Sendable { case fifo, socket, characterDevice = "character-device", blockDevice = "block-device" }

    public var path: ContainerPath
    public var kind: Kind
    /// For `other`: which kind of special file.
    public var special: Special?
    /// `st_size`: apparent size.
    public var size: Int64
    /// `st_blocks` × 512: allocated size.
    public var allocated: Int64
    public var mode: UInt32
    /// Modification time, seconds and nanoseconds since 1970.
    public var modifiedSeconds: Int64
    public var modifiedNanoseconds: Int32
    public var device: UInt64
    public var inode: UInt64
    public var linkCount: UInt64
    /// For symlinks: the target, as stored.
    public var symlinkTarget: [UInt8]?
    /// The file's first bytes, when the walk was asked for them (`Walker.headerLength`).
    public var header: [UInt8]?
    /// Backup attributes found on the entry (native or from sidecars).
    public var marks: [AttributeMark]
    public var modifiedTime: Double { Double(modifiedSeconds) + Double(modifiedNanoseconds) / 1e9 }
    /// Files and symlinks hold content (a symlink: its target); folders and special files do not.
    public var holdsContent: Bool { kind == .file || kind == .symlink }
    /// The bytes of content: `size` for a file or symlink, 0 for the rest.
    public var contentSize: Int64 { holdsContent ? size : 0 }
}

/// Something the walk could not read. The walk records it and goes on.
public struct WalkProblem: Sendable, Hashable {
    public var path: ContainerPath
    /// The system call or step that failed ("open directory", "read attributes" …).
    public var operation: String
    public var reason: String
    /// True when the entry disappeared while the scan ran.
    public var vanished: Bool

    public init(path: ContainerPath, operation: String, reason: String, vanished: Bool = false) {
        self.path = path
        self.operation = operation
        self.reason = reason
        self.vanished = vanished
    }
}

/// Everything one walk produced.
public struct WalkResult: Sendable {
    /// In no particular order; the inventory sorts.
    public var entries: [WalkEntry] = []
    /// Attributes on the walked root itself.
    public var rootMarks: [AttributeMark] = []
    public var problems: [WalkProblem] = []
    /// Sidecars whose file was not beside them (all of them, in a `__MACOSX` mirror), by the
    /// path of the item they describe, relative to the walked root.
    public var unmatchedSidecars: [ContainerPath: Sidecar] = [:]
    /// Sidecars that describe no entry of the container, in no particular order. Their bytes
    /// count with the sidecars, never in the app's totals.
    public var orphanSidecars: [SidecarOrphan] = []
    /// How many AppleDouble files were read (kept out of every total).
    public var sidecarCount = 0
    /// This walker's count for the progress line (nothing when nobody watches).
    var progress = ProgressCounter()
}

/// What one AppleDouble `._NAME` file held.
public struct Sidecar: Sendable {
    /// The backup attributes in it (none when it holds other attributes or Finder info only).
    public var marks: [AttributeMark]
    /// The sidecar file's own size.
    public var size: Int64

    public init(marks: [AttributeMark], size: Int64) {
        self.marks = marks
        self.size = size
    }
}

/// An AppleDouble sidecar that describes no entry: its item is gone, or is named with other
/// bytes (the same name in another Unicode normalisation, NFC against NFD).
public struct SidecarOrphan: Sendable {
    /// Where the sidecar is, relative to the data root (`../` leads out of it, to a sidecar
    /// beside the data root or to a `__MACOSX` mirror beside it).
    public var sidecar: ContainerPath
    /// The item it names, relative to the data root.
    public var target: ContainerPath
    public var marks: [AttributeMark]
    /// The sidecar file's size.
    public var size: Int64
    /// The entry in the same folder whose name equals the target's under Unicode
    /// normalisation, else the entry there nearest by name; nil when the folder holds none.
    public var nearest: ContainerPath?
    /// True when `nearest` is the same name under Unicode normalisation: a Mac's file system
    /// treats the two as one name, so the sidecar's marks were given to that entry.
    public var sameUnderNormalisation = false

    public init(sidecar: ContainerPath, target: ContainerPath, marks: [AttributeMark], size: Int64) {
        self.sidecar = sidecar
        self.target = target
        self.marks = marks
        self.size = size
    }
}
