import Foundation
#if canImport(CLibAttr)
import CLibAttr
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes the container an event leaves behind as a real directory tree, from the source
/// container or archive, which it only reads.
///
/// The tree is built in a temporary sibling of the destination and renamed into place when
/// complete: on any failure (an unreadable source file, a full disk, an interrupt) nothing is
/// left at the destination and the temporary tree is removed. Regular files keep their bytes
/// (copy_file_range, which reflinks where the file system can; holes stay holes), hard links
/// stay links, symlinks stay symlinks, FIFOs are recreated, and every entry keeps its mode,
/// modification time and extended attributes (libattr's attr_copy_fd). Attributes that came
/// from AppleDouble sidecars are written as native attributes. Sockets and devices are not
/// recreated (they are listed). An archive is read again as a stream (ArchiveMaterializer.swift).
public enum Materializer {
    public struct Report: Sendable {
        public let destination: String
        public var directories = 0, files = 0, links = 0, symlinks = 0, fifos = 0
        public var bytes: Int64 = 0
        /// Entries that cannot be recreated (sockets, devices).
        public var skipped: [ContainerPath] = []
    }

    nonisolated(unsafe) static var interrupted: sig_atomic_t = 0

    public static func write(_ simulation: SimulationResult, into destination: String) throws -> Report {
        let dest = destination.count > 1 && destination.hasSuffix("/") ? String(destination.dropLast()) : destination
        let input = simulation.inventory.container.input
        let fromArchive = ArchiveWalk.isArchive(input) && Container.fileExists(input)
        try checkDestination(dest)
        // Signals are caught before the temporary tree exists, so that none can leave it behind.
        interrupted = 0
        let previousInt = signal(SIGINT) { _ in Materializer.interrupted = 1 }
        let previousTerm = signal(SIGTERM) { _ in Materializer.interrupted = 1 }
        defer { signal(SIGINT, previousInt); signal(SIGTERM, previousTerm) }
        // Split by hand: NSString's path methods trap on a one-character name on Linux.
        let slash = dest.lastIndex(of: "/")
        let parent = slash.map { $0 == dest.startIndex ? "/" : String(dest[..<$0]) } ?? "."
        let name = slash.map { String(dest[dest.index(after: $0)...]) } ?? dest
        var template = Array((parent + "/." + name + ".sandbox-audit-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SystemError(operation: "create a temporary folder beside", path: dest)
        }
        let temporary = String(cString: made)
        do {
            var report = fromArchive ? try buildFromArchive(simulation, temporary: temporary)
                                     : try build(simulation, source: simulation.inventory.container.dataRoot, temporary: temporary)
            guard interrupted == 0 else { throw InputError("interrupted") }
            // rename(2) replaces an empty directory in one step.
            guard rename(temporary, dest) == 0 else { throw SystemError(operation: "rename the finished tree to", path: dest) }
            report = Report(destination: dest, directories: report.directories, files: report.files, links: report.links,
                            symlinks: report.symlinks, fifos: report.fifos, bytes: report.bytes, skipped: report.skipped)
            return report
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            if let e = error as? InputError { throw InputError("nothing written to \(dest): \(e.message)") }
            throw InputError("nothing written to \(dest): \(error)")
        }
    }

    /// The destination must not exist, or be an empty folder.
    static func checkDestination(_ dest: String) throws {
        var st = stat()
        guard lstat(dest, &st) == 0 else {
            guard errno == ENOENT else { throw SystemError(operation: "check", path: dest) }
            return
        }
        guard Container.isDirectory(dest) else { throw InputError("\(dest) exists and is not a folder; refusing to overwrite it") }
        let fd = Walker.openDirectory(at: AT_FDCWD, Array(dest.utf8))
        guard fd >= 0 else { throw SystemError(operation: "read", path: dest) }
        defer { close(fd) }
        guard try Walker.listNames(fd).isEmpty else { throw InputError("\(dest) is not empty; refusing to write into it") }
    }

    /// Opens folders relative to a root: the whole relative path when it is short, one
    /// component at a time when it is longer than the system takes.
    struct Opener {
        let rootFD: Int32
        func open(_ path: ContainerPath) -> Int32 {
            if path.isRoot { return dup(rootFD) }
            if path.bytes.count < 3_000 { return Walker.openDirectory(at: rootFD, path.bytes) }
            var fd = dup(rootFD)
            for c in path.leadingComponents(Int.max) where fd >= 0 {
                let next = Walker.openDirectory(at: fd, Array(c))
                close(fd)
                fd = next
            }
            return fd
        }
    }

    /// The folder last opened, kept open across siblings (entries come in path order).
    struct Parents {
        let opener: Opener
        /// "source" or "new": which tree, for the error message.
        let role: String
        private var path: ContainerPath?
        private var fd: Int32 = -1

        init(opener: Opener, role: String) {
            self.opener = opener
            self.role = role
        }

        mutating func open(_ p: ContainerPath) throws -> Int32 {
            if p == path { return fd }
            release()
            fd = opener.open(p)
            guard fd >= 0 else { throw SystemError(operation: "open the \(role) folder", path: p.display) }
            path = p
            return fd
        }

        mutating func release() {
            if fd >= 0 { close(fd) }
            fd = -1
            path = nil
        }
    }

    static func build(_ simulation: SimulationResult, source: String, temporary: String) throws -> Report {
        var report = Report(destination: temporary)
        let srcRoot = Walker.openDirectory(at: AT_FDCWD, Array(source.utf8))
        guard srcRoot >= 0 else { throw SystemError(operation: "open", path: source) }
        defer { close(srcRoot) }
        let dstRoot = Walker.openDirectory(at: AT_FDCWD, Array(temporary.utf8))
        guard dstRoot >= 0 else { throw SystemError(operation: "open", path: temporary) }
        defer { close(dstRoot) }
        let src = Opener(rootFD: srcRoot), dst = Opener(rootFD: dstRoot)

        // The data root's own mode, time and attributes.
        try copyAttributes(srcRoot, dstRoot, path: .root, marks: simulation.inventory.rootMarks, source: source)

        var srcParents = Parents(opener: src, role: "source"), dstParents = Parents(opener: dst, role: "new")
        defer { srcParents.release(); dstParents.release() }
        var firstLink: [HardLinkKey: ContainerPath] = [:]
        var directories: [WalkEntry] = []

        for (e, keep) in zip(simulation.inventory.entries, simulation.kept) where keep {
            guard interrupted == 0 else { throw InputError("interrupted") }
            let w = e.entry
            // Parents sort before their children, so the parent exists by now; siblings come
            // together, so the parent folders stay open across them.
            let parent = w.path.parent ?? .root
            let srcParent = try srcParents.open(parent), dstParent = try dstParents.open(parent)
            switch w.kind {
            case .directory:
                guard at(w.path.name, { mkdirat(dstParent, $0, 0o700) }) == 0 else { throw SystemError(operation: "create folder", path: w.path.display) }
                let s = Walker.openDirectory(at: srcParent, Array(w.path.name)), d = Walker.openDirectory(at: dstParent, Array(w.path.name))
                defer { if s >= 0 { close(s) }; if d >= 0 { close(d) } }
                guard s >= 0, d >= 0 else { throw SystemError(operation: "open folder", path: w.path.display) }
                try copyAttributes(s, d, path: w.path, marks: w.marks, source: source)
                directories.append(w) // mode and time once its contents are in
                report.directories += 1
            case .file:
                let key = HardLinkKey(device: w.device, inode: w.inode)
                if w.linkCount > 1, let first = firstLink[key] {
                    try makeLink(w, to: first, root: dstRoot, in: dstParent)
                    report.links += 1
                    continue
                }
                try copyFile(w, srcParent: srcParent, dstParent: dstParent, source: source)
                if w.linkCount > 1 { firstLink[key] = w.path }
                report.files += 1
                report.bytes += w.size
            case .symlink:
                try makeSymlink(w, in: dstParent)
                report.symlinks += 1
            case .other:
                guard w.special == .fifo else { report.skipped.append(w.path); continue }
                try makeFIFO(w, in: dstParent)
                report.fifos += 1
            }
        }
        // Folders last, deepest first: adding their contents changed their times. The data
        // root (made by mkdtemp, mode 0700) takes the source root's mode and time.
        var rootStat = stat()
        if fstat(srcRoot, &rootStat) == 0 {
            #if canImport(Darwin)
            var times = [timespec(tv_sec: 0, tv_nsec: Int((1 << 30) - 1)), rootStat.st_mtimespec]
            #else
            var times = [timespec(tv_sec: 0, tv_nsec: Int((1 << 30) - 1)), rootStat.st_mtim]
            #endif
            fchmod(dstRoot, rootStat.st_mode & 0o7777)
            futimens(dstRoot, &times) // all of the root's entries exist by now
        }
        try finishDirectories(directories, in: dst)
        return report
    }

    /// Sets the folders' modes and times, deepest first (adding their contents changed their
    /// times); `attributes` runs on each folder first.
    static func finishDirectories(_ directories: [WalkEntry], in dst: Opener, attributes: (Int32, WalkEntry) throws -> Void = { _, _ in }) throws {
        for w in directories.reversed() {
            let fd = dst.open(w.path)
            guard fd >= 0 else { throw SystemError(operation: "open folder", path: w.path.display) }
            defer { close(fd) }
            try attributes(fd, w)
            var times = timesOf(w)
            fchmod(fd, mode_t(w.mode & 0o7777))
            futimens(fd, &times)
        }
    }

    /// Calls `body` with `name` as a C string.
    static func at<R>(_ name: some Collection<UInt8>, _ body: (UnsafePointer<CChar>) -> R) -> R {
        Walker.withCString(Array(name), body)
    }

    /// A hard link at `w`'s name in `parent` to `first` (relative to `root`).
    static func makeLink(_ w: WalkEntry, to first: ContainerPath, root: Int32, in parent: Int32) throws {
        let rc = at(first.bytes) { fp in at(w.path.name) { linkat(root, fp, parent, $0, 0) } }
        guard rc == 0 else { throw SystemError(operation: "link", path: w.path.display) }
    }

    static func makeSymlink(_ w: WalkEntry, in parent: Int32) throws {
        guard let target = w.symlinkTarget else { throw SystemError(code: EIO, operation: "read link", path: w.path.display) }
        guard at(target, { tp in at(w.path.name) { symlinkat(tp, parent, $0) } }) == 0 else {
            throw SystemError(operation: "create symlink", path: w.path.display)
        }
        var times = timesOf(w)
        _ = at(w.path.name) { utimensat(parent, $0, &times, AT_SYMLINK_NOFOLLOW) }
    }

    static func makeFIFO(_ w: WalkEntry, in parent: Int32) throws {
        guard at(w.path.name, { mkfifoat(parent, $0, mode_t(w.mode & 0o7777)) }) == 0 else {
            throw SystemError(operation: "create FIFO", path: w.path.display)
        }
        var times = timesOf(w)
        _ = at(w.path.name) { utimensat(parent, $0, &times, AT_SYMLINK_NOFOLLOW) }
    }

    /// A new regular file at `name` in `parent`, for writing.
    static func createFile(_ name: some Collection<UInt8>, in parent: Int32) -> Int32 {
        at(name) { openat(parent, $0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
    }

    static func timesOf(_ w: WalkEntry) -> [timespec] { times(w.modifiedSeconds, w.modifiedNanoseconds) }

    static func times(_ seconds: Int64, _ nanoseconds: Int32) -> [timespec] {
        // Access time: now (the scan does not record it); modification time: the source's.
        [timespec(tv_sec: 0, tv_nsec: Int((1 << 30) - 1)), // UTIME_NOW
         timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
    }

    /// Native attributes through libattr; marks that came from sidecars, written natively.
    static func copyAttributes(_ s: Int32, _ d: Int32, path: ContainerPath, marks: [AttributeMark], source: String) throws {
        try XAttr.copyAll(from: s, sourcePath: source + "/" + path.display, to: d, destinationPath: path.display)
        try writeMarks(d, marks, path: path, native: false)
    }

    /// Backup marks as native attributes; those found natively only when `native` is set.
    static func writeMarks(_ d: Int32, _ marks: [AttributeMark], path: ContainerPath, native: Bool) throws {
        for m in marks {
            if !native, case .native = m.source { continue }
            try XAttr.set(descriptor: d, name: m.attribute.nativeName, value: m.value, path: path.display)
        }
    }

    static func copyFile(_ w: WalkEntry, srcParent: Int32, dstParent: Int32, source: String) throws {
        let s = Walker.openForReading(at: srcParent, Array(w.path.name))
        guard s >= 0 else { throw SystemError(operation: "read", path: "\(source)/\(w.path.display)") }
        defer { close(s) }
        let d = createFile(w.path.name, in: dstParent)
        guard d >= 0 else { throw SystemError(operation: "create", path: w.path.display) }
        defer { close(d) }
        try copyData(from: s, to: d, size: w.size, path: w.path)
        try copyAttributes(s, d, path: w.path, marks: w.marks, source: source)
        fchmod(d, mode_t(w.mode & 0o7777))
        var times = timesOf(w)
        futimens(d, &times)
    }

    /// Copies the data segments only, so holes stay holes; copy_file_range lets the kernel (and
    /// a reflinking file system) do the work, with read/write where it cannot.
    static func copyData(from s: Int32, to d: Int32, size: Int64, path: ContainerPath) throws {
        var offset: Int64 = 0
        while offset < size {
            guard interrupted == 0 else { throw InputError("interrupted") }
            var data = lseek(s, off_t(offset), seekData)
            if data < 0 {
                if errno == ENXIO { break } // only a hole is left
                data = off_t(offset)        // no SEEK_DATA support: copy everything
            }
            var hole = lseek(s, data, seekHole)
            if hole < 0 { hole = off_t(size) }
            try copyRange(s, d, from: Int64(data), count: Int64(hole) - Int64(data), path: path)
            offset = Int64(hole)
        }
        guard ftruncate(d, off_t(size)) == 0 else { throw SystemError(operation: "write", path: path.display) }
    }

    #if canImport(CLibAttr)
    static let seekData = SANDBOX_AUDIT_SEEK_DATA, seekHole = SANDBOX_AUDIT_SEEK_HOLE
    #else
    static let seekData = SEEK_DATA, seekHole = SEEK_HOLE
    #endif

    static func copyRange(_ s: Int32, _ d: Int32, from start: Int64, count: Int64, path: ContainerPath) throws {
        var inOff = off_t(start), outOff = off_t(start)
        var left = count
        while left > 0 {
            #if canImport(CLibAttr)
            let n = sandbox_audit_copy_file_range(s, &inOff, d, &outOff, Int(min(left, 1 << 30)))
            #else
            let n = -1; errno = ENOSYS
            #endif
            if n > 0 { left -= Int64(n); continue }
            if n == 0 { break } // the source is shorter than the scan saw
            let e = errno
            if e == EINTR { continue }
            guard e == EXDEV || e == ENOSYS || e == EINVAL || e == EOPNOTSUPP else {
                throw SystemError(code: e, operation: "copy", path: path.display)
            }
            // Plain read and write where copy_file_range cannot work.
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while left > 0 {
                let r = buffer.withUnsafeMutableBytes { pread(s, $0.baseAddress, Int(min(left, Int64($0.count))), inOff) }
                if r < 0 { if errno == EINTR { continue }; throw SystemError(operation: "read", path: path.display) }
                if r == 0 { return }
                let w = buffer.withUnsafeBytes { pwrite(d, $0.baseAddress, r, outOff) }
                guard w == r else { throw SystemError(operation: "write", path: path.display) }
                inOff += off_t(r); outOff += off_t(r); left -= Int64(r)
            }
        }
    }
}
