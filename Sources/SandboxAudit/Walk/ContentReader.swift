#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Read-only access to file contents for the rules that look inside (a database header, a
/// preferences plist). Opens regular files only, without following symlinks, without updating
/// access times where permitted, and reads at most what is asked.
public struct ContentReader: Sendable {
    public let dataRoot: String

    public init(dataRoot: String) { self.dataRoot = dataRoot }

    /// Up to `limit` bytes from the start of the regular file at `path`; nil when it cannot be
    /// read (gone, not a regular file, permission denied).
    public func read(_ path: ContainerPath, limit: Int) -> [UInt8]? {
        guard let parent = path.parent else { return nil }
        // Open the parent one component at a time: no PATH_MAX limit, no symlink followed.
        var fd = Walker.openDirectory(at: AT_FDCWD, Array(dataRoot.utf8))
        guard fd >= 0 else { return nil }
        for component in parent.leadingComponents(Int.max) {
            let next = Walker.openDirectory(at: fd, Array(component))
            close(fd)
            guard next >= 0 else { return nil }
            fd = next
        }
        defer { close(fd) }
        return try? Walker.readFile(at: fd, Array(path.name), limit: limit)
    }
}
