import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An app data container as given on the command line: where its data root is, and who it
/// belongs to when the metadata says.
public struct Container: Sendable {
    public enum Kind: String, Sendable {
        /// A Simulator data container (it has the container-manager metadata plist).
        case simulator
        /// An `.xcappdata` package downloaded from a device; the data root is `AppData/`.
        case xcappdata
        /// Any other copy of a data container.
        case directory
    }

    /// The path as the user gave it.
    public let input: String
    /// The data root: the directory holding Documents, Library and tmp.
    public let dataRoot: String
    public let kind: Kind
    public let bundleIdentifier: String?
    public let version: String?
    /// The file the identity came from, relative to the input.
    public let identitySource: String?

    public static let simulatorMetadata = ".com.apple.mobile_container_manager.metadata.plist"
    public static let appDataInfo = "AppDataInfo.plist"

    /// Resolves `input` to a container, or throws an `InputError` saying what is wrong.
    public static func locate(_ input: String) throws -> Container {
        var st = stat()
        guard lstat(input, &st) == 0 || stat(input, &st) == 0 else {
            let reason = errno == ENOENT ? "no such file or directory" : String(cString: strerror(errno))
            throw InputError("cannot read \(input): \(reason)")
        }
        // The input may itself be a symlink to a container (a Simulator path alias): follow that one.
        if UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFLNK), stat(input, &st) != 0 {
            throw InputError("cannot read \(input): it is a broken symbolic link")
        }
        guard UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFDIR) else {
            throw InputError("\(input) is not a directory: give an app data container or an .xcappdata package")
        }
        // Work on the real path: the walk never follows a symlink, and a symlink's absolute
        // target is compared with it.
        var trimmed = input.count > 1 && input.hasSuffix("/") ? String(input.dropLast()) : input
        if let real = realpath(trimmed, nil) {
            trimmed = String(cString: real)
            free(real)
        }

        let appData = trimmed + "/AppData"
        if trimmed.hasSuffix(".xcappdata") || (isDirectory(appData) && fileExists(trimmed + "/" + appDataInfo)) {
            guard isDirectory(appData) else {
                throw InputError("\(input) is an .xcappdata package without an AppData folder")
            }
            try requireContainerLayout(appData, input: input)
            let info = readPlist(trimmed + "/" + appDataInfo)
            return Container(
                input: input, dataRoot: appData, kind: .xcappdata,
                bundleIdentifier: info.flatMap(appDataInfoIdentity)?.bundle,
                version: info.flatMap(appDataInfoIdentity)?.version,
                identitySource: info == nil ? nil : appDataInfo)
        }
        try requireContainerLayout(trimmed, input: input)
        if let meta = readPlist(trimmed + "/" + simulatorMetadata) {
            return Container(
                input: input, dataRoot: trimmed, kind: .simulator,
                bundleIdentifier: metadataIdentity(meta), version: nil,
                identitySource: simulatorMetadata)
        }
        return Container(input: input, dataRoot: trimmed, kind: .directory, bundleIdentifier: nil, version: nil, identitySource: nil)
    }

    /// Bundle id and version from an `.xcappdata`'s AppDataInfo.plist (schema undocumented:
    /// read what is there).
    static func appDataInfoIdentity(_ info: [String: Any]) -> (bundle: String?, version: String?) {
        (info["CFBundleIdentifier"] as? String,
         (info["XCExecutableVersion"] as? String) ?? (info["CFBundleShortVersionString"] as? String) ?? (info["CFBundleVersion"] as? String))
    }

    /// Bundle id from a Simulator container's metadata plist.
    static func metadataIdentity(_ meta: [String: Any]) -> String? { meta["MCMMetadataIdentifier"] as? String }

    private static func requireContainerLayout(_ root: String, input: String) throws {
        let known = ["Documents", "Library", "tmp"]
        guard known.contains(where: { isDirectory(root + "/" + $0) }) else {
            throw InputError("\(input) is not an app data container: no Documents, Library or tmp folder in \(root)")
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFDIR)
    }

    static func fileExists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFREG)
    }

    /// Identity plists larger than this are not read (a real one is well under 4 KiB).
    public static let maximumIdentityPlistSize = 1 << 20

    /// Reads a binary or XML plist dictionary; nil when missing, unreadable, over
    /// `maximumIdentityPlistSize` or refused by `BoundedPlist` (its schema is undocumented: read
    /// what is there, tolerate what is not). Opened without following a symlink, without
    /// blocking on a FIFO and without updating its access time where permitted.
    static func readPlist(_ path: String) -> [String: Any]? {
        guard fileExists(path),
              let bytes = try? BoundedRead.file(Array(path.utf8), limit: maximumIdentityPlistSize, followSymlink: false)
        else { return nil }
        return BoundedPlist.dictionary(bytes, maximumSize: maximumIdentityPlistSize)
    }

    /// The `__MACOSX` mirror trees that may describe this data root: one inside it, and one
    /// beside it or beside the package holding it (what unzipping a Finder archive leaves).
    /// Each is returned with its path relative to the data root's ancestors.
    public var mirrorRoots: [String] {
        var candidates: [String] = []
        var base = dataRoot
        var relative: [String] = []
        for _ in 0..<3 {
            candidates.append(([base, AppleDouble.mirrorFolder] + relative).joined(separator: "/"))
            let url = URL(fileURLWithPath: base)
            let parent = url.deletingLastPathComponent().path
            if parent == base || parent.isEmpty { break }
            relative.insert(url.lastPathComponent, at: 0)
            base = parent
        }
        return candidates.filter { Container.isDirectory($0) }
    }
}
