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
///
/// A backup domain has no data root: its files' bytes are read from the backup folder
/// (`XX/FILEID`, decrypted in memory when the backup is encrypted) through its `BackupSource`.
public final class ContentReader: @unchecked Sendable {
    /// The data root; for a backup domain, the backup folder.
    public let dataRoot: String
    /// Set for a backup domain: where its files' bytes are.
    public let backup: BackupSource?
    private let lock = NSLock()
    private var cachedParent: ContainerPath?
    private var cachedFD: Int32 = -1
    private var cachedError: Int32 = 0
    private var recorded: [ContentMiss] = []

    /// The reads asked for with `for:` that failed, in the order asked.
    public var misses: [ContentMiss] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    public init(dataRoot: String) {
        self.dataRoot = dataRoot
        self.backup = nil
    }

    /// Reads a backup domain's files from the backup folder.
    public init(backup: BackupSource) {
        self.dataRoot = backup.folder.path
        self.backup = backup
    }

    deinit { if cachedFD >= 0 { close(cachedFD) } }

    /// Up to `limit` bytes from the start of the regular file at `path`; nil when it cannot be
    /// read (gone, not a regular file, permission denied).
    public func read(_ path: ContainerPath, limit: Int) -> [UInt8]? {
        try? attempt(path, limit: limit).get()
    }

    /// As `read`, for a rule that cannot check `path` without it: a failure is recorded in
    /// `misses` (`what` it wanted, the `consequence`: "volatile-store not checked"), and the
    /// audit reports it as incomplete.
    public func read(_ path: ContainerPath, limit: Int, for ruleId: String, what: String, consequence: String) -> [UInt8]? {
        switch attempt(path, limit: limit) {
        case .success(let bytes): return bytes
        case .failure(let e):
            lock.lock()
            recorded.append(ContentMiss(path: path, ruleId: ruleId, what: what, consequence: consequence, why: e.reason))
            lock.unlock()
            return nil
        }
    }

    private func attempt(_ path: ContainerPath, limit: Int) -> Result<[UInt8], ReadFailure> {
        if let backup {
            return backup.read(path, limit: limit).mapError { ReadFailure(reason: $0.reason) }
        }
        return attemptOnDisk(path, limit: limit).mapError { ReadFailure(reason: $0.reason) }
    }

    struct ReadFailure: Error {
        let reason: String
    }

    private func attemptOnDisk(_ path: ContainerPath, limit: Int) -> Result<[UInt8], SystemError> {
        guard let parent = path.parent else { return .failure(SystemError(code: EINVAL, operation: "open", path: path.display)) }
        lock.lock()
        defer { lock.unlock() }
        if parent != cachedParent {
            if cachedFD >= 0 { close(cachedFD) }
            cachedFD = open(parent)
            cachedError = cachedFD >= 0 ? 0 : errno
            cachedParent = parent
        }
        guard cachedFD >= 0 else { return .failure(SystemError(code: cachedError, operation: "open", path: parent.display)) }
        do {
            return .success(try Walker.readFile(at: cachedFD, Array(path.name), limit: limit))
        } catch let e as SystemError {
            return .failure(e)
        } catch {
            return .failure(SystemError(code: EIO, operation: "read", path: path.display))
        }
    }

    /// Opens a folder below the data root one component at a time: no PATH_MAX limit, no
    /// symlink followed.
    private func open(_ folder: ContainerPath) -> Int32 {
        var fd = Walker.openDirectory(at: AT_FDCWD, Array(dataRoot.utf8))
        for component in folder.leadingComponents(Int.max) where fd >= 0 {
            let next = Walker.openDirectory(at: fd, Array(component))
            let e = errno
            close(fd)
            fd = next
            errno = e
        }
        return fd
    }
}
