import Foundation
import SandboxAuditSystem

/// Walks a directory tree at the `openat`/`fstatat` level.
///
/// - Never follows symlinks, never opens FIFOs, sockets or devices.
/// - Iterative, so depth is bounded by memory, not the stack; entries are addressed relative
///   to an open directory, so paths longer than PATH_MAX work. The subtrees two levels down are
///   shared out between two workers. At most `maximumOpenDirectories`
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
    /// How many leading bytes to record of a regular file (0: none), given its path and size:
    /// the content rules' file signatures, read while the folder is open anyway.
    var headerLength: @Sendable (ContainerPath, Int64) -> Int = { _, _ in 0 }
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

        // The root and the folders just below it are listed here; every folder below those is
        // the root of a subtree that a worker walks on its own.
        var tasks: [(parent: [UInt8], name: [UInt8])] = []
        for name in readDirectory(fd: rootFD, path: .root, top: true, into: &result) {
            let path = ContainerPath.root.appending(name)
            guard let fd = openDirectory(in: rootFD, name, path: path, into: &result) else { continue }
            tasks += readDirectory(fd: fd, path: path, top: false, into: &result).map { (name, $0) }
            fd.close()
        }

        // Two workers (the cores this tool may assume) take subtrees in turn.
        let workers = max(1, min(tasks.count, ProcessInfo.processInfo.activeProcessorCount, Walker.maximumWorkers))
        let walker = self, subtrees = tasks
        let parts = Parallel.takeTurns(workers: workers, tasks: subtrees.count, initial: { WalkResult() }) { local, i in
            let (parent, name) = subtrees[i]
            let path = ContainerPath(bytes: parent).appending(name)
            let opened = Result { () throws(Errno) in
                let parentFD = try rootFD.openDirectory(parent)
                defer { parentFD.close() }
                return try parentFD.openDirectory(name)
            }
            switch opened {
            case .success(let fd): walker.walkSubtree(fd: fd, path: path, into: &local)
            case .failure(let e): local.problems.append(Walker.openFailed(path, e))
            }
        }
        // The workers' entries join the top's, chunk by chunk (nothing is copied but the
        // last, partly filled chunks).
        for var part in parts {
            part.progress.flush(folder: "")
            result.entries.join(part.entries)
            result.problems += part.problems
            result.unmatchedSidecars.merge(part.unmatchedSidecars) { a, b in Sidecar(marks: a.marks + b.marks, size: a.size + b.size) }
            result.sidecarCount += part.sidecarCount
        }
        result.progress.flush(folder: "")
        return result
    }

    static let maximumWorkers = 2

    /// The longest path (relative to the root, in bytes) whose folder is listed. Every entry
    /// keeps its whole path, so a chain thousands of folders deep with long names would cost
    /// depth × path length; a folder past this is recorded, its contents are not (a problem
    /// says so). iOS's own PATH_MAX is 1,024 bytes; a 5,000-deep chain of two-byte names fits.
    static let maximumPathLength = 32 * 1024

    static func openFailed(_ path: ContainerPath, _ e: Errno) -> WalkProblem {
        WalkProblem(path: path, operation: "open directory", reason: errorText(e.code), vanished: e.code == ENOENT)
    }

    /// Opens the folder `name` in `parent`, or records why it could not be.
    private func openDirectory(in parent: FileDescriptor, _ name: [UInt8], path: ContainerPath, into result: inout WalkResult) -> FileDescriptor? {
        do {
            return try parent.openDirectory(name)
        } catch {
            result.problems.append(Walker.openFailed(path, error))
            return nil
        }
    }

    static func tooDeep(_ path: ContainerPath) -> WalkProblem {
        WalkProblem(path: path, operation: "list directory",
                    reason: "its path is \(path.bytes.count) bytes, over the \(maximumPathLength)-byte limit: its contents are not listed")
    }

    /// Walks the subtree of the open directory `fd` (which it closes), depth first, with a
    /// bounded number of open descriptors.
    private func walkSubtree(fd subtreeFD: FileDescriptor, path subtreePath: ContainerPath, into result: inout WalkResult) {
        var stack = [Frame(path: subtreePath, name: Array(subtreePath.name), fd: subtreeFD, identity: try? subtreeFD.status().identity, pending: [])]
        stack[0].pending = readDirectory(fd: subtreeFD, path: subtreePath, top: false, into: &result)
        var openCount = 1

        while !stack.isEmpty {
            let top = stack.count - 1
            guard let name = stack[top].pending.popLast() else {
                let finished = stack.removeLast()
                if !stack.isEmpty, stack[stack.count - 1].fd == nil, !stack[stack.count - 1].pending.isEmpty {
                    stack[stack.count - 1].fd = reopenParent(of: finished, stack: stack, result: &result)
                    if stack[stack.count - 1].fd != nil { openCount += 1 } else { stack[stack.count - 1].pending = [] }
                }
                if let fd = finished.fd { fd.close(); openCount -= 1 }
                continue
            }
            let parent = stack[top]
            let path = parent.path.appending(name)
            if path.bytes.count >= Walker.maximumPathLength {
                result.problems.append(Walker.tooDeep(path))
                continue
            }
            guard let parentFD = parent.fd, let fd = openDirectory(in: parentFD, name, path: path, into: &result) else { continue }
            stack.append(Frame(path: path, name: name, fd: fd, identity: try? fd.status().identity, pending: []))
            openCount += 1
            stack[stack.count - 1].pending = readDirectory(fd: fd, path: path, top: false, into: &result)
            // Keep the descriptors bounded: close the oldest open ancestor (never the subtree's own).
            if openCount > maximumOpenDirectories {
                let oldest = stack.count - maximumOpenDirectories
                if oldest >= 1, let fd = stack[oldest].fd { fd.close(); stack[oldest].fd = nil; openCount -= 1 }
            }
        }
    }

    /// Reopens the directory above `child` through `..`, or from the nearest open ancestor,
    /// and checks it is still the directory the walk entered.
    private func reopenParent(of child: Frame, stack: [Frame], result: inout WalkResult) -> FileDescriptor? {
        let target = stack[stack.count - 1]
        func matches(_ fd: FileDescriptor) -> Bool { target.identity != nil && (try? fd.status().identity) == target.identity }
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
        result.problems.append(WalkProblem(path: target.path, operation: "reopen directory", reason: "it moved or changed during the scan", vanished: true))
        return nil
    }

    /// Lists one directory, records its entries, and returns the subdirectories to visit.
    /// Each name is used where `readdir` left it: no copy of it is made but the entry's path.
    private func readDirectory(fd: FileDescriptor, path: ContainerPath, top: Bool, into result: inout WalkResult) -> [[UInt8]] {
        var subdirectories: [[UInt8]] = []
        let firstNew = result.entries.count
        var sidecars: [[UInt8]: Sidecar] = [:]
        let failure = fd.forEachName { cName, name in
            if top && skipAtTop.contains(Array(name)) { return }
            let childPath = path.appending(name)
            let st: FileStatus
            switch Result(catching: { () throws(Errno) in try fd.status(ofCString: cName) }) {
            case .success(let s): st = s
            case .failure(let e):
                result.problems.append(WalkProblem(path: childPath, operation: "stat", reason: errorText(e.code), vanished: e.code == ENOENT))
                return
            }
            if st.kind == .regular, name.count > 2, name.starts(with: AppleDouble.sidecarPrefix), st.size <= Int64(AppleDouble.maximumSize) {
                switch readSidecar(fd: fd, cName: cName, path: childPath) {
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
            var entry = WalkEntry(
                path: childPath, kind: .other, special: nil, size: st.size, allocated: st.allocated,
                mode: st.mode, modifiedSeconds: st.modifiedSeconds, modifiedNanoseconds: st.modifiedNanoseconds,
                device: st.device, inode: st.inode, linkCount: st.linkCount,
                symlinkTarget: nil, header: nil, marks: [])
            switch st.kind {
            case .regular:
                entry.kind = .file
                let wanted = headerLength(childPath, entry.size)
                if wanted > 0 { entry.header = try? fd.readFile(cString: cName, limit: wanted) }
            case .directory: entry.kind = .directory; subdirectories.append(Array(name))
            case .symlink: entry.kind = .symlink; entry.symlinkTarget = try? fd.readLink(cString: cName, size: Int(st.size))
            case .fifo: entry.special = .fifo
            case .socket: entry.special = .socket
            case .characterDevice: entry.special = .characterDevice
            case .blockDevice: entry.special = .blockDevice
            case .unknown: break
            }
            do {
                entry.marks = try AttributeMark.nativeMarks(.child(directory: fd.rawValue, name: cName, root: root, path: childPath))
            } catch let e as SystemError {
                result.problems.append(WalkProblem(path: childPath, operation: "read attributes", reason: e.reason, vanished: e.code == ENOENT))
            } catch {}
            result.entries.append(entry)
        }
        if let failure {
            result.problems.append(WalkProblem(path: path, operation: "read directory", reason: errorText(failure.code)))
        }
        if result.progress.isWatched { result.progress.countFolder(result.entries[firstNew...], path) }
        if !sidecars.isEmpty {
            if matchSidecars {
                for i in firstNew..<result.entries.count {
                    if let sidecar = sidecars.removeValue(forKey: Array(result.entries[i].path.name)) { result.entries[i].marks += sidecar.marks }
                }
            }
            for (name, sidecar) in sidecars { result.unmatchedSidecars[path.appending(name)] = sidecar }
        }
        return subdirectories
    }

    private enum SidecarRead { case notSidecar, sidecar([AttributeMark]), failed(WalkProblem) }

    private func readSidecar(fd: FileDescriptor, cName: UnsafePointer<CChar>, path: ContainerPath) -> SidecarRead {
        let bytes: [UInt8]
        switch Result(catching: { () throws(SystemError) in try fd.readFile(cString: cName, limit: AppleDouble.maximumSize) }) {
        case .success(let b): bytes = b
        case .failure(let e): return .failed(WalkProblem(path: path, operation: "read AppleDouble file", reason: e.reason))
        }
        guard AppleDouble.hasMagic(bytes) else { return .notSidecar }
        do {
            return .sidecar(AttributeMark.marks(in: try AppleDouble.parse(bytes), source: .appleDouble(sidecar: path)))
        } catch {
            return .failed(WalkProblem(path: path, operation: "parse AppleDouble file", reason: "\(error)"))
        }
    }
}
