import SandboxAuditSystem

/// Where an entry sits in its container: the folder Apple defines for it. What backup, restore
/// and update do with it comes from `BackupPathSets` (the zone alone does not decide: `GeoJSON`
/// at an app's root is backed up, a group container's root is).
@usableFromInline package enum Zone: String, CaseIterable, Sendable, Comparable {
    case documents
    case applicationSupport
    case caches
    case preferences
    /// The folders the system writes under Library on the app's behalf and backup skips:
    /// SplashBoard (launch snapshots), Saved Application State, SyncedPreferences.
    case systemLibrary
    /// Any other path under Library (Cookies, WebKit, HTTPStorages …).
    case library
    case tmp
    /// Anything at the data root that is not Documents, Library, tmp or a system item (in a
    /// group container, `tmp` and `SystemData` too: they are ordinary folders there).
    case root
    /// `SystemData/` (of an app's or extension's container) and the container-manager metadata
    /// plist: managed by the system.
    case system

    @usableFromInline package static func < (a: Zone, b: Zone) -> Bool { a.ordinal < b.ordinal }

    /// The zone of a path relative to the data root. Compares bytes only: it runs for every
    /// entry of the container.
    static func of(_ path: ContainerPath, role: ContainerRole = .app) -> Zone {
        let b = path.bytes
        let end = b.firstIndex(of: UInt8(ascii: "/")) ?? b.count
        let first = b[0..<end]
        func named(_ s: ArraySlice<UInt8>, _ name: [UInt8]) -> Bool {
            s.count == name.count && Bytes.compare(s, name) == 0
        }
        if named(first, Zone.documentsName) { return .documents }
        if named(first, Zone.tmpName) { return role == .group ? .root : .tmp }
        // A group container is backed up from its root, SystemData too (less two skips
        // in BackupPathSets): there it is an ordinary folder.
        if named(first, Zone.systemDataName) { return role == .group ? .root : .system }
        if named(first, Zone.metadataName) { return .system }
        guard named(first, Zone.libraryName) else { return .root }
        guard end < b.count else { return .library }
        let secondEnd = b[(end + 1)...].firstIndex(of: UInt8(ascii: "/")) ?? b.count
        let second = b[(end + 1)..<secondEnd]
        if named(second, Zone.applicationSupportName) { return .applicationSupport }
        if named(second, Zone.cachesName) { return .caches }
        if named(second, Zone.preferencesName) { return .preferences }
        if Zone.systemLibraryNames.contains(where: { named(second, $0) }) { return .systemLibrary }
        return .library
    }

    static let documentsName = Array("Documents".utf8)
    static let tmpName = Array("tmp".utf8)
    static let libraryName = Array("Library".utf8)
    package static let systemDataName = Array("SystemData".utf8)
    static let metadataName = Array(Container.simulatorMetadata.utf8)
    static let applicationSupportName = Array("Application Support".utf8)
    static let cachesName = Array("Caches".utf8)
    static let preferencesName = Array("Preferences".utf8)
    static let systemLibraryNames = ["SplashBoard", "Saved Application State", "SyncedPreferences"].map {
        Array($0.utf8)
    }

    /// Position in `allCases`, for arrays indexed by zone.
    package var ordinal: Int {
        switch self {
        case .documents: return 0
        case .applicationSupport: return 1
        case .caches: return 2
        case .preferences: return 3
        case .systemLibrary: return 4
        case .library: return 5
        case .tmp: return 6
        case .root: return 7
        case .system: return 8
        }
    }

    /// The folders Apple defines; marking one of them excludes a whole zone.
    package static let containerDirectories: [ContainerPath] = [
        "Documents", "Library", "Library/Application Support", "Library/Caches", "Library/Preferences", "tmp",
    ].map { ContainerPath($0) }

    /// The folder that holds the zone (nil for the root's other items and system items).
    var folder: ContainerPath? {
        switch self {
        case .documents: return ContainerPath("Documents")
        case .applicationSupport: return ContainerPath("Library/Application Support")
        case .caches: return ContainerPath("Library/Caches")
        case .preferences: return ContainerPath("Library/Preferences")
        case .library: return ContainerPath("Library")
        case .tmp: return ContainerPath("tmp")
        case .systemLibrary, .root, .system: return nil
        }
    }

    package var title: String {
        switch self {
        case .documents: return "Documents"
        case .applicationSupport: return "Library/Application Support"
        case .caches: return "Library/Caches"
        case .preferences: return "Library/Preferences"
        case .systemLibrary: return "Library (system-written)"
        case .library: return "Library (other)"
        case .tmp: return "tmp"
        case .root: return "data root (other)"
        case .system: return "system"
        }
    }
}
