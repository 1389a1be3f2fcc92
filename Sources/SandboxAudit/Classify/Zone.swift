/// Where an entry sits in the container, which decides what backup, update and restore do
/// with it (domain.md §1).
public enum Zone: String, CaseIterable, Sendable, Comparable {
    case documents
    case applicationSupport
    case caches
    case preferences
    /// Any other path under Library (Cookies, WebKit, Saved Application State …).
    case library
    case tmp
    /// Anything at the data root that is not Documents, Library, tmp or a system item.
    case root
    /// `SystemData/` and the container-manager metadata plist: managed by the system.
    case system

    public static func < (a: Zone, b: Zone) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// The zone of a path relative to the data root.
    public static func of(_ path: ContainerPath) -> Zone {
        let parts = path.leadingComponents(2)
        guard let first = parts.first else { return .root }
        switch String(decoding: first, as: UTF8.self) {
        case "Documents": return .documents
        case "tmp": return .tmp
        case "SystemData", Container.simulatorMetadata: return .system
        case "Library":
            guard parts.count > 1 else { return .library }
            switch String(decoding: parts[1], as: UTF8.self) {
            case "Application Support": return .applicationSupport
            case "Caches": return .caches
            case "Preferences": return .preferences
            default: return .library
            }
        default: return .root
        }
    }

    /// Backup carries this zone (unless an item is excluded).
    public var isBackedUp: Bool? {
        switch self {
        case .caches, .tmp: return false
        case .system: return nil
        default: return true
        }
    }

    /// An app update keeps this zone (Documents and Library).
    public var survivesUpdate: Bool? {
        switch self {
        case .documents, .applicationSupport, .caches, .preferences, .library: return true
        case .tmp, .root: return false
        case .system: return nil
        }
    }

    /// The folders Apple defines; marking one of them excludes a whole zone.
    public static let containerDirectories: [ContainerPath] = [
        "Documents", "Library", "Library/Application Support", "Library/Caches", "Library/Preferences", "tmp",
    ].map { ContainerPath($0) }

    /// The folder that holds the zone (nil for the root's other items and system items).
    public var folder: ContainerPath? {
        switch self {
        case .documents: return ContainerPath("Documents")
        case .applicationSupport: return ContainerPath("Library/Application Support")
        case .caches: return ContainerPath("Library/Caches")
        case .preferences: return ContainerPath("Library/Preferences")
        case .library: return ContainerPath("Library")
        case .tmp: return ContainerPath("tmp")
        case .root, .system: return nil
        }
    }

    public var title: String {
        switch self {
        case .documents: return "Documents"
        case .applicationSupport: return "Library/Application Support"
        case .caches: return "Library/Caches"
        case .preferences: return "Library/Preferences"
        case .library: return "Library (other)"
        case .tmp: return "tmp"
        case .root: return "data root (other)"
        case .system: return "system"
        }
    }
}
