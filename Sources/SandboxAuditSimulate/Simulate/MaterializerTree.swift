import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// Building the new tree from a source folder, in inventory order, through descriptors only.
extension Materializer {
    /// The error for a source entry that is no longer what the scan saw.
    static func changed(_ source: String, _ path: ContainerPath) -> InputError {
        InputError("\(source)/\(path.display) changed while it was copied: it is not what was scanned")
    }

    /// Opens `path`'s last component in `parent` without following a symlink, and checks its
    /// type, device and inode; a source entry that differs is `changed`.
    static func openChecked(
        _ path: ContainerPath, in parent: FileDescriptor, expect: FileIdentity, kind: FileStatus.Kind, source: String
    ) throws -> FileDescriptor {
        let fd: FileDescriptor
        do {
            fd = try parent.open(path.name, kind == .directory ? .directory : .reading, keepAccessTime: true)
        } catch {
            if [ELOOP, ENOTDIR, ENOENT, ENXIO].contains(error.code) { throw changed(source, path) }
            throw error.labelled(kind == .directory ? "open folder" : "read", "\(source)/\(path.display)")
        }
        guard let status = try? fd.status(), status.kind == kind, status.identity == expect else {
            fd.close()
            throw changed(source, path)
        }
        return fd
    }

    /// Opens a folder of the new tree from its root, one component at a time, each checked
    /// against the device and inode recorded when it was created.
    static func reopenNew(_ path: ContainerPath, root: FileDescriptor, ids: (ContainerPath) -> FileIdentity?) throws
        -> FileDescriptor
    {
        var fd = try attempt("open the new folder", path.display) { () throws(Errno) in try root.duplicate() }
        var current = ContainerPath.root
        for c in path.components {
            current = current.appending(c)
            let next: FileDescriptor
            do { next = try openNew(current, in: fd, expect: ids(current)) } catch {
                fd.close()
                throw error
            }
            fd.close()
            fd = next
        }
        return fd
    }

    /// Opens the new folder `path` in its parent's descriptor and checks it is the one created.
    static func openNew(_ path: ContainerPath, in parent: FileDescriptor, expect: FileIdentity?) throws
        -> FileDescriptor
    {
        let fd = try attempt("open the new folder", path.display) { () throws(Errno) in
            try parent.open(path.name, .directory)
        }
        guard let expect, (try? fd.status().identity) == expect else {
            fd.close()
            throw InputError("the new folder \(path.display) was replaced while the tree was written")
        }
        return fd
    }

    /// Creates the folder `w` in `parent` (mode 0700 until it is finished) and opens it.
    static func makeFolder(_ w: WalkEntry, in parent: FileDescriptor) throws -> (FileDescriptor, FileIdentity) {
        try attempt("create folder", w.path.display) { () throws(Errno) in
            try parent.makeDirectory(w.path.name, mode: 0o700)
        }
        return try attempt("open the new folder", w.path.display) { () throws(Errno) in
            let fd = try parent.open(w.path.name, .directory)
            switch Result(catching: { () throws(Errno) in try fd.status().identity }) {
            case .success(let id): return (fd, id)
            case .failure(let e):
                fd.close()
                throw e
            }
        }
    }

    /// A folder's final mode and time, through its descriptor, once its contents are in.
    static func finishFolder(_ fd: FileDescriptor, _ w: WalkEntry) {
        try? fd.setPermissions(writtenMode(w.mode))
        try? fd.setTimes(w.times)
    }

    /// Folders of the new tree, reached from its root one component at a time, each checked
    /// against the device and inode recorded when it was made; the folders on the way to the
    /// last one asked for stay open. Each call costs the length of the path asked for plus one
    /// `openat` per folder not already open: the open folders are kept as lengths into the last
    /// path asked for (never a copy of each level's path, never the whole path split), so a
    /// 16,000-deep chain of 20,000 files is not opened, split or copied level by level per file.
    struct NewFolders {
        let root: FileDescriptor
        /// The identity of each folder made, by its folder number among the entries'
        /// (`InventoryEntries.folderNumber`), or by its path when it has none (a folder that
        /// holds nothing): never one more copy of every folder's path.
        private var ids: [Int32: FileIdentity] = [:]
        private var loose: [ContainerPath: FileIdentity] = [:]
        private let number: @Sendable (ArraySlice<UInt8>) -> Int32?
        /// The open folders, shallowest first: each is the folder whose path is the first
        /// `length` bytes of `deepest`.
        private var chain: [(length: Int, fd: FileDescriptor)] = []
        private var deepest: [UInt8] = []

        init(root: FileDescriptor, entries: InventoryEntries) {
            self.root = root
            number = { entries.folderNumber(of: $0) }
        }

        /// Records the identity of the new folder `path`.
        mutating func record(_ path: ContainerPath, _ id: FileIdentity) {
            if let f = number(path.bytes[...]) { ids[f] = id } else { loose[path] = id }
        }

        private func identity(of path: ContainerPath) -> FileIdentity? {
            if let f = number(path.bytes[...]), let id = ids[f] { return id }
            return loose[path]
        }

        /// The new folder `path`.
        mutating func open(_ path: ContainerPath) throws -> FileDescriptor {
            try open(path.bytes[...])
        }

        /// The new folder that holds `path` (the root for a top-level item), without making its
        /// parent's path.
        mutating func openParent(of path: ContainerPath) throws -> FileDescriptor {
            try open(path.bytes[..<(path.bytes.lastIndex(of: UInt8(ascii: "/")) ?? 0)])
        }

        private mutating func open(_ target: ArraySlice<UInt8>) throws -> FileDescriptor {
            let n = target.count
            // The bytes `target` shares with `deepest`: the open levels within them that end at
            // a component boundary of `target` are its own folders, and stay open.
            let common = Bytes.commonPrefixLength(target, deepest)
            while let last = chain.last,
                !(last.length <= common
                    && (last.length == n
                        || (last.length < n && target[target.startIndex + last.length] == UInt8(ascii: "/"))))
            {
                last.fd.close()
                chain.removeLast()
            }
            let base = chain.last?.length ?? 0
            var fd = chain.last?.fd ?? root
            if base == n { return fd }
            deepest = Array(target)
            var start = base == 0 ? 0 : base + 1
            while start < n {
                let end = deepest[start...].firstIndex(of: UInt8(ascii: "/")) ?? n
                let p = ContainerPath(bytes: Array(deepest[..<end]))
                let next = try Materializer.openNew(p, in: fd, expect: identity(of: p))
                chain.append((end, next))
                fd = next
                start = end + 1
            }
            return fd
        }

        mutating func release() {
            for l in chain { l.fd.close() }
            chain = []
            deepest = []
        }
    }

    /// One open folder on the way down from the data root, in the source and in the new tree.
    struct Level {
        let path: ContainerPath
        let src: FileDescriptor, dst: FileDescriptor
        let entry: WalkEntry?
    }

    /// The folders that receive kept entries: they are finished (mode, time) when left, the
    /// others as soon as they are made. Folders stay writable while they are filled.
    static func filledFolders(_ simulation: SimulationResult) -> Set<ContainerPath> {
        var filled = Set<ContainerPath>()
        var lastParent: ContainerPath?
        for (e, keep) in zip(simulation.inventory.entries, simulation.kept) where keep {
            if let last = lastParent, e.entry.path.isChild(of: last) { continue }
            let p = e.entry.path.parent ?? .root
            filled.insert(p)
            lastParent = p
        }
        return filled
    }

    /// The tree from the folder container's data root, as the scan opened it (`Container.root`,
    /// never its path again); below it, every folder and file is checked against the scan.
    static func build(_ simulation: SimulationResult, root dstRoot: FileDescriptor) throws -> (Report, RootFinish) {
        var report = Report(destination: "")
        let container = simulation.inventory.container
        let source = container.dataRoot
        let srcRoot = try attempt("open", source) { () throws(Errno) in
            guard let held = container.root else { throw Errno(code: EBADF) }
            return try held.reopenedDirectory()
        }
        defer { srcRoot.close() }
        let rootStatus = try attempt("read", source) { () throws(Errno) in try srcRoot.status() }

        // The data root's own attributes (its mode and time come last, in `write`).
        try copyAttributes(
            srcRoot, dstRoot, path: .root, marks: simulation.inventory.rootMarks, source: source,
            notCopied: &report.attributesNotCopied)
        let filled = filledFolders(simulation)

        // Entries come in path order, so the entries below a folder come together: the folders on
        // the way down stay open while they do, and each is finished when it is left, its whole
        // subtree written.
        var levels = [Level(path: .root, src: srcRoot, dst: dstRoot, entry: nil)]
        var ids: [ContainerPath: (src: FileIdentity, dst: FileIdentity, entry: WalkEntry)] = [:]
        defer {
            for l in levels.dropFirst() {
                l.src.close()
                l.dst.close()
            }
        }
        func leave() {
            let l = levels.removeLast()
            if let w = l.entry { finishFolder(l.dst, w) }
            l.src.close()
            l.dst.close()
        }
        func enter(_ parent: ContainerPath) throws {
            while !parent.isWithin(levels[levels.count - 1].path) { leave() }
            let top = levels[levels.count - 1]
            for c in parent.components.dropFirst(top.path.depth) {
                let here = levels[levels.count - 1]
                let path = here.path.appending(c)
                guard let id = ids[path] else {
                    throw SystemError(code: ENOENT, operation: "open the new folder", path: path.display)
                }
                let s = try openChecked(path, in: here.src, expect: id.src, kind: .directory, source: source)
                let d: FileDescriptor
                do { d = try openNew(path, in: here.dst, expect: id.dst) } catch {
                    s.close()
                    throw error
                }
                levels.append(Level(path: path, src: s, dst: d, entry: id.entry))
            }
        }

        var firstLink: [HardLinkKey: (path: ContainerPath, id: FileIdentity)] = [:]
        for (e, keep) in zip(simulation.inventory.entries, simulation.kept) where keep {
            try checkInterrupted()
            let w = e.entry.walkEntry
            if !w.path.isChild(of: levels[levels.count - 1].path) { try enter(w.path.parent ?? .root) }
            let srcParent = levels[levels.count - 1].src
            let dstParent = levels[levels.count - 1].dst
            switch w.kind {
            case .directory:
                let s = try openChecked(w.path, in: srcParent, expect: w.identity, kind: .directory, source: source)
                defer { s.close() }
                let (d, id) = try makeFolder(w, in: dstParent)
                defer { d.close() }
                try copyAttributes(
                    s, d, path: w.path, marks: w.marks, source: source, notCopied: &report.attributesNotCopied)
                if filled.contains(w.path) {
                    ids[w.path] = (w.identity, id, w)
                } else {
                    finishFolder(d, w)
                }
                report.directories += 1
            case .file:
                let key = HardLinkKey(device: w.device, inode: w.inode)
                if w.linkCount > 1, let first = firstLink[key] {
                    let firstParent = first.path.parent ?? .root
                    let fd =
                        w.path.isChild(of: firstParent)
                        ? try attempt("open the new folder", firstParent.display) { () throws(Errno) in
                            try dstParent.duplicate()
                        }
                        : try reopenNew(firstParent, root: dstRoot, ids: { ids[$0]?.dst })
                    defer { fd.close() }
                    try makeLink(w, to: first.path.name, in: fd, expect: first.id, into: dstParent)
                    report.links += 1
                    continue
                }
                let id = try copyFile(
                    w, srcParent: srcParent, dstParent: dstParent, source: source,
                    notCopied: &report.attributesNotCopied)
                if w.linkCount > 1 { firstLink[key] = (w.path, id) }
                report.files += 1
                report.bytes +|= w.size
            case .symlink:
                try makeSymlink(w, in: dstParent)
                report.symlinks += 1
            case .other:
                guard w.special == .fifo else {
                    report.skipped.append(w.path)
                    continue
                }
                try makeFIFO(w, in: dstParent)
                report.fifos += 1
            }
        }
        while levels.count > 1 { leave() }
        return (
            report,
            RootFinish(
                mode: writtenMode(UInt32(rootStatus.permissions)),
                times: FileTimes(seconds: rootStatus.modifiedSeconds, nanoseconds: rootStatus.modifiedNanoseconds))
        )
    }
}
