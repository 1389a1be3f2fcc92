import SandboxAuditSystem

/// A line of the app's code.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The file, relative to the folder indexed, its components joined by `/`.
    public let file: String
    /// 1-based.
    public let line: Int
    /// 1-based, in UTF-8 bytes from the start of the line.
    public let column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public static func < (a: SourceLocation, b: SourceLocation) -> Bool {
        (a.file, a.line, a.column) < (b.file, b.line, b.column)
    }

    /// `file:line:column`, as compilers and editors print a place in a file.
    public var description: String { "\(file):\(line):\(column)" }
}

/// The container a path is in.
public enum SourceBase: Sendable, Hashable {
    /// The app's (or an app extension's) own data container: `NSHomeDirectory()`.
    case home
    /// An App Group's container, by its identifier (`group.` and the rest): what
    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)` returns (Apple,
    /// "Configuring App Groups", https://developer.apple.com/documentation/xcode/configuring-app-groups).
    case appGroup(String)
}

/// A file or folder of the tree the index did not read, and why: what a report shows as not checked.
public struct SkippedSource: Sendable, Hashable {
    /// Relative to the folder indexed, as `SourceLocation.file`.
    public let file: String
    public let reason: String
}

/// A path the code builds: its container, the path in it (`*` where a part is not known at build
/// time: a parameter, an interpolation), and the line that names it.
public struct BuiltPath: Sendable, Hashable {
    public let base: SourceBase
    /// Components joined by `/`, relative to the container (`Documents/VideoCache/*.mp4`).
    public let pattern: String
    public let location: SourceLocation
}

/// Why a source tree could not be indexed at all.
public enum SourceIndexError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The folder given could not be opened or listed.
    case unreadableRoot(path: String, reason: String)
    /// The tree holds more source files than the index reads.
    case tooManyFiles(limit: Int)

    public var description: String {
        switch self {
        case .unreadableRoot(let path, let reason): return "cannot read the source folder \(path): \(reason)"
        case .tooManyFiles(let limit):
            return "the source folder holds more than \(limit) Swift and Objective-C files: give the app's own folder"
        }
    }
}

/// An app's source tree (Swift, and Objective-C read as tokens) indexed for the lines that build
/// each path of its containers: `candidates(for:base:isDirectory:)` answers, for a file found in
/// a container, which lines of the app name it.
///
/// What is resolved: the standard folders (`FileManager`'s `urls(for:in:)` and `url(for:…)`,
/// `URL.documentsDirectory` and its kin, `NSTemporaryDirectory()`, `NSHomeDirectory()`,
/// `NSSearchPathForDirectoriesInDomains`, an App Group's `containerURL`), the joins
/// (`appendingPathComponent`, `appending(path:)`, `appending(component:)`,
/// `appending(components:)`, `appendingPathExtension`, string concatenation and interpolation,
/// `URL(fileURLWithPath:relativeTo:)`), names (locals, constants, properties and one-`return`
/// functions anywhere in the tree), `#if` as it is for iOS, and the files Core Data, SwiftData
/// and `UserDefaults(suiteName:)` write by default. A part that is not known becomes a wildcard.
public struct SourceIndex: Sendable {
    /// The Swift and Objective-C files read.
    public let filesIndexed: Int
    /// What was not read, and why, in the order of the tree.
    public let skipped: [SkippedSource]
    /// Every path the code builds, sorted by container, path and location.
    public let paths: [BuiltPath]
    let matcher: PathMatcher

    /// Reads every Swift (`.swift`) and Objective-C (`.m`, `.mm`, `.h`) file below `root`, never
    /// through a symbolic link, and not in `.build`, `Pods`, `Carthage`, `DerivedData`, `.git` or
    /// `node_modules`. A file that is not read (over 4 MiB, not UTF-8, not a regular file, a
    /// link, a Swift file nested past what SwiftParser reads safely) is listed in `skipped`.
    /// Throws `SourceIndexError` when `root` cannot be listed or the tree holds more than 100,000
    /// source files. Files are parsed on the cores; the few nested deeper than 16 brackets, and
    /// the evaluation of the whole tree, on the calling thread, whose stack should be a main
    /// thread's (8 MiB), not a secondary thread's 512 KiB.
    public static func build(root: String) throws -> SourceIndex {
        try build(root: root, maximumFiles: SourceTree.maximumFiles)
    }

    /// `build(root:)` with another bound on the number of source files.
    static func build(root: String, maximumFiles: Int) throws -> SourceIndex {
        let tree = try SourceTree.read(root: root, maximumFiles: maximumFiles)
        var evaluation = Evaluation(files: tree.summaries)
        evaluation.run()
        let matcher = PathMatcher(built: evaluation.built, files: tree.files)
        let paths = evaluation.built.map { p in
            BuiltPath(
                base: p.base, pattern: p.components.map(PatternText.display).joined(separator: "/"),
                location: SourceLocation(
                    file: tree.files[Int(p.site!.file)], line: Int(p.site!.position.line),
                    column: Int(p.site!.position.column)))
        }
        return SourceIndex(
            filesIndexed: tree.filesRead, skipped: tree.skipped,
            paths: Array(Set(paths)).sorted {
                ($0.base.order, $0.pattern, $0.location) < ($1.base.order, $1.pattern, $1.location)
            },
            matcher: matcher)
    }

    /// The lines that build `relativePath` (the entry's path in its container, components joined
    /// by `/`: `Documents/VideoCache/a.mp4`) in the container `base`, best first: the lines that
    /// build exactly that path (for a SQLite `-wal`, `-shm` or `-journal` file, those of its
    /// database too); then the patterns that match it, more literal characters first; then the
    /// lines that build the nearest folder above it. Only a path with a literal component below
    /// a standard folder (`Documents`, `Library`, `Library/Caches`, `Library/Application Support`,
    /// `Library/Preferences`, `tmp`, the container itself) is ever a candidate, so a file a
    /// framework writes in `Library/Caches` has none unless the app's code names it. Within a
    /// tier, by file, then line. Empty when no line of the app names the path.
    public func candidates(for relativePath: String, base: SourceBase, isDirectory: Bool) -> [SourceLocation] {
        var components: [Substring] = []
        var start = relativePath.startIndex
        let utf8 = relativePath.utf8
        var i = utf8.startIndex
        while i < utf8.endIndex {
            if utf8[i] == UInt8(ascii: "/") {
                if start < i { components.append(relativePath[start..<i]) }
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        if start < relativePath.endIndex { components.append(relativePath[start...]) }
        guard !components.isEmpty else { return [] }
        return matcher.candidates(components, base: base, isDirectory: isDirectory).map { matcher.locations[Int($0)] }
    }
}

extension SourceBase {
    /// The home container first, then App Groups by identifier.
    fileprivate var order: String {
        switch self {
        case .home: return ""
        case .appGroup(let id): return "group:" + id
        }
    }
}
