import Foundation
import SandboxAuditSystem

/// Read-only access to file contents for the rules that look inside (a database header, a
/// preferences plist). Opens regular files only, without following symlinks, without updating
/// access times where permitted, and reads at most what is asked.
///
/// Rules read in path order, so siblings come together: the reader keeps the last parent
/// directory open and opens each file relative to it. A folder container's folders are opened
/// from the data root held since it was located (`Container.root`), never by its path again.
///
/// A backup domain has no data root: its files' bytes are read from the backup folder
/// (`XX/FILEID`, decrypted in memory when the backup is encrypted) through its `BackupSource`.
package final class ContentReader: Sendable {
    /// The data root; for a backup domain, the backup folder.
    let dataRoot: String
    /// Set for a backup domain: where its files' bytes are.
    let backup: BackupSource?
    /// Set for a folder container: its data root, as opened when it was located.
    private let root: HeldDescriptor?
    /// The last parent folder opened (rules read in path order) and the reads that failed.
    private struct State: Sendable {
        var cachedParent: ContainerPath?
        var cached: Result<FileDescriptor, Errno>?
        var recorded: [ContentMiss] = []
    }
    private let state = Locked(State())

    /// The reads asked for with `for:` that failed, in the order asked.
    package var misses: [ContentMiss] { state.withLock { $0.recorded } }

    /// Reads a folder container's files through its held data root; nil when it has none.
    init?(folder container: Container) {
        guard let root = container.root else { return nil }
        self.dataRoot = container.dataRoot
        self.root = root
        self.backup = nil
    }

    /// Reads a backup domain's files from the backup folder.
    init(backup: BackupSource) {
        self.dataRoot = backup.folder.path
        self.backup = backup
        self.root = nil
    }

    deinit { state.withLock { if case .success(let fd) = $0.cached { fd.close() } } }

    /// Up to `limit` bytes from the start of the regular file at `path`; nil when it cannot be
    /// read (gone, not a regular file, permission denied).
    func read(_ path: ContainerPath, limit: Int) -> [UInt8]? {
        try? attempt(path, limit: limit).get()
    }

    /// As `read`, for a rule that cannot check `path` without it: a failure is recorded in
    /// `misses` (`what` it wanted, the `consequence`: "volatile-store not checked"), and the
    /// audit reports it as incomplete.
    package func read(_ path: ContainerPath, limit: Int, for ruleId: String, what: String, consequence: String)
        -> [UInt8]?
    {
        switch attempt(path, limit: limit) {
        case .success(let bytes): return bytes
        case .failure(let e):
            state.withLock {
                $0.recorded.append(
                    ContentMiss(path: path, ruleId: ruleId, what: what, consequence: consequence, why: e.reason))
            }
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
        guard let parent = path.parent else {
            return .failure(SystemError(code: EINVAL, operation: "open", path: path.display))
        }
        return state.withLock { state in
            if parent != state.cachedParent || state.cached == nil {
                if case .success(let fd) = state.cached { fd.close() }
                state.cached = Result { () throws(Errno) in try open(parent) }
                state.cachedParent = parent
            }
            switch state.cached! {
            case .failure(let e): return .failure(e.labelled("open", parent.display))
            case .success(let fd): return Result { () throws(SystemError) in try fd.readFile(path.name, limit: limit) }
            }
        }
    }

    /// Opens a folder below the held data root one component at a time: no PATH_MAX limit, no
    /// symlink followed.
    private func open(_ folder: ContainerPath) throws(Errno) -> FileDescriptor {
        guard let root else { throw Errno(code: EBADF) }
        var fd = try root.reopenedDirectory()
        for component in folder.leadingComponents(Int.max) {
            let next = Result { () throws(Errno) in try fd.openDirectory(component) }
            fd.close()
            fd = try next.get()
        }
        return fd
    }
}

/// A read a rule needed and could not do, recorded by the `ContentReader`.
package struct ContentMiss: Sendable, Hashable {
    package let path: ContainerPath
    /// The rule that needed it.
    package let ruleId: String
    /// What it wanted ("the first bytes", "the contents").
    package let what: String
    /// What was not checked because of it ("volatile-store not checked").
    package let consequence: String
    package let why: String
}
