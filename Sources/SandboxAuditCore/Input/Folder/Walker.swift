import Foundation
import SandboxAuditSystem

/// Walks a directory tree at the `openat`/`fstatat` level.
///
/// - Never follows symlinks, never opens FIFOs, sockets or devices.
/// - Iterative, so depth is bounded by memory, not the stack; entries are addressed relative
///   to an open directory, so paths longer than PATH_MAX work. The folders at the root are
///   shared out between a worker per core (`Parallel.workers`), and a worker hands folders of
///   its subtree to another when that one has none left. At most `maximumOpenDirectories`
///   descriptors stay open: deeper ancestors are closed and reopened through `..` (checked by
///   device and inode) when the walk climbs back to them.
/// - Opens directories and sidecars with O_NOATIME where permitted, so reading leaves access
///   times alone; it writes nothing.
/// - AppleDouble `._NAME` files are read and their attributes given to NAME; the sidecars
///   themselves are not entries.
struct Walker {
    var root: String
    /// The root as opened when the input was located: walked through it (a folder of its own
    /// opened from it) rather than by `root`, which then only names it in messages.
    var opened: HeldDescriptor?
    /// Names skipped at the top level (the `__MACOSX` mirror, read separately).
    var skipAtTop: Set<[UInt8]> = []
    /// Whether a `._NAME` sidecar gives its attributes to NAME beside it. A `__MACOSX` mirror
    /// is walked with false: there every sidecar describes the item at the same path in the
    /// data root, even where the mirror has a folder of that name too (as Finder and `ditto`
    /// zips do for every folder holding a file with a sidecar), so all land in
    /// `unmatchedSidecars`.
    var matchSidecars = true
    /// How many leading bytes to record of a regular file (0: none), given its zone and size:
    /// the content rules' file signatures, read while the folder is open anyway.
    var headerLength: @Sendable (Zone, Int64) -> Int = { _, _ in 0 }
    var maximumOpenDirectories = 64

    init(root: String) { self.root = root }

    private struct Frame {
        var path: ContainerPath
        var name: [UInt8]
        /// Nil while closed to keep the open descriptors bounded (reopened when needed).
        var fd: FileDescriptor?
        var identity: FileIdentity?
        var pending: [[UInt8]]
    }

    /// A folder to walk, opened, with its path: the root's folders, and those a worker hands
    /// to another that has none left.
    struct Subtree: Sendable {
        let fd: FileDescriptor
        let path: ContainerPath
    }

    func walk() throws -> WalkResult {
        var result = WalkResult()
        let rootFD = try attempt("open directory", root) { () throws(Errno) in
            if let opened { return try opened.reopenedDirectory() }
            return try FileDescriptor.currentDirectory.openDirectory(root.utf8)
        }
        defer { rootFD.close() }
        _ = try attempt("stat", root) { () throws(Errno) in try rootFD.status() }
        do {
            result.rootMarks = try AttributeMark.nativeMarks(.descriptor(rootFD.rawValue))
        } catch let e as SystemError {
            result.problems.append(WalkProblem(path: .root, operation: "read attributes", reason: e.reason))
        }

        // The root is listed here; each folder in it is a subtree a worker walks, and a worker
        // hands parts of its subtree to the other when that one has none left (`TaskPool`).
        var tasks: [Subtree] = []
        for name in readDirectory(fd: rootFD, path: .root, folder: 0, top: true, into: &result) {
            let path = ContainerPath.root.appending(name)
            guard let fd = openDirectory(in: rootFD, name, path: path, into: &result) else { continue }
            tasks.append(Subtree(fd: fd, path: path))
        }
        tasks.reverse()

        // A worker per core.
        let workers = max(1, min(tasks.count, Parallel.workers))
        let walker = self
        var parts = Parallel.share(workers: workers, tasks: tasks, initial: { WalkResult() }) { local, task, pool in
            walker.walkSubtree(fd: task.fd, path: task.path, into: &local, pool: pool)
        }
        // The root's entries and the workers' join the largest part's, each taken out of its
        // part as it joins.
        if let largest = parts.indices.max(by: { parts[$0].entries.count < parts[$1].entries.count }) {
            var joined = WalkEntries()
            swap(&joined, &parts[largest].entries)
            joined.join(&result.entries)
            for i in parts.indices where i != largest { joined.join(&parts[i].entries) }
            result.entries = joined
        }
        for var part in parts {
            part.progress.flush(folder: "")
            result.problems += part.problems
            result.unmatchedSidecars.merge(part.unmatchedSidecars) { a, b in
                Sidecar(marks: a.marks + b.marks, size: a.size + b.size)
            }
            result.sidecarCount += part.sidecarCount
        }
        result.progress.flush(folder: "")
        return result
    }

    /// The longest path (relative to the root, in bytes) whose folder is listed. Every entry
    /// keeps its whole path, so a chain thousands of folders deep with long names would cost
    /// depth × path length; a folder past this is recorded, its contents are not (a problem
    /// says so). iOS's own PATH_MAX is 1,024 bytes; a 5,000-deep chain of two-byte names fits.
    static let maximumPathLength = 32 * 1024

    static func openFailed(_ path: ContainerPath, _ e: Errno) -> WalkProblem {
        WalkProblem(path: path, operation: "open directory", reason: errorText(e.code), vanished: e.code == ENOENT)
    }

    /// Opens the folder `name` in `parent`, or records why it could not be.
    private func openDirectory(
        in parent: FileDescriptor, _ name: [UInt8], path: ContainerPath, into result: inout WalkResult
    ) -> FileDescriptor? {
        do {
            return try parent.openDirectory(name)
        } catch {
            result.problems.append(Walker.openFailed(path, error))
            return nil
        }
    }

    static func tooDeep(_ path: ContainerPath) -> WalkProblem {
        WalkProblem(
            path: path, operation: "list directory",
            reason:
                "its path is \(path.bytes.count) bytes, over the \(maximumPathLength)-byte limit: its contents are "
                + "not listed"
        )
    }

    /// Walks the subtree of the open directory `fd` (which it closes), depth first, with a
    /// bounded number of open descriptors. While another worker waits, it hands that worker
    /// half of the folders it has still to walk in the folder it has just listed.
    private func walkSubtree(
        fd subtreeFD: FileDescriptor, path subtreePath: ContainerPath, into result: inout WalkResult,
        pool: TaskPool<Subtree>
    ) {
        let subtreeFolder = result.entries.addFolder(subtreePath)
        var stack = [
            Frame(
                path: subtreePath, name: Array(subtreePath.name), fd: subtreeFD,
                identity: try? subtreeFD.status().identity, pending: [])
        ]
        stack[0].pending = readDirectory(
            fd: subtreeFD, path: subtreePath, folder: subtreeFolder, top: false, into: &result)
        var openCount = 1

        while !stack.isEmpty {
            let top = stack.count - 1
            if stack[top].pending.count > 1, let fd = stack[top].fd, pool.hungry {
                offerHalf(of: &stack[top].pending, in: fd, path: stack[top].path, to: pool, into: &result)
            }
            guard let name = stack[top].pending.popLast() else {
                let finished = stack.removeLast()
                if !stack.isEmpty, stack[stack.count - 1].fd == nil, !stack[stack.count - 1].pending.isEmpty {
                    stack[stack.count - 1].fd = reopenParent(of: finished, stack: stack, result: &result)
                    if stack[stack.count - 1].fd != nil { openCount += 1 } else { stack[stack.count - 1].pending = [] }
                }
                if let fd = finished.fd {
                    fd.close()
                    openCount -= 1
                }
                continue
            }
            let parent = stack[top]
            let path = parent.path.appending(name)
            if path.bytes.count >= Walker.maximumPathLength {
                result.problems.append(Walker.tooDeep(path))
                continue
            }
            guard let parentFD = parent.fd, let fd = openDirectory(in: parentFD, name, path: path, into: &result) else {
                continue
            }
            stack.append(Frame(path: path, name: name, fd: fd, identity: try? fd.status().identity, pending: []))
            openCount += 1
            let folder = result.entries.addFolder(path)
            stack[stack.count - 1].pending = readDirectory(
                fd: fd, path: path, folder: folder, top: false, into: &result)
            // Keep the descriptors bounded: close the oldest open ancestor (never the subtree's own).
            if openCount > maximumOpenDirectories {
                let oldest = stack.count - maximumOpenDirectories
                if oldest >= 1, let fd = stack[oldest].fd {
                    fd.close()
                    stack[oldest].fd = nil
                    openCount -= 1
                }
            }
        }
    }

    /// Opens half of `pending` (at most 16 folders, so that few descriptors wait in the pool)
    /// and offers them to the pool.
    private func offerHalf(
        of pending: inout [[UInt8]], in fd: FileDescriptor, path: ContainerPath, to pool: TaskPool<Subtree>,
        into result: inout WalkResult
    ) {
        var offered: [Subtree] = []
        for _ in 0..<min(pending.count / 2, 16) {
            let name = pending.removeFirst()
            let child = path.appending(name)
            guard child.bytes.count < Walker.maximumPathLength else {
                pending.append(name)
                continue
            }
            guard let opened = openDirectory(in: fd, name, path: child, into: &result) else { continue }
            offered.append(Subtree(fd: opened, path: child))
        }
        pool.offer(offered)
    }

    /// Reopens the directory above `child` through `..`, or from the nearest open ancestor,
    /// and checks it is still the directory the walk entered.
    private func reopenParent(of child: Frame, stack: [Frame], result: inout WalkResult) -> FileDescriptor? {
        let target = stack[stack.count - 1]
        func matches(_ fd: FileDescriptor) -> Bool {
            target.identity != nil && (try? fd.status().identity) == target.identity
        }
        if let childFD = child.fd, let fd = try? childFD.openDirectory("..".utf8) {
            if matches(fd) { return fd }
            fd.close()
        }
        // Descend again from the nearest ancestor that is still open.
        if var index = stack.lastIndex(where: { $0.fd != nil }) {
            var fd = try? stack[index].fd!.duplicate()
            while index < stack.count - 1, let here = fd {
                index += 1
                fd = try? here.openDirectory(stack[index].name)
                here.close()
            }
            if let fd {
                if matches(fd) { return fd }
                fd.close()
            }
        }
        result.problems.append(
            WalkProblem(
                path: target.path, operation: "reopen directory", reason: "it moved or changed during the scan",
                vanished: true))
        return nil
    }

    /// Lists one directory (folder `folder` of the entries), records its entries, and returns
    /// the subdirectories to visit. Each name is used where `readdir` left it: an entry's name
    /// is copied into the entries' names, and no path is made for it.
    private func readDirectory(
        fd: FileDescriptor, path: ContainerPath, folder: Int32, top: Bool, into result: inout WalkResult
    ) -> [[UInt8]] {
        var subdirectories: [[UInt8]] = []
        let firstNew = result.entries.count
        var sidecars: [[UInt8]: Sidecar] = [:]
        // The zone of every entry here, when the folder decides it (two levels down and
        // deeper): what the first bytes of a file are wanted for.
        let folderZone: Zone? = path.bytes.contains(UInt8(ascii: "/")) ? Zone.of(path) : nil
        let failure = fd.forEachName { cName, name in
            if top && skipAtTop.contains(Array(name)) { return }
            let st: FileStatus
            switch Result(catching: { () throws(Errno) in try fd.status(ofCString: cName) }) {
            case .success(let s): st = s
            case .failure(let e):
                result.problems.append(
                    WalkProblem(
                        path: path.appending(name), operation: "stat", reason: errorText(e.code),
                        vanished: e.code == ENOENT))
                return
            }
            if st.kind == .regular, name.count > 2, name.starts(with: AppleDouble.sidecarPrefix),
                st.size <= Int64(AppleDouble.maximumSize)
            {
                let read = Result { () throws(SystemError) in
                    try fd.readFile(cString: cName, limit: AppleDouble.maximumSize)
                }
                switch Walker.sidecar(read, path: path.appending(name)) {
                case .notSidecar: break
                case .sidecar(let marks):
                    result.sidecarCount += 1
                    sidecars[Array(name.dropFirst(2))] = Sidecar(marks: marks, size: st.size)
                    return
                case .failed(let problem):
                    result.sidecarCount += 1
                    result.problems.append(problem)
                    return
                }
            }
            let kind: EntryKind
            var held: [UInt8]?
            switch st.kind {
            case .regular:
                kind = .file
                let wanted =
                    StoreSignature.mayBeDatabase(size: st.size)
                    ? headerLength(folderZone ?? Zone.of(path.appending(name)), st.size) : 0
                if wanted > 0 { held = try? fd.readFile(cString: cName, limit: wanted) }
            case .directory:
                kind = .directory
                subdirectories.append(Array(name))
            case .symlink:
                kind = EntryKind(.symlink, nil)
                held = try? fd.readLink(cString: cName, size: Int(st.size))
            case .fifo: kind = EntryKind(.other, .fifo)
            case .socket: kind = EntryKind(.other, .socket)
            case .characterDevice: kind = EntryKind(.other, .characterDevice)
            case .blockDevice: kind = EntryKind(.other, .blockDevice)
            case .unknown: kind = EntryKind(.other, nil)
            }
            result.entries.append(listedIn: folder, name: name, status: st, kind: kind)
            if let held { result.entries.setContent(held, at: result.entries.count - 1) }
            do {
                let marks = try AttributeMark.nativeMarks(
                    .child(directory: fd.rawValue, name: cName, root: root, folder: path))
                if !marks.isEmpty { result.entries.setMarks(marks, at: result.entries.count - 1) }
            } catch let e as SystemError {
                result.problems.append(
                    WalkProblem(
                        path: path.appending(name), operation: "read attributes", reason: e.reason,
                        vanished: e.code == ENOENT))
            } catch {}
        }
        if let failure {
            result.problems.append(
                WalkProblem(path: path, operation: "read directory", reason: errorText(failure.code)))
        }
        if result.progress.isWatched { result.progress.countFolder(result.entries, from: firstNew, path) }
        if !sidecars.isEmpty {
            if matchSidecars {
                for i in firstNew..<result.entries.count {
                    if let sidecar = sidecars.removeValue(forKey: Array(result.entries.name(i))) {
                        result.entries.addMarks(sidecar.marks, at: i)
                    }
                }
            }
            for (name, sidecar) in sidecars { result.unmatchedSidecars[path.appending(name)] = sidecar }
        }
        return subdirectories
    }

    private enum SidecarRead {
        case notSidecar
        case sidecar([AttributeMark])
        case failed(WalkProblem)
    }

    /// What a `._NAME` file read (`read`) holds.
    private static func sidecar(_ read: Result<[UInt8], SystemError>, path: ContainerPath) -> SidecarRead {
        let bytes: [UInt8]
        switch read {
        case .success(let b): bytes = b
        case .failure(let e):
            return .failed(WalkProblem(path: path, operation: "read AppleDouble file", reason: e.reason))
        }
        guard AppleDouble.hasMagic(bytes) else { return .notSidecar }
        do {
            return .sidecar(AttributeMark.marks(in: try AppleDouble.parse(bytes), source: .appleDouble(sidecar: path)))
        } catch {
            return .failed(WalkProblem(path: path, operation: "parse AppleDouble file", reason: "\(error)"))
        }
    }
}
