import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
public struct Walker {
    public var root: String
    /// Names skipped at the top level (the `__MACOSX` mirror, read separately).
    public var skipAtTop: Set<[UInt8]> = []
    /// Whether a `._NAME` sidecar gives its attributes to NAME beside it. A `__MACOSX` mirror
    /// is walked with false: there every sidecar describes the item at the same path in the
    /// data root, even where the mirror has a folder of that name too (as Finder and `ditto`
    /// zips do for every folder holding a file with a sidecar), so all land in
    /// `unmatchedSidecars`.
    public var matchSidecars = true
    /// How many leading bytes to record of a regular file (0: none), given its path and size:
    /// the content rules' file signatures, read while the folder is open anyway.
    public var headerLength: @Sendable (ContainerPath, Int64) -> Int = { _, _ in 0 }
    public var maximumOpenDirectories = 64

    public init(root: String) { self.root = root }

    #if os(Linux)
    private static let noATime: Int32 = 0o1000000 // O_NOATIME; not exported to Swift by Glibc
    #else
    private static let noATime: Int32 = 0
    #endif

    private struct Frame {
        var path: ContainerPath
        var name: [UInt8]
        var fd: Int32
        var device: UInt64
        var inode: UInt64
        var pending: [[UInt8]]
    }

    public func walk() throws -> WalkResult {
        var result = WalkResult()
        let rootFD = Walker.openDirectory(at: AT_FDCWD, Array(root.utf8))
        guard rootFD >= 0 else { throw SystemError(operation: "open directory", path: root) }
        defer { close(rootFD) }
        var st = stat()
        guard fstat(rootFD, &st) == 0 else { throw SystemError(operation: "stat", path: root) }
        do {
            result.rootMarks = try readMarks(.descriptor(rootFD))
        } catch let e as SystemError {
            result.problems.append(WalkProblem(path: .root, operation: "read attributes", reason: e.reason))
        }

        // The root and the folders just below it are listed here; every folder below those is
        // the root of a subtree that a worker walks on its own.
        var tasks: [(parent: [UInt8], name: [UInt8])] = []
        for name in readDirectory(fd: rootFD, path: .root, top: true, into: &result) {
            let fd = Walker.openDirectory(at: rootFD, name)
            let path = ContainerPath.root.appending(name)
            guard fd >= 0 else {
                let e = errno
                result.problems.append(WalkProblem(path: path, operation: "open directory", reason: String(cString: strerror(e)), vanished: e == ENOENT))
                continue
            }
            tasks += readDirectory(fd: fd, path: path, top: false, into: &result).map { (name, $0) }
            close(fd)
        }

        // Two workers (the cores this tool may assume) take subtrees in turn.
        let workers = max(1, min(tasks.count, ProcessInfo.processInfo.activeProcessorCount, Walker.maximumWorkers))
        let shared = WorkerSlots(count: workers, initial: WalkResult())
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var local = WalkResult()
            while let i = shared.nextTask(below: tasks.count) {
                let (parent, name) = tasks[i]
                let path = ContainerPath(bytes: parent).appending(name)
                let parentFD = Walker.openDirectory(at: rootFD, parent)
                let fd = parentFD >= 0 ? Walker.openDirectory(at: parentFD, name) : -1
                let e = errno
                if parentFD >= 0 { close(parentFD) }
                guard fd >= 0 else {
                    local.problems.append(WalkProblem(path: path, operation: "open directory", reason: String(cString: strerror(e)), vanished: e == ENOENT))
                    continue
                }
                walkSubtree(fd: fd, path: path, into: &local)
            }
            local.progress.flush(folder: "")
            shared.store(local, at: worker)
        }
        for part in shared.results {
            result.entries += part.entries
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
    public static let maximumPathLength = 32 * 1024

    static func tooDeep(_ path: ContainerPath) -> WalkProblem {
        WalkProblem(path: path, operation: "list directory",
                    reason: "its path is \(path.bytes.count) bytes, over the \(maximumPathLength)-byte limit: its contents are not listed")
    }

    /// Walks the subtree of the open directory `fd` (which it closes), depth first, with a
    /// bounded number of open descriptors.
    private func walkSubtree(fd subtreeFD: Int32, path subtreePath: ContainerPath, into result: inout WalkResult) {
        var st = stat()
        fstat(subtreeFD, &st)
        var stack = [Frame(path: subtreePath, name: Array(subtreePath.name), fd: subtreeFD, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), pending: [])]
        stack[0].pending = readDirectory(fd: subtreeFD, path: subtreePath, top: false, into: &result)
        var openCount = 1

        while !stack.isEmpty {
            let top = stack.count - 1
            guard let name = stack[top].pending.popLast() else {
                let finished = stack.removeLast()
                if !stack.isEmpty, stack[stack.count - 1].fd < 0, !stack[stack.count - 1].pending.isEmpty {
                    stack[stack.count - 1].fd = reopenParent(of: finished, stack: stack, result: &result)
                    if stack[stack.count - 1].fd >= 0 { openCount += 1 } else { stack[stack.count - 1].pending = [] }
                }
                if finished.fd >= 0 { close(finished.fd); openCount -= 1 }
                continue
            }
            let parent = stack[top]
            let path = parent.path.appending(name)
            if path.bytes.count >= Walker.maximumPathLength {
                result.problems.append(Walker.tooDeep(path))
                continue
            }
            let fd = Walker.openDirectory(at: parent.fd, name)
            if fd < 0 {
                let e = errno
                result.problems.append(WalkProblem(path: path, operation: "open directory", reason: String(cString: strerror(e)), vanished: e == ENOENT))
                continue
            }
            var cst = stat()
            fstat(fd, &cst)
            stack.append(Frame(path: path, name: name, fd: fd, device: UInt64(cst.st_dev), inode: UInt64(cst.st_ino), pending: []))
            openCount += 1
            stack[stack.count - 1].pending = readDirectory(fd: fd, path: path, top: false, into: &result)
            // Keep the descriptors bounded: close the oldest open ancestor (never the subtree's own).
            if openCount > maximumOpenDirectories {
                let oldest = stack.count - maximumOpenDirectories
                if oldest >= 1, stack[oldest].fd >= 0 { close(stack[oldest].fd); stack[oldest].fd = -1; openCount -= 1 }
            }
        }
    }

    /// Reopens the directory above `child` through `..`, or from the nearest open ancestor,
    /// and checks it is still the directory the walk entered.
    private func reopenParent(of child: Frame, stack: [Frame], result: inout WalkResult) -> Int32 {
        let target = stack[stack.count - 1]
        func matches(_ fd: Int32) -> Bool {
            var st = stat()
            return fstat(fd, &st) == 0 && UInt64(st.st_dev) == target.device && UInt64(st.st_ino) == target.inode
        }
        if child.fd >= 0 {
            let fd = Walker.openDirectory(at: child.fd, Array("..".utf8))
            if fd >= 0 { if matches(fd) { return fd }; close(fd) }
        }
        // Descend again from the nearest ancestor that is still open.
        guard var index = stack.lastIndex(where: { $0.fd >= 0 }) else { return -1 }
        var fd = dup(stack[index].fd)
        while index < stack.count - 1, fd >= 0 {
            index += 1
            let next = Walker.openDirectory(at: fd, stack[index].name)
            close(fd)
            fd = next
        }
        if fd >= 0, matches(fd) { return fd }
        if fd >= 0 { close(fd) }
        result.problems.append(WalkProblem(path: target.path, operation: "reopen directory", reason: "it moved or changed during the scan", vanished: true))
        return -1
    }

    static func openDirectory(at dirFD: Int32, _ name: [UInt8]) -> Int32 {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        var fd = (name + [0]).withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { openat(dirFD, $0, flags | noATime) }
        }
        if fd < 0 && errno == EPERM && noATime != 0 {
            // O_NOATIME needs ownership or CAP_FOWNER; without it, open normally.
            fd = (name + [0]).withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { openat(dirFD, $0, flags) }
            }
        }
        return fd
    }

    /// Lists one directory, records its entries, and returns the subdirectories to visit.
    /// Each name is used where `readdir` left it: no copy of it is made but the entry's path.
    private func readDirectory(fd: Int32, path: ContainerPath, top: Bool, into result: inout WalkResult) -> [[UInt8]] {
        var subdirectories: [[UInt8]] = []
        let firstNew = result.entries.count
        var sidecars: [[UInt8]: Sidecar] = [:]
        let failure = Walker.forEachName(in: fd) { cName, name in
            if top && skipAtTop.contains(Array(name)) { return }
            let childPath = path.appending(name)
            var st = stat()
            if fstatat(fd, cName, &st, AT_SYMLINK_NOFOLLOW) != 0 {
                let e = errno
                result.problems.append(WalkProblem(path: childPath, operation: "stat", reason: String(cString: strerror(e)), vanished: e == ENOENT))
                return
            }
            let format = UInt32(st.st_mode) & UInt32(S_IFMT)
            if format == UInt32(S_IFREG), name.count > 2, name.starts(with: AppleDouble.sidecarPrefix),
               Int(st.st_size) <= AppleDouble.maximumSize {
                switch readSidecar(fd: fd, cName: cName, path: childPath) {
                case .notSidecar: break
                case .sidecar(let marks):
                    result.sidecarCount += 1
                    sidecars[Array(name.dropFirst(2))] = Sidecar(marks: marks, size: Int64(st.st_size))
                    return
                case .failed(let problem):
                    result.sidecarCount += 1
                    result.problems.append(problem)
                    return
                }
            }
            var entry = WalkEntry(
                path: childPath, kind: .other, special: nil, size: Int64(st.st_size), allocated: Int64(st.st_blocks) * 512,
                mode: UInt32(st.st_mode), modifiedSeconds: 0, modifiedNanoseconds: 0,
                device: UInt64(st.st_dev), inode: UInt64(st.st_ino), linkCount: UInt64(st.st_nlink),
                symlinkTarget: nil, header: nil, marks: [])
            #if canImport(Darwin)
            entry.modifiedSeconds = Int64(st.st_mtimespec.tv_sec)
            entry.modifiedNanoseconds = Int32(st.st_mtimespec.tv_nsec)
            #else
            entry.modifiedSeconds = Int64(st.st_mtim.tv_sec)
            entry.modifiedNanoseconds = Int32(st.st_mtim.tv_nsec)
            #endif
            switch format {
            case UInt32(S_IFREG):
                entry.kind = .file
                let wanted = headerLength(childPath, entry.size)
                if wanted > 0 { entry.header = try? Walker.readFile(at: fd, cName, limit: wanted) }
            case UInt32(S_IFDIR): entry.kind = .directory; subdirectories.append(Array(name))
            case UInt32(S_IFLNK): entry.kind = .symlink; entry.symlinkTarget = Walker.readLink(fd: fd, cName: cName, size: Int(st.st_size))
            case UInt32(S_IFIFO): entry.special = .fifo
            case UInt32(S_IFSOCK): entry.special = .socket
            case UInt32(S_IFCHR): entry.special = .characterDevice
            case UInt32(S_IFBLK): entry.special = .blockDevice
            default: break
            }
            do {
                entry.marks = try readMarks(.child(directory: fd, name: cName, root: root, path: childPath))
            } catch let e as SystemError {
                result.problems.append(WalkProblem(path: childPath, operation: "read attributes", reason: e.reason, vanished: e.code == ENOENT))
            } catch {}
            result.entries.append(entry)
        }
        if let failure {
            result.problems.append(WalkProblem(path: path, operation: "read directory", reason: failure.reason))
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

    private func readMarks(_ target: XAttr.Target) throws -> [AttributeMark] {
        var marks: [AttributeMark] = []
        for name in try XAttr.names(target) {
            guard let attribute = BackupAttribute(attributeName: name) else { continue }
            let nameString = String(decoding: name, as: UTF8.self)
            if let value = try XAttr.value(target, name: nameString) {
                marks.append(AttributeMark(attribute: attribute, value: value, source: .native(name: nameString)))
            }
        }
        return marks
    }

    private enum SidecarRead { case notSidecar, sidecar([AttributeMark]), failed(WalkProblem) }

    private func readSidecar(fd: Int32, cName: UnsafePointer<CChar>, path: ContainerPath) -> SidecarRead {
        let bytes: [UInt8]
        do {
            bytes = try Walker.readFile(at: fd, cName)
        } catch let e as SystemError {
            return .failed(WalkProblem(path: path, operation: "read AppleDouble file", reason: e.reason))
        } catch { return .notSidecar }
        guard AppleDouble.hasMagic(bytes) else { return .notSidecar }
        do {
            let parsed = try AppleDouble.parse(bytes)
            return .sidecar(parsed.attributes.compactMap { attr in
                BackupAttribute(attributeName: Array(attr.name.utf8)).map {
                    AttributeMark(attribute: $0, value: attr.value, source: .appleDouble(sidecar: path))
                }
            })
        } catch {
            return .failed(WalkProblem(path: path, operation: "parse AppleDouble file", reason: "\(error)"))
        }
    }

    /// Opens a file in a directory for reading: no symlink followed, no blocking on a FIFO
    /// put there in a race, and no access-time update where the user may ask for that.
    static func openForReading(at dirFD: Int32, _ cName: UnsafePointer<CChar>) -> Int32 {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        var fd = openat(dirFD, cName, flags | noATime)
        if fd < 0 && errno == EPERM && noATime != 0 { fd = openat(dirFD, cName, flags) }
        return fd
    }

    static func openForReading(at dirFD: Int32, _ name: [UInt8]) -> Int32 {
        withCString(name) { openForReading(at: dirFD, $0) }
    }

    /// Reads up to `limit` bytes of a regular file relative to a directory (see
    /// `openForReading`); anything but a regular file is refused after opening.
    static func readFile(at dirFD: Int32, _ cName: UnsafePointer<CChar>, limit: Int = AppleDouble.maximumSize) throws -> [UInt8] {
        let fd = openForReading(at: dirFD, cName)
        guard fd >= 0 else { throw SystemError(operation: "open", path: String(cString: cName)) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFREG) else {
            throw SystemError(code: EINVAL, operation: "open", path: String(cString: cName))
        }
        // Read straight into the result, at most 64 KiB a call.
        var out = [UInt8]()
        out.reserveCapacity(min(limit, max(Int(st.st_size), 0), 1 << 20))
        while out.count < limit {
            let want = min(64 * 1024, limit - out.count)
            let before = out.count
            out.append(contentsOf: repeatElement(0, count: want))
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + before, want) }
            out.removeLast(want - max(n, 0))
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError(operation: "read", path: String(cString: cName))
            }
            if n == 0 { break }
        }
        return out
    }

    static func readFile(at dirFD: Int32, _ name: [UInt8], limit: Int = AppleDouble.maximumSize) throws -> [UInt8] {
        try withCString(name) { try readFile(at: dirFD, $0, limit: limit) }
    }

    static func readLink(fd: Int32, cName: UnsafePointer<CChar>, size: Int) -> [UInt8]? {
        var capacity = max(size + 1, 256)
        while capacity <= 1 << 20 {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let n = buffer.withUnsafeMutableBytes { readlinkat(fd, cName, $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity) }
            if n < 0 { return nil }
            if n < capacity { return Array(buffer[0..<n]) }
            capacity *= 2
        }
        return nil
    }

    /// `name` as a NUL-terminated C string for the duration of `body`.
    static func withCString<R>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try (name + [0]).withUnsafeBufferPointer { p in
            try p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { try body($0) }
        }
    }

    /// Calls `body` with each name in an open directory (not `.` and `..`), as the C string
    /// `readdir` returned and as bytes; both are valid only during the call. Returns the error
    /// that ended the listing early, if any.
    @discardableResult
    static func forEachName(in fd: Int32, _ body: (UnsafePointer<CChar>, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows -> SystemError? {
        let copy = dup(fd)
        guard copy >= 0, let dir = fdopendir(copy) else {
            let e = SystemError(operation: "read directory", path: "descriptor \(fd)")
            if copy >= 0 { close(copy) }
            return e
        }
        defer { closedir(dir) }
        while true {
            errno = 0
            guard let ent = readdir(dir) else {
                return errno == 0 ? nil : SystemError(operation: "read directory", path: "descriptor \(fd)")
            }
            let cName = UnsafeRawPointer(ent).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!).assumingMemoryBound(to: CChar.self)
            let name = UnsafeBufferPointer(start: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self), count: strlen(cName))
            if name.count <= 2, name[0] == UInt8(ascii: "."), name.count == 1 || name[1] == UInt8(ascii: ".") { continue }
            try body(cName, name)
        }
    }

    /// The names in an open directory, without `.` and `..`.
    static func listNames(_ fd: Int32) throws -> [[UInt8]] {
        var names: [[UInt8]] = []
        if let failure = forEachName(in: fd, { _, name in names.append(Array(name)) }) { throw failure }
        return names
    }
}
