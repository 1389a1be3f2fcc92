import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// Materialising from an archive: the archive the scan opened is read again from its first byte,
/// through the descriptor the scan holds (never its name again), as a stream through
/// `ArchiveWalk.Reader`; nothing is extracted anywhere else, and each member the event keeps is
/// written where the inventory puts it.
///
/// Members are matched to inventory entries by position: both readings number the stored paths
/// with `ArchiveWalk.MemberNumbering` (inode = position + 1), and every path of a hard-linked
/// file shares the inode of the member that holds the data. A path stored twice keeps its first
/// position and its later content, so each copy of the entry's kind is written over the last.
extension Materializer {
    /// The kept entries the tree gets, by what each needs: the folders (made first), the file
    /// paths that receive the data, and the others of a hard-linked file (linked last).
    private struct ArchivePlan {
        /// Every inventory entry of an inode (every path of a hard-linked file).
        var byInode: [UInt64: [Int]] = [:]
        /// The kept path of each file that gets the data.
        var firstKept: [UInt64: Int] = [:]
        var links: [Int] = []
        /// The kept folders, by position in the inventory.
        var directories: [Int] = []
    }

    /// What reading the archive again wrote, and what it keeps for the folders' finish.
    private struct ArchiveWritten {
        var written = Set<Int>()
        /// Each kept folder's attributes as stored, by its position in the inventory.
        var folderAttributes: [Int: [(String, [UInt8])]] = [:]
        var rootMember: ArchiveWalk.Member?
    }

    static func buildFromArchive(_ simulation: SimulationResult, root dstRoot: FileDescriptor) throws -> (
        Report, RootFinish
    ) {
        let entries = simulation.inventory.entries
        var report = Report(destination: "")
        var parents = NewFolders(root: dstRoot, entries: simulation.inventory.entries)
        defer { parents.release() }

        let plan = try makeKeptFolders(simulation, parents: &parents, report: &report)
        let written = try writeMembers(simulation, plan, parents: &parents)
        try checkEveryKeptCame(simulation, plan, written, report: &report)
        try linkPaths(entries, plan, root: dstRoot, parents: &parents)
        parents.release()
        report.directories = plan.directories.count
        report.files = plan.firstKept.count
        report.links = plan.links.count
        report.bytes = plan.firstKept.values.byteSum { entries[$0].entry.size }
        try finishFolders(simulation.inventory, plan, written, root: dstRoot, parents: &parents)
        parents.release()
        // The data root takes its member's mode and time (0755 when the archive has none), last.
        let finish =
            written.rootMember.map {
                RootFinish(
                    mode: writtenMode(UInt32($0.mode)),
                    times: FileTimes(seconds: $0.mtime, nanoseconds: $0.mtimeNanoseconds))
            }
            ?? RootFinish(mode: 0o755, times: nil)
        return (report, finish)
    }

    /// Every kept folder first, parents before children (inventory order), including the
    /// folders the archive only implies; the plan of the rest.
    private static func makeKeptFolders(_ simulation: SimulationResult, parents: inout NewFolders, report: inout Report)
        throws -> ArchivePlan
    {
        var plan = ArchivePlan()
        for (i, (e, keep)) in zip(simulation.inventory.entries, simulation.kept).enumerated() {
            let w = e.entry.walkEntry
            if w.inode != 0 { plan.byInode[w.inode, default: []].append(i) }
            guard keep else { continue }
            switch w.kind {
            case .directory:
                let (fd, id) = try makeFolder(w, in: try parents.openParent(of: w.path))
                fd.close()
                parents.record(w.path, id)
                plan.directories.append(i)
            case .file:
                if plan.firstKept[w.inode] == nil { plan.firstKept[w.inode] = i } else { plan.links.append(i) }
            case .other where w.special != .fifo, .symlink where w.symlinkTarget?.isEmpty ?? true:
                report.skipped.append(w.path)  // no file system makes a symlink to an empty target
            default:
                break
            }
        }
        return plan
    }

    /// Reads the archive again as a stream and writes each kept file, symlink and FIFO where the
    /// inventory puts it; keeps the folders' attributes and the data root's member for the end.
    private static func writeMembers(_ simulation: SimulationResult, _ plan: ArchivePlan, parents: inout NewFolders)
        throws -> ArchiveWritten
    {
        let entries = simulation.inventory.entries
        let location = simulation.inventory.container.input
        let prefix = ArchiveWalk.memberPrefix(of: simulation.inventory.container)  // members below it are entries
        var done = ArchiveWritten()
        var numbering = ArchiveWalk.MemberNumbering()
        // The file the scan read, through the descriptor it holds: a name swapped since for
        // another archive (or a symlink to one) is not read. The file written over in place
        // since is refused before anything is written.
        guard let scanned = simulation.inventory.archive, scanned.isUnchanged else {
            throw InputError(
                "\(location) changed since it was scanned (its size or modification time differs): refusing to copy "
                    + "from it"
            )
        }
        let reader = try ArchiveWalk.Reader(location, file: scanned, checked: true)
        // The members the scan kept, and no other: the same paths numbered, within the same bound.
        var admission = ArchiveWalk.PathAdmission()
        reading: while let m = try reader.next(keep: { _, _ in 0 }) {
            try checkInterrupted()
            guard m.nameless == nil else { continue }
            let p: [UInt8]
            switch ArchiveWalk.normalise(m.path) {
            case .unsafe: continue
            case .root:
                if prefix.isEmpty, m.type == ArchiveWalk.FileType.dir { done.rootMember = m }
                continue
            case .path(let normal): p = normal
            }
            switch admission.admit(p) {
            case .keep: break
            case .tooDeep: continue
            case .overBudget: break reading
            }
            let position = numbering.number(p).position
            if p.count + 1 == prefix.count, prefix.starts(with: p) {
                if m.type == ArchiveWalk.FileType.dir { done.rootMember = m }
                continue
            }
            guard m.hardlink == nil, let group = plan.byInode[UInt64(position + 1)] else { continue }
            guard p.count > prefix.count, p.starts(with: prefix),
                group.contains(where: { sameBytes(entries[$0].path.bytes, p[prefix.count...]) })
            else {
                throw InputError("\(location) does not read as it did when it was scanned: \(ByteText.display(p))")
            }
            let w = entries[group[0]].entry.walkEntry
            switch (m.type, w.kind) {
            case (ArchiveWalk.FileType.reg, .file):
                guard let first = plan.firstKept[w.inode] else { continue }
                try writeFile(
                    m, from: reader, to: entries[first].entry.walkEntry,
                    marks: group.filter { simulation.kept[$0] }.reversed().flatMap { entries[$0].entry.marks },
                    parents: &parents)
                done.written.insert(first)
            case (ArchiveWalk.FileType.dir, .directory):
                guard simulation.kept[group[0]] else { continue }
                done.folderAttributes[group[0]] = m.xattrs
            case (ArchiveWalk.FileType.lnk, .symlink), (ArchiveWalk.FileType.fifo, .other):
                guard w.kind == .symlink || w.special == .fifo, simulation.kept[group[0]] else { continue }
                let parent = try parents.openParent(of: w.path)
                if done.written.contains(group[0]) { try? parent.remove(w.path.name, isDirectory: false) }
                if w.kind == .symlink, w.symlinkTarget?.isEmpty ?? true {
                    done.written.insert(group[0])
                    continue
                }  // skipped, listed
                if w.kind == .symlink { try makeSymlink(w, in: parent) } else { try makeFIFO(w, in: parent) }
                done.written.insert(group[0])
            default:
                continue  // an earlier copy of a path stored twice, or a kind not recreated
            }
        }
        return done
    }

    /// `a` and `b` hold the same bytes (compared in place: deep paths run to many kilobytes).
    private static func sameBytes(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
        Bytes.compare(a[...], b) == 0
    }

    /// One file's data from the member being read, then its attributes (`marks`: all kept paths
    /// are this one file, the first path's last), mode and times.
    private static func writeFile(
        _ m: ArchiveWalk.Member, from reader: ArchiveWalk.Reader, to target: WalkEntry, marks: [AttributeMark],
        parents: inout NewFolders
    ) throws {
        let parent = try parents.openParent(of: target.path)
        let fd = try attempt("create", target.path.display) { () throws(Errno) in
            switch Result(catching: { () throws(Errno) in try parent.open(target.path.name, .newFile) }) {
            case .success(let fd): return fd
            case .failure(let e) where e.code == EEXIST:  // a path stored twice: the later copy counts
                try? parent.remove(target.path.name, isDirectory: false)
                return try parent.open(target.path.name, .newFile)
            case .failure(let e): throw e
            }
        }
        defer { fd.close() }
        var writer = HoleKeepingWriter(fd: fd, path: target.path)
        try reader.writeData(to: &writer) { try checkInterrupted() }
        try writer.flush()
        try attempt("write", target.path.display) { () throws(Errno) in try fd.truncate(to: target.size) }
        try writeMemberAttributes(fd, m.xattrs, marks: marks, path: target.path)
        try? fd.setPermissions(writtenMode(target.mode))
        try? fd.setTimes(target.times)
    }

    /// The archive may have changed since the scan: every kept file, symlink and FIFO came.
    /// Counts the symlinks and FIFOs made.
    private static func checkEveryKeptCame(
        _ simulation: SimulationResult, _ plan: ArchivePlan, _ done: ArchiveWritten, report: inout Report
    ) throws {
        let entries = simulation.inventory.entries
        for (i, keep) in simulation.kept.enumerated() where keep {
            let w = entries[i].entry.walkEntry
            let missing: Bool
            switch w.kind {
            case .file: missing = !done.written.contains(plan.firstKept[w.inode] ?? i)
            case .symlink: missing = !done.written.contains(i)
            case .other: missing = w.special == .fifo && !done.written.contains(i)
            case .directory: missing = false
            }
            if missing {
                throw InputError(
                    "\(simulation.inventory.container.input) does not read as it did when it was scanned: "
                        + "\(w.path.display) is not in it"
                )
            }
            switch w.kind {
            case .symlink where !(w.symlinkTarget?.isEmpty ?? true): report.symlinks += 1
            case .other where w.special == .fifo: report.fifos += 1
            default: break
            }
        }
    }

    /// The other kept paths of each hard-linked file, linked to the path that got the data.
    private static func linkPaths(
        _ entries: InventoryEntries, _ plan: ArchivePlan, root dstRoot: FileDescriptor, parents: inout NewFolders
    ) throws {
        for i in plan.links {
            try checkInterrupted()
            let w = entries[i].entry.walkEntry
            let first = entries[plan.firstKept[w.inode]!].path
            // A duplicate: opening the link's own folder next may close the chain's.
            let held = try parents.openParent(of: first)
            let firstParent = try attempt("open the new folder", (first.parent ?? .root).display) { () throws(Errno) in
                try held.duplicate()
            }
            defer { firstParent.close() }
            let firstID = try attempt("link", w.path.display) { () throws(Errno) in
                try firstParent.status(of: first.name).identity
            }
            try makeLink(w, to: first.name, in: firstParent, expect: firstID, into: try parents.openParent(of: w.path))
        }
    }

    /// Folders last, deepest first (adding their contents changed their times), each through
    /// the descriptor reached from the root; the data root's attributes first.
    private static func finishFolders(
        _ inventory: Inventory, _ plan: ArchivePlan, _ done: ArchiveWritten, root dstRoot: FileDescriptor,
        parents: inout NewFolders
    ) throws {
        try writeMemberAttributes(dstRoot, done.rootMember?.xattrs ?? [], marks: inventory.rootMarks, path: .root)
        for i in plan.directories.reversed() {
            try checkInterrupted()
            let w = inventory.entries[i].entry.walkEntry
            let fd = try parents.open(w.path)
            try writeMemberAttributes(fd, done.folderAttributes[i] ?? [], marks: w.marks, path: w.path)
            finishFolder(fd, w)
        }
    }

    /// A member's attributes: the backup attributes as the inventory has them (`marks`, from the
    /// member's records or its sidecars), the others as stored where this platform holds them.
    static func writeMemberAttributes(
        _ fd: FileDescriptor, _ xattrs: [(String, [UInt8])], marks: [AttributeMark], path: ContainerPath
    ) throws {
        for (name, value) in xattrs where BackupAttribute(attributeName: Array(name.utf8)) == nil && heldHere(name) {
            do {
                try XAttr.set(descriptor: fd.rawValue, name: name, value: value, path: path.display)
            } catch let e as SystemError where [EPERM, EINVAL, ENOTSUP, EOPNOTSUPP, ERANGE, E2BIG].contains(e.code) {
                continue  // a name or value this file system refuses
            }
        }
        try writeMarks(fd, marks, path: path, native: true)
    }

    /// Linux keeps other attributes in namespaces only root may write (or none at all).
    static func heldHere(_ name: String) -> Bool {
        #if os(Linux)
            return name.hasPrefix("user.")
        #else
            return !["security.", "system.", "trusted."].contains { name.hasPrefix($0) }
        #endif
    }
}
