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
/// The tree is built in a temporary sibling of the destination (mode 0700 until it is complete,
/// so that no other user can reach into it) and renamed into place when complete: on any failure
/// (an unreadable source file, a full disk, a signal) nothing is left at the destination and the
/// temporary tree is removed. Regular files keep their bytes (copy_file_range, which reflinks
/// where the file system can; holes stay holes), hard links stay links, symlinks stay symlinks,
/// FIFOs are recreated, and every entry keeps its mode, modification time and extended attributes
/// (libattr's attr_copy_fd). Attributes that came from AppleDouble sidecars are written as native
/// attributes. Sockets and devices are not recreated (they are listed). An archive is read again
/// as a stream (ArchiveMaterializer.swift).
///
/// Nothing is reached by a path of more than one component: every folder, in the source and in
/// the new tree, is opened from its parent's descriptor with O_NOFOLLOW, and checked against the
/// device and inode the scan (or the folder's creation) recorded, so that a folder swapped for a
/// symlink or for another folder while the copy runs is an error naming it, never followed.
public enum Materializer {
    public struct Report: Sendable {
        public let destination: String
        public var directories = 0, files = 0, links = 0, symlinks = 0, fifos = 0
        public var bytes: Int64 = 0
        /// Entries that cannot be recreated (sockets, devices).
        public var skipped: [ContainerPath] = []
    }

    /// The signal that arrived while the tree was written (0: none).
    nonisolated(unsafe) static var interrupted: sig_atomic_t = 0

    /// Signals whose default action ends the process: caught while the temporary tree exists,
    /// so that it is removed first. One the caller ignores stays ignored; the timer and limit
    /// signals are caught only where nothing else (a profiler, say) handles them. The first
    /// ones are caught over any handler: the Swift runtime's for SIGQUIT ends the process.
    static let endingSignals: [(Int32, String)] = [
        (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT"), (SIGQUIT, "SIGQUIT"), (SIGPIPE, "SIGPIPE"), (SIGTERM, "SIGTERM"),
        (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"),
        (SIGALRM, "SIGALRM"), (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"), (SIGVTALRM, "SIGVTALRM"), (SIGPROF, "SIGPROF"),
    ]
    static let caughtOverHandlers: Set<Int32> = [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2]

    /// The device and inode of an open file.
    struct FileID: Equatable {
        let device: UInt64, inode: UInt64
        init(device: UInt64, inode: UInt64) { self.device = device; self.inode = inode }
        init(_ st: stat) { device = UInt64(truncatingIfNeeded: st.st_dev); inode = UInt64(truncatingIfNeeded: st.st_ino) }
        init(_ w: WalkEntry) { device = w.device; inode = w.inode }
    }

    /// The data root's own mode and time, applied through its descriptor once the tree is at DIR.
    struct RootFinish {
        let mode: mode_t
        let times: [timespec]?
    }

    public static func write(_ simulation: SimulationResult, into destination: String) throws -> Report {
        let dest = try checkDestination(destination)
        let input = simulation.inventory.container.input
        let fromArchive = ArchiveWalk.isArchiveInput(input)
        let (parent, name) = PathText.split(dest)
        let parentFD = parent.withCString { p in retrying { openat(AT_FDCWD, p, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } }
        guard parentFD >= 0 else { throw SystemError(operation: "open", path: parent) }
        defer { close(parentFD) }
        try checkSpace(simulation, on: parentFD, dest: dest, fromArchive: fromArchive)

        raiseDescriptorLimit()
        // Signals are caught before the temporary tree exists, so that none can leave it behind.
        interrupted = 0
        let signals = SignalGuard()
        defer { signals.restore() }
        let (temporary, rootFD, rootID) = try makeTemporary(in: parentFD, for: name, dest: dest)
        defer { close(rootFD) }
        do {
            var (report, finish) = fromArchive ? try buildFromArchive(simulation, root: rootFD)
                                                : try build(simulation, source: simulation.inventory.container.dataRoot, root: rootFD)
            try checkInterrupted()
            guard entryID(parentFD, temporary) == rootID else {
                throw InputError("the temporary folder beside \(dest) was moved or replaced while it was written")
            }
            // renameat(2) replaces an empty directory in one step.
            guard retrying({ renameat(parentFD, temporary, parentFD, name) }) == 0 else {
                throw SystemError(operation: "rename the finished tree to", path: dest)
            }
            // Only now may others reach into the tree: the root's mode and time, through its
            // descriptor (a rename in the same folder changes neither).
            _ = fchmod(rootFD, finish.mode)
            if var times = finish.times { _ = futimens(rootFD, &times) }
            report = Report(destination: dest, directories: report.directories, files: report.files, links: report.links,
                            symlinks: report.symlinks, fifos: report.fifos, bytes: report.bytes, skipped: report.skipped)
            return report
        } catch {
            removeTemporary(temporary, in: parentFD, root: rootFD, id: rootID)
            if let e = error as? InputError { throw InputError("nothing written to \(dest): \(e.message)") }
            throw InputError("nothing written to \(dest): \(error)")
        }
    }

    /// Checks DIR before anything is read or written: a name (not empty, not `.` or `..`) of a
    /// folder that does not exist, or is empty. Returns it without trailing slashes.
    @discardableResult
    public static func checkDestination(_ destination: String) throws -> String {
        var dest = destination
        while dest.count > 1 && dest.hasSuffix("/") { dest.removeLast() }
        let name = PathText.split(dest).name
        guard !dest.isEmpty else { throw InputError("--into needs a folder name, not an empty string") }
        guard name != "." && name != ".." && name != "/" && !name.isEmpty else {
            throw InputError("--into \(destination): name the folder to create (not . or ..)")
        }
        var st = stat()
        guard lstat(dest, &st) == 0 else {
            guard errno == ENOENT else { throw SystemError(operation: "check", path: dest) }
            let parent = PathText.split(dest).parent
            guard Container.isDirectory(parent) else { throw InputError("\(parent) is not a folder: cannot create \(dest) in it") }
            return dest
        }
        guard Container.isDirectory(dest) else { throw InputError("\(dest) exists and is not a folder; refusing to overwrite it") }
        let fd = Walker.openDirectory(at: AT_FDCWD, Array(dest.utf8))
        guard fd >= 0 else { throw SystemError(operation: "read", path: dest) }
        defer { close(fd) }
        guard try Walker.listNames(fd).isEmpty else { throw InputError("\(dest) is not empty; refusing to write into it") }
        return dest
    }

    /// Refuses, before anything is written, an event whose kept data does not fit in the free
    /// space of DIR's file system. From a folder, a file needs its allocated bytes at most (holes
    /// stay holes); from an archive, its size. Hard links count once.
    static func checkSpace(_ simulation: SimulationResult, on parentFD: Int32, dest: String, fromArchive: Bool) throws {
        var fs = statvfs()
        guard fstatvfs(parentFD, &fs) == 0 else { return } // unknown: the copy reports a full disk itself
        let free = Int64(truncatingIfNeeded: UInt64(fs.f_bavail) &* UInt64(fs.f_frsize))
        var need: Int64 = 0
        var counted = Set<HardLinkKey>()
        for (e, keep) in zip(simulation.inventory.entries, simulation.kept) where keep && e.entry.kind == .file {
            let w = e.entry
            if w.linkCount > 1 || fromArchive, !counted.insert(HardLinkKey(device: w.device, inode: w.inode)).inserted { continue }
            need += fromArchive ? w.size : min(w.size, w.allocated)
        }
        guard need > free else { return }
        throw InputError("not enough space for \(dest): what the \(simulation.event.rawValue) keeps needs \(ByteSize.format(need)), its file system has \(ByteSize.format(free)) free; nothing written")
    }

    /// The copy holds two descriptors per level of the folder it is in: a deep tree needs more
    /// than the usual soft limit of 1024, so it is raised to the hard limit (at most 65,536).
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        #if os(Linux)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return }
        let wanted = min(limit.rlim_max, 65_536)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted
            _ = setrlimit(resource, &limit)
        }
    }

    static func checkInterrupted() throws {
        let s = interrupted
        guard s != 0 else { return }
        let name = endingSignals.first { $0.0 == s }?.1 ?? "signal \(s)"
        throw InputError("interrupted (\(name))")
    }

    /// Installs a handler that records the signal, for every signal that would end the process;
    /// `restore` puts the previous dispositions back.
    struct SignalGuard {
        private var saved: [(Int32, sigaction)] = []

        init() {
            for (s, _) in Materializer.endingSignals {
                var old = sigaction()
                guard sigaction(s, nil, &old) == 0 else { continue }
                let previous = unsafeBitCast(signal(s) { Materializer.interrupted = $0 }, to: Int.self)
                // 1: SIG_IGN, left ignored; 0: SIG_DFL.
                if previous == 1 || (previous != 0 && !Materializer.caughtOverHandlers.contains(s)) {
                    _ = sigaction(s, &old, nil)
                    continue
                }
                saved.append((s, old))
            }
        }

        func restore() {
            for (s, old) in saved {
                var o = old
                _ = sigaction(s, &o, nil)
            }
        }
    }

    /// `.NAME.sandbox-audit-XXXXXX` in the parent folder, mode 0700, opened.
    static func makeTemporary(in parentFD: Int32, for name: String, dest: String) throws -> (String, Int32, FileID) {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for _ in 0..<100 {
            let suffix = String((0..<6).map { _ in letters[Int.random(in: 0..<letters.count)] })
            let temporary = "." + name + ".sandbox-audit-" + suffix
            guard retrying({ mkdirat(parentFD, temporary, 0o700) }) == 0 else {
                if errno == EEXIST { continue }
                throw SystemError(operation: "create a temporary folder beside", path: dest)
            }
            let fd = openFolder(at: parentFD, Array(temporary.utf8), source: false)
            var st = stat()
            guard fd >= 0, fstat(fd, &st) == 0 else {
                let e = errno
                if fd >= 0 { close(fd) }
                _ = unlinkat(parentFD, temporary, AT_REMOVEDIR)
                throw SystemError(code: e, operation: "open the temporary folder beside", path: dest)
            }
            _ = fchmod(fd, 0o700) // whatever the umask made of it
            return (temporary, fd, FileID(st))
        }
        throw SystemError(code: EEXIST, operation: "create a temporary folder beside", path: dest)
    }

    /// Removes the temporary tree through its descriptor (folders made writable first), then its
    /// now empty folder, if the name still holds it.
    static func removeTemporary(_ temporary: String, in parentFD: Int32, root: Int32, id: FileID) {
        removeContents(of: root)
        if entryID(parentFD, temporary) == id { _ = unlinkat(parentFD, temporary, AT_REMOVEDIR) }
    }

    static func removeContents(of fd: Int32) {
        _ = fchmod(fd, 0o700)
        guard let names = try? Walker.listNames(fd) else { return }
        for n in names {
            var st = stat()
            guard at(n, { fstatat(fd, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 else { continue }
            if st.st_mode & S_IFMT == S_IFDIR {
                let child = openFolder(at: fd, n, source: false)
                if child >= 0 {
                    removeContents(of: child)
                    close(child)
                }
                _ = at(n) { unlinkat(fd, $0, AT_REMOVEDIR) }
            } else {
                _ = at(n) { unlinkat(fd, $0, 0) }
            }
        }
    }

    /// The device and inode of `name` in `dirFD` (not followed), or nil.
    static func entryID(_ dirFD: Int32, _ name: String) -> FileID? {
        var st = stat()
        return fstatat(dirFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? FileID(st) : nil
    }

    static func descriptorID(_ fd: Int32) -> FileID? {
        var st = stat()
        return fstat(fd, &st) == 0 ? FileID(st) : nil
    }

    /// Retries a system call interrupted by a signal (the handlers above do not restart calls
    /// on every system).
    static func retrying(_ call: () -> Int32) -> Int32 {
        while true {
            let rc = call()
            if rc < 0 && errno == EINTR { continue }
            return rc
        }
    }

    #if os(Linux)
    static let noATime: Int32 = 0o1000000 // O_NOATIME; not exported to Swift by Glibc
    #else
    static let noATime: Int32 = 0
    #endif

    /// Opens the folder `name` (one component) in `dirFD`: never through a symlink. Source
    /// folders are opened without updating their access time where the system allows it.
    static func openFolder(at dirFD: Int32, _ name: some Collection<UInt8>, source: Bool) -> Int32 {
        open(at: dirFD, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, source: source)
    }

    static func open(at dirFD: Int32, _ name: some Collection<UInt8>, _ flags: Int32, source: Bool) -> Int32 {
        at(name) { cName in
            var fd: Int32 = -1
            if source && noATime != 0 {
                fd = retrying { openat(dirFD, cName, flags | noATime) }
                // O_NOATIME needs ownership or CAP_FOWNER; without it, open normally.
                guard fd < 0 && errno == EPERM else { return fd }
            }
            return retrying { openat(dirFD, cName, flags) }
        }
    }

    /// The error for a source entry that is no longer what the scan saw.
    static func changed(_ source: String, _ path: ContainerPath) -> InputError {
        InputError("\(source)/\(path.display) changed while it was copied: it is not what was scanned")
    }

    /// Opens the source folder `w` (in its parent's descriptor) and checks it is the one scanned.
    static func openSourceFolder(_ w: WalkEntry, in parent: Int32, source: String) throws -> Int32 {
        try openChecked(w.path, in: parent, expect: FileID(w), kind: S_IFDIR, source: source)
    }

    /// Opens `path`'s last component in `parent` without following a symlink, and checks its
    /// type, device and inode; a source entry that differs is `changed`.
    static func openChecked(_ path: ContainerPath, in parent: Int32, expect: FileID, kind: mode_t, source: String) throws -> Int32 {
        let flags = kind == S_IFDIR ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        let fd = open(at: parent, path.name, flags, source: true)
        guard fd >= 0 else {
            let e = errno
            if [ELOOP, ENOTDIR, ENOENT, ENXIO].contains(e) { throw changed(source, path) }
            throw SystemError(code: e, operation: kind == S_IFDIR ? "open folder" : "read", path: "\(source)/\(path.display)")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == kind, FileID(st) == expect else {
            close(fd)
            throw changed(source, path)
        }
        return fd
    }

    /// Opens a folder of the new tree from its root, one component at a time, each checked
    /// against the device and inode recorded when it was created.
    static func reopenNew(_ path: ContainerPath, root: Int32, ids: (ContainerPath) -> FileID?) throws -> Int32 {
        var fd = dup(root)
        guard fd >= 0 else { throw SystemError(operation: "open the new folder", path: path.display) }
        var current = ContainerPath.root
        for c in path.components {
            current = current.appending(c)
            let next: Int32
            do { next = try openNew(current, in: fd, expect: ids(current)) } catch { close(fd); throw error }
            close(fd)
            fd = next
        }
        return fd
    }

    /// Opens the new folder `path` in its parent's descriptor and checks it is the one created.
    static func openNew(_ path: ContainerPath, in parent: Int32, expect: FileID?) throws -> Int32 {
        let fd = openFolder(at: parent, path.name, source: false)
        guard fd >= 0 else { throw SystemError(operation: "open the new folder", path: path.display) }
        guard let expect, descriptorID(fd) == expect else {
            close(fd)
            throw InputError("the new folder \(path.display) was replaced while the tree was written")
        }
        return fd
    }

    /// Creates the folder `w` in `parent` (mode 0700 until it is finished) and opens it.
    static func makeFolder(_ w: WalkEntry, in parent: Int32) throws -> (Int32, FileID) {
        guard at(w.path.name, { n in retrying { mkdirat(parent, n, 0o700) } }) == 0 else { throw SystemError(operation: "create folder", path: w.path.display) }
        let fd = openFolder(at: parent, w.path.name, source: false)
        guard fd >= 0, let id = descriptorID(fd) else {
            let e = errno
            if fd >= 0 { close(fd) }
            throw SystemError(code: e, operation: "open the new folder", path: w.path.display)
        }
        return (fd, id)
    }

    /// A folder's final mode and time, through its descriptor, once its contents are in.
    static func finishFolder(_ fd: Int32, _ w: WalkEntry) {
        var times = timesOf(w)
        _ = fchmod(fd, mode_t(w.mode & 0o7777))
        _ = futimens(fd, &times)
    }

    /// Folders of the new tree, reached from its root one component at a time, each checked
    /// against the device and inode recorded when it was made; the folders on the way to the
    /// last one asked for stay open.
    struct NewFolders {
        let root: Int32
        var ids: [ContainerPath: FileID] = [:]
        private var chain: [(path: ContainerPath, fd: Int32)] = []

        init(root: Int32) { self.root = root }

        mutating func open(_ path: ContainerPath) throws -> Int32 {
            while let last = chain.last, !path.isWithin(last.path) {
                close(last.fd)
                chain.removeLast()
            }
            var here = chain.last ?? (ContainerPath.root, root)
            for c in path.components.dropFirst(here.path.depth) {
                let p = here.path.appending(c)
                let fd = try Materializer.openNew(p, in: here.fd, expect: ids[p])
                chain.append((p, fd))
                here = (p, fd)
            }
            return here.fd
        }

        mutating func release() {
            for l in chain { close(l.fd) }
            chain = []
        }
    }

    /// One open folder on the way down from the data root, in the source and in the new tree.
    struct Level {
        let path: ContainerPath
        let src: Int32, dst: Int32
        let entry: WalkEntry?
    }

    static func build(_ simulation: SimulationResult, source: String, root dstRoot: Int32) throws -> (Report, RootFinish) {
        var report = Report(destination: "")
        let srcRoot = openFolder(at: AT_FDCWD, Array(source.utf8), source: true)
        guard srcRoot >= 0 else { throw SystemError(operation: "open", path: source) }
        defer { close(srcRoot) }
        var rootStat = stat()
        guard fstat(srcRoot, &rootStat) == 0 else { throw SystemError(operation: "read", path: source) }

        // The data root's own attributes (its mode and time come last, in `write`).
        try copyAttributes(srcRoot, dstRoot, path: .root, marks: simulation.inventory.rootMarks, source: source)

        // The folders that receive kept entries: they are finished (mode, time) when left, the
        // others as soon as they are made. Folders stay writable while they are filled.
        var filled = Set<ContainerPath>()
        var lastParent: ContainerPath?
        for (e, keep) in zip(simulation.inventory.entries, simulation.kept) where keep {
            if let last = lastParent, e.entry.path.isChild(of: last) { continue }
            let p = e.entry.path.parent ?? .root
            filled.insert(p)
            lastParent = p
        }

        // Entries come in path order, so the entries below a folder come together: the folders on
        // the way down stay open while they do, and each is finished when it is left, its whole
        // subtree written.
        var levels = [Level(path: .root, src: srcRoot, dst: dstRoot, entry: nil)]
        var ids: [ContainerPath: (src: FileID, dst: FileID, entry: WalkEntry)] = [:]
        defer { for l in levels.dropFirst() { close(l.src); close(l.dst) } }
        func leave() {
            let l = levels.removeLast()
            if let w = l.entry { finishFolder(l.dst, w) }
            close(l.src)
            close(l.dst)
        }
        func enter(_ parent: ContainerPath) throws {
            while !parent.isWithin(levels[levels.count - 1].path) { leave() }
            let top = levels[levels.count - 1]
            for c in parent.components.dropFirst(top.path.depth) {
                let here = levels[levels.count - 1]
                let path = here.path.appending(c)
                guard let id = ids[path] else { throw SystemError(code: ENOENT, operation: "open the new folder", path: path.display) }
                let s = try openChecked(path, in: here.src, expect: id.src, kind: S_IFDIR, source: source)
                let d: Int32
                do { d = try openNew(path, in: here.dst, expect: id.dst) } catch { close(s); throw error }
                levels.append(Level(path: path, src: s, dst: d, entry: id.entry))
            }
        }

        var firstLink: [HardLinkKey: (path: ContainerPath, id: FileID)] = [:]
        for (e, keep) in zip(simulation.inventory.entries, simulation.kept) where keep {
            try checkInterrupted()
            let w = e.entry
            if !w.path.isChild(of: levels[levels.count - 1].path) { try enter(w.path.parent ?? .root) }
            let srcParent = levels[levels.count - 1].src, dstParent = levels[levels.count - 1].dst
            switch w.kind {
            case .directory:
                let s = try openSourceFolder(w, in: srcParent, source: source)
                defer { close(s) }
                let (d, id) = try makeFolder(w, in: dstParent)
                defer { close(d) }
                try copyAttributes(s, d, path: w.path, marks: w.marks, source: source)
                if filled.contains(w.path) {
                    ids[w.path] = (FileID(w), id, w)
                } else {
                    finishFolder(d, w)
                }
                report.directories += 1
            case .file:
                let key = HardLinkKey(device: w.device, inode: w.inode)
                if w.linkCount > 1, let first = firstLink[key] {
                    let firstParent = first.path.parent ?? .root
                    let fd = w.path.isChild(of: firstParent) ? dup(dstParent)
                        : try reopenNew(firstParent, root: dstRoot, ids: { ids[$0]?.dst })
                    defer { close(fd) }
                    try makeLink(w, to: first.path.name, in: fd, expect: first.id, into: dstParent)
                    report.links += 1
                    continue
                }
                let id = try copyFile(w, srcParent: srcParent, dstParent: dstParent, source: source)
                if w.linkCount > 1 { firstLink[key] = (w.path, id) }
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
        while levels.count > 1 { leave() }
        #if canImport(Darwin)
        let mtime = rootStat.st_mtimespec
        #else
        let mtime = rootStat.st_mtim
        #endif
        return (report, RootFinish(mode: rootStat.st_mode & 0o7777, times: [timespec(tv_sec: 0, tv_nsec: Int((1 << 30) - 1)), mtime]))
    }

    /// Calls `body` with `name` as a C string.
    static func at<R>(_ name: some Collection<UInt8>, _ body: (UnsafePointer<CChar>) -> R) -> R {
        Walker.withCString(Array(name), body)
    }

    /// A hard link at `w`'s name in `parent` to `firstName` in the folder `firstParent`, checked
    /// to be the file first written there.
    static func makeLink(_ w: WalkEntry, to firstName: some Collection<UInt8>, in firstParent: Int32, expect: FileID, into parent: Int32) throws {
        let rc = at(firstName) { fp in at(w.path.name) { n in retrying { linkat(firstParent, fp, parent, n, 0) } } }
        guard rc == 0 else { throw SystemError(operation: "link", path: w.path.display) }
        var st = stat()
        guard at(w.path.name, { fstatat(parent, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0, FileID(st) == expect else {
            throw InputError("the new file linked at \(w.path.display) was replaced while the tree was written")
        }
    }

    static func makeSymlink(_ w: WalkEntry, in parent: Int32) throws {
        guard let target = w.symlinkTarget else { throw SystemError(code: EIO, operation: "read link", path: w.path.display) }
        guard at(target, { tp in at(w.path.name) { n in retrying { symlinkat(tp, parent, n) } } }) == 0 else {
            throw SystemError(operation: "create symlink", path: w.path.display)
        }
        var times = timesOf(w)
        _ = at(w.path.name) { utimensat(parent, $0, &times, AT_SYMLINK_NOFOLLOW) }
    }

    static func makeFIFO(_ w: WalkEntry, in parent: Int32) throws {
        guard at(w.path.name, { n in retrying { mkfifoat(parent, n, mode_t(w.mode & 0o7777)) } }) == 0 else {
            throw SystemError(operation: "create FIFO", path: w.path.display)
        }
        var times = timesOf(w)
        _ = at(w.path.name) { utimensat(parent, $0, &times, AT_SYMLINK_NOFOLLOW) }
    }

    /// A new regular file at `name` in `parent`, for writing.
    static func createFile(_ name: some Collection<UInt8>, in parent: Int32) -> Int32 {
        at(name) { cName in retrying { openat(parent, cName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) } }
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

    /// Copies the file `w` (checked to be the one scanned) into `dstParent`; returns the new
    /// file's device and inode.
    static func copyFile(_ w: WalkEntry, srcParent: Int32, dstParent: Int32, source: String) throws -> FileID {
        let s = try openChecked(w.path, in: srcParent, expect: FileID(w), kind: S_IFREG, source: source)
        defer { close(s) }
        let d = createFile(w.path.name, in: dstParent)
        guard d >= 0 else { throw SystemError(operation: "create", path: w.path.display) }
        defer { close(d) }
        try copyData(from: s, to: d, size: w.size, path: w.path)
        try copyAttributes(s, d, path: w.path, marks: w.marks, source: source)
        _ = fchmod(d, mode_t(w.mode & 0o7777))
        var times = timesOf(w)
        _ = futimens(d, &times)
        guard let id = descriptorID(d) else { throw SystemError(operation: "create", path: w.path.display) }
        return id
    }

    /// Copies the data segments only, so holes stay holes; copy_file_range lets the kernel (and
    /// a reflinking file system) do the work, with read/write where it cannot.
    static func copyData(from s: Int32, to d: Int32, size: Int64, path: ContainerPath) throws {
        var offset: Int64 = 0
        while offset < size {
            try checkInterrupted()
            var data = lseek(s, off_t(offset), seekData)
            if data < 0 {
                if errno == ENXIO { break } // only a hole is left
                data = off_t(offset)        // no SEEK_DATA support: copy everything
            }
            var hole = lseek(s, data, seekHole)
            if hole < 0 { hole = off_t(size) }
            try copyRange(s, d, from: Int64(data), count: min(Int64(hole), size) - Int64(data), path: path)
            offset = Int64(hole)
        }
        guard retrying({ ftruncate(d, off_t(size)) }) == 0 else { throw SystemError(operation: "write", path: path.display) }
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
            var buffer = [UInt8](repeating: 0, count: Int(min(left, 1 << 20)))
            while left > 0 {
                let r = buffer.withUnsafeMutableBytes { pread(s, $0.baseAddress, Int(min(left, Int64($0.count))), inOff) }
                if r < 0 { if errno == EINTR { continue }; throw SystemError(operation: "read", path: path.display) }
                if r == 0 { return }
                try buffer.withUnsafeBytes { try writeAll(d, UnsafeRawBufferPointer(rebasing: $0[0..<r]), at: Int64(outOff), path: path) }
                inOff += off_t(r); outOff += off_t(r); left -= Int64(r)
            }
        }
    }

    /// Writes all of `bytes` at `offset`, through short writes; a failure reports its own
    /// error (a write of nothing: no space left).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: ContainerPath) throws {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                let e = errno
                if e == EINTR { continue }
                throw SystemError(code: e, operation: "write", path: path.display)
            }
            guard n > 0 else { throw SystemError(code: ENOSPC, operation: "write", path: path.display) }
            done += n
        }
    }
}
