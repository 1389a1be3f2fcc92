/// Strings and paths as the evaluation knows them: literal text with wildcards where a part is
/// not known (`"\(id).mp4"` is `*.mp4`), and paths as a base and components.

/// The wildcard inside a pattern: a byte no file name holds, shown as `*`.
let wildcard: Character = "\u{0}"

/// Text patterns: literal characters and `wildcard`.
enum PatternText {
    /// The longest text kept: longer is a wildcard (a string built by doubling itself stays small).
    static let maximumLength = 1024

    /// `a` then `b`, with no two wildcards in a row.
    static func join(_ a: String, _ b: String) -> String {
        guard a.utf8.count + b.utf8.count <= maximumLength else { return String(wildcard) }
        if a.last == wildcard && b.first == wildcard { return a + b.dropFirst() }
        return a + b
    }

    /// Whether `s` holds a character that is not a wildcard.
    static func hasLiteral(_ s: some StringProtocol) -> Bool { s.contains { $0 != wildcard } }

    /// The pattern as users read it (`*` for each wildcard).
    static func display(_ s: some StringProtocol) -> String {
        String(s.map { $0 == wildcard ? "*" : $0 })
    }
}

/// A site: where in the tree an expression is (file index, then position).
struct Site: Hashable, Sendable {
    let file: Int32
    let position: Position
}

/// A path under one of the containers: its base and components (each a pattern), and the site
/// that named its last literal component (nil while only a base or wildcards were added).
struct PathValue: Hashable, Sendable {
    var base: SourceBase
    var components: [String]
    var site: Site?
    /// What the code says of the last component: a folder (true), a file (false), or nothing.
    var folder: Bool?
    /// A path string that ends with `/` (`NSTemporaryDirectory()`): text appended to it starts a
    /// component.
    var endsWithSlash = false

    init(_ base: SourceBase, _ components: [String]) {
        self.base = base
        self.components = components
    }
}

/// A value the evaluation gives an expression.
enum Value: Equatable, Sendable {
    case unknown
    /// A string that is not (yet) a path: literal text and wildcards.
    case text(String)
    /// A URL or a path string under a base.
    case path(PathValue)
    /// An array of paths (`urls(for:in:)`, `NSSearchPathForDirectoriesInDomains`): its element.
    case list(PathValue)
    /// `FileManager.default`.
    case fileManager
    /// A type used as a value's base (`URL`, `Constants`).
    case typeName(String)
    /// SwiftData's `.identifier("group.x")` group container.
    case groupContainer(String)

    /// The text the value stands for inside a string: a wildcard when unknown.
    var textPattern: String? {
        switch self {
        case .text(let s): return s
        case .unknown, .typeName, .fileManager, .groupContainer: return String(wildcard)
        case .path, .list: return nil
        }
    }

    /// The text when it holds no wildcard.
    var literal: String? {
        if case .text(let s) = self, !s.contains(wildcard) { return s }
        return nil
    }
}

/// The standard folders of a container, by the names Foundation gives them (`FileManager`'s
/// search path directories and `URL`'s static properties), as components below the container
/// (Apple, "FileManager.SearchPathDirectory",
/// https://developer.apple.com/documentation/foundation/filemanager/searchpathdirectory).
enum StandardFolder {
    static func components(_ name: String) -> [String]? {
        switch name {
        case "documentDirectory", "documentsDirectory", "NSDocumentDirectory": return ["Documents"]
        case "libraryDirectory", "NSLibraryDirectory": return ["Library"]
        case "cachesDirectory", "NSCachesDirectory": return ["Library", "Caches"]
        case "applicationSupportDirectory", "NSApplicationSupportDirectory": return ["Library", "Application Support"]
        // Not an iOS folder: the name a Mac app would use, kept as its container-relative name.
        case "downloadsDirectory", "NSDownloadsDirectory": return ["Downloads"]
        case "temporaryDirectory": return ["tmp"]
        case "homeDirectory", "homeDirectoryForCurrentUser": return []
        default: return nil
        }
    }

    /// Folders every container has, which no app line names by building them: a path is matched
    /// only with a literal component below the longest of these. `Downloads` is not one: an iOS
    /// container has none until the app makes it, so the line that builds it names it.
    static let system: Set<String> = [
        "", "Documents", "Library", "Library/Caches", "Library/Application Support", "Library/Preferences", "tmp",
    ]

    /// Whether a path (components as patterns) names something below a standard folder: a
    /// component with literal text after the longest standard folder it starts with.
    static func namesSomething(_ components: [String]) -> Bool {
        var k = min(2, components.count)
        while k > 0, !system.contains(components[0..<k].joined(separator: "/")) { k -= 1 }
        return components[k...].contains { PatternText.hasLiteral($0) }
    }
}
