import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Read-only access to file contents for the rules that look inside (a database header, a
/// preferences plist). Opens regular files only, without following symlinks, without updating
/// access times where permitted, and reads at most what is asked.
///
/// Rules read in path order, so siblings come together: the reader keeps the last parent
/// directory open and opens each file relative to it.
public final class ContentReader: @unchecked Sendable {
    public let dataRoot: String
    private let lock = NSLock()
    private var cachedParent: ContainerPath?
    private var cachedFD: Int32 = -1

    public init(dataRoot: String) { self.dataRoot = dataRoot }

    deinit { if cachedFD >= 0 { close(cachedFD) } }

    /// Up to `limit` bytes from the start of the regular file at `path`; nil when it cannot be
    /// read (gone, not a regular file, permission denied).
    public func read(_ path: ContainerPath, limit: Int) -> [UInt8]? {
        guard let parent = path.parent else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if parent != cachedParent {
            if cachedFD >= 0 { close(cachedFD) }
            cachedFD = open(parent)
            cachedParent = parent
        }
        guard cachedFD >= 0 else { return nil }
        return try? Walker.readFile(at: cachedFD, Array(path.name), limit: limit)
    }

    /// Opens a folder below the data root one component at a time: no PATH_MAX limit, no
    /// symlink followed.
    private func open(_ folder: ContainerPath) -> Int32 {
        var fd = Walker.openDirectory(at: AT_FDCWD, Array(dataRoot.utf8))
        for component in folder.leadingComponents(Int.max) where fd >= 0 {
            let next = Walker.openDirectory(at: fd, Array(component))
            close(fd)
            fd = next
        }
        return fd
    }
}
