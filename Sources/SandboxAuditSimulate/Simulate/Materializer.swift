import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// Writes the container an event leaves behind as a real directory tree, from the source
/// container or archive, which it only reads.
///
/// The tree is built in a temporary sibling of the destination (mode 0700 until it is complete,
/// so that no other user can reach into it) and renamed into place when complete: on any failure
/// (an unreadable source file, a full disk, a signal) nothing is left at the destination and the
/// temporary tree is removed. Regular files keep their bytes (copy_file_range, which reflinks
/// where the file system can; holes stay holes), hard links stay links, symlinks stay symlinks,
/// FIFOs are recreated, and every entry keeps its modification time, its permissions less those
/// that hand out privilege (`writtenMode`), and its extended attributes in the `user.` namespace
/// on Linux (libattr's attr_copy_fd; never `security.*`, `trusted.*` or `system.*`: file
/// capabilities, ACLs and labels are not the app's data). Attributes that came from AppleDouble sidecars are written as
/// native
/// attributes. Sockets and devices are not recreated (they are listed). An archive is read again
/// as a stream, through the descriptor the scan opened (ArchiveMaterializer.swift).
///
/// Nothing is reached by a path of more than one component: the source's data root is the
/// descriptor the scan opened (`Container.root`; an archive, the file the scan read), and every
/// folder below it, in the source and in the new tree, is opened from its parent's descriptor
/// with O_NOFOLLOW, and checked against the device and inode the scan (or the folder's creation)
/// recorded, so that a folder swapped for a symlink or for another folder while the copy runs
/// is an error naming it, never followed.
package enum Materializer {
    package struct Report: Sendable {
        package let destination: String
        package var directories = 0, files = 0, links = 0, symlinks = 0, fifos = 0
        package var bytes: Int64 = 0
        /// Entries that cannot be recreated (sockets, devices, an archive's symlink to an empty target).
        package var skipped: [ContainerPath] = []
        /// Attributes the destination's file system refused ("PATH: NAME (reason)").
        package var attributesNotCopied: [String] = []
    }

    /// The permissions an entry of the new tree gets: its own, less setuid, setgid, the sticky
    /// bit and write for others. The tree belongs to whoever runs the command (root, on most CI
    /// runners), not to the input's owners, so a setuid program the input holds would run as
    /// that user, and a folder or file writable by all would let any user change the tree a job
    /// then reads. `cp` without `-p`, `install` and `rsync` without `-o` clear the same bits
    /// (docs/simulate.md; `simulate --help`).
    static func writtenMode(_ mode: UInt32) -> mode_t {
        mode_t(mode & 0o0775)
    }

    /// The data root's own mode and time, applied through its descriptor once the tree is at DIR.
    struct RootFinish {
        let mode: mode_t
        let times: FileTimes?
    }

    static func write(_ simulation: SimulationResult, into destination: String) throws -> Report {
        try write(simulation, into: destination) { root, _ in try build(simulation, into: root) }
    }

    /// The event's tree written into the folder `root`: from the archive when the scan read one
    /// (decided by what the scan read, never by the name again), else from the data root.
    static func build(_ simulation: SimulationResult, into root: FileDescriptor) throws -> (Report, RootFinish) {
        simulation.inventory.archive != nil
            ? try buildFromArchive(simulation, root: root) : try build(simulation, root: root)
    }

    /// Writes a new tree at DIR: `fill` writes its contents into the temporary root (given with
    /// DIR's path, for messages) and says how to finish that root once it is in place. Every
    /// writer of `--into` goes through here: the checks of DIR and of the free space, the signal
    /// guard, the temporary sibling, the exclusive rename and the clean-up on failure.
    static func write(
        _ simulation: SimulationResult, into destination: String,
        fill: (_ root: FileDescriptor, _ dest: String) throws -> (Report, RootFinish)
    ) throws -> Report {
        let dest = try checkDestination(destination)
        let (parent, name) = PathText.split(dest)
        let parentFD = try attempt("open", parent) { () throws(Errno) in
            try FileDescriptor.currentDirectory.open(parent.utf8, .namedDirectory)
        }
        defer { parentFD.close() }
        try checkSpace(simulation, on: parentFD, dest: dest, fromArchive: simulation.inventory.archive != nil)

        // The copy holds two descriptors per level of the folder it is in: a deep tree needs
        // more than the usual soft limit of 1024.
        raiseDescriptorLimit(to: 65_536)
        // Signals are caught before the temporary tree exists, so that none can leave it behind.
        let signals = SignalGuard()
        defer { signals.restore() }
        let (temporary, rootFD, rootID) = try makeTemporary(in: parentFD, for: name, dest: dest)
        defer { rootFD.close() }
        do {
            let (report, finish) = try fill(rootFD, dest)
            try checkInterrupted()
            guard (try? parentFD.status(of: temporary.utf8).identity) == rootID else {
                throw InputError("the temporary folder beside \(dest) was moved or replaced while it was written")
            }
            try moveIntoPlace(temporary, as: name, in: parentFD, dest: dest, id: rootID)
            // Only now may others reach into the tree: the root's mode and time, through its
            // descriptor (a rename in the same folder changes neither).
            try? rootFD.setPermissions(finish.mode)
            if let times = finish.times { try? rootFD.setTimes(times) }
            return Report(
                destination: dest, directories: report.directories, files: report.files, links: report.links,
                symlinks: report.symlinks, fifos: report.fifos, bytes: report.bytes, skipped: report.skipped,
                attributesNotCopied: report.attributesNotCopied)
        } catch {
            removeTree(temporary, in: parentFD, root: rootFD, id: rootID)
            if let e = error as? InputError { throw InputError("nothing written to \(dest): \(e.message)") }
            throw InputError("nothing written to \(dest): \(error)")
        }
    }

    /// Renames the finished tree to DIR's name through the parent's descriptor held from the
    /// start, never replacing anything but the empty folder DIR was (RENAME_NOREPLACE after
    /// removing that folder, where the kernel has it; plain renameat(2), which replaces an empty
    /// folder in one step, where it has not), then checks that DIR is the tree this run wrote:
    /// a name exchanged in between is an error, never a success.
    static func moveIntoPlace(
        _ temporary: String, as name: String, in parentFD: FileDescriptor, dest: String, id: FileIdentity
    ) throws {
        func exclusive() -> Result<Void, Errno> {
            Result { () throws(Errno) in try parentFD.renameExclusive(temporary.utf8, to: name.utf8, in: parentFD) }
        }
        var moved = exclusive()
        if case .failure(let e) = moved, e.code == EEXIST {
            // The empty folder DIR was: removed (rmdir refuses anything else), then the name taken.
            moved = Result { () throws(Errno) in try parentFD.remove(name.utf8, isDirectory: true) }.flatMap {
                exclusive()
            }
        }
        if case .failure(let e) = moved {
            guard [ENOSYS, EINVAL, ENOTSUP, EOPNOTSUPP].contains(e.code) else {
                throw e.labelled("rename the finished tree to", dest)
            }
            try attempt("rename the finished tree to", dest) { () throws(Errno) in
                try parentFD.rename(temporary.utf8, to: name.utf8, in: parentFD)
            }
        }
        guard (try? parentFD.status(of: name.utf8).identity) == id else {
            throw InputError(
                "\(dest) is not the tree this run wrote (its name was exchanged while it was put in place)")
        }
    }

    /// Checks DIR before anything is read or written: a name (not empty, not `.` or `..`) of a
    /// folder that does not exist, or is empty. Returns it without trailing slashes.
    @discardableResult
    static func checkDestination(_ destination: String) throws -> String {
        var dest = destination
        while dest.count > 1 && dest.hasSuffix("/") { dest.removeLast() }
        let name = PathText.split(dest).name
        guard !dest.isEmpty else { throw InputError("--into needs a folder name, not an empty string") }
        guard name != "." && name != ".." && name != "/" && !name.isEmpty else {
            throw InputError("--into \(destination): name the folder to create (not . or ..)")
        }
        let status: FileStatus
        do {
            status = try FileDescriptor.currentDirectory.status(of: dest.utf8)
        } catch {
            guard error.code == ENOENT else { throw error.labelled("check", dest) }
            let parent = PathText.split(dest).parent
            guard Container.isDirectory(parent) else {
                throw InputError("\(parent) is not a folder: cannot create \(dest) in it")
            }
            return dest
        }
        guard status.kind == .directory else {
            throw InputError("\(dest) exists and is not a folder; refusing to overwrite it")
        }
        let fd = try attempt("read", dest) { () throws(Errno) in
            try FileDescriptor.currentDirectory.openDirectory(dest.utf8)
        }
        defer { fd.close() }
        guard try attempt("read directory", "descriptor \(fd.rawValue)", { () throws(Errno) in try fd.names() }).isEmpty
        else {
            throw InputError("\(dest) is not empty; refusing to write into it")
        }
        return dest
    }

    /// Refuses, before anything is written, an event whose kept data does not fit in the free
    /// space of DIR's file system. From an input whose sizes on disk are known (a folder), a file
    /// needs its allocated bytes at most (holes stay holes); from another (an archive), its size.
    /// Hard links count once.
    static func checkSpace(_ simulation: SimulationResult, on parentFD: FileDescriptor, dest: String, fromArchive: Bool)
        throws
    {
        guard let free = parentFD.freeBytes() else { return }  // unknown: the copy reports a full disk itself
        var need: Int64 = 0
        var counted = Set<HardLinkKey>()
        for (e, keep) in zip(simulation.inventory.entries, simulation.kept) where keep && e.entry.kind == .file {
            let w = e.entry.walkEntry
            if w.linkCount > 1 || fromArchive, !counted.insert(HardLinkKey(device: w.device, inode: w.inode)).inserted {
                continue
            }
            // Where the input knows each file's blocks, a file needs at most those (holes stay holes).
            need +|= simulation.inventory.container.source.capabilities.sizesOnDisk ? min(w.size, w.allocated) : w.size
        }
        guard need > free else { return }
        throw InputError(
            "not enough space for \(dest): what the \(simulation.event.rawValue) keeps needs "
                + "\(ByteSize.format(need)), its file system has \(ByteSize.format(free)) free; nothing written"
        )
    }

    static func checkInterrupted() throws {
        guard let name = SignalGuard.caughtName else { return }
        throw InputError("interrupted (\(name))")
    }

    /// `.NAME.sandbox-audit-XXXXXX` in the parent folder, mode 0700, opened.
    static func makeTemporary(in parentFD: FileDescriptor, for name: String, dest: String) throws -> (
        String, FileDescriptor, FileIdentity
    ) {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        for _ in 0..<100 {
            let suffix = String((0..<6).map { _ in letters[Int.random(in: 0..<letters.count)] })
            let temporary = "." + name + ".sandbox-audit-" + suffix
            do {
                try parentFD.makeDirectory(temporary.utf8, mode: 0o700)
            } catch {
                if error.code == EEXIST { continue }
                throw error.labelled("create a temporary folder beside", dest)
            }
            let opened = Result { () throws(Errno) in
                let fd = try parentFD.openDirectory(temporary.utf8)
                switch Result(catching: { () throws(Errno) in try fd.status().identity }) {
                case .success(let id): return (fd, id)
                case .failure(let e):
                    fd.close()
                    throw e
                }
            }
            switch opened {
            case .success(let (fd, id)):
                try? fd.setPermissions(0o700)  // whatever the umask made of it
                return (temporary, fd, id)
            case .failure(let e):
                try? parentFD.remove(temporary.utf8, isDirectory: true)
                throw e.labelled("open the temporary folder beside", dest)
            }
        }
        throw SystemError(code: EEXIST, operation: "create a temporary folder beside", path: dest)
    }

    /// Removes a tree this run wrote through its descriptor (folders made writable first), then
    /// its now empty folder, if the name still holds it.
    static func removeTree(_ name: String, in parentFD: FileDescriptor, root: FileDescriptor, id: FileIdentity) {
        removeContents(of: root)
        if (try? parentFD.status(of: name.utf8).identity) == id { try? parentFD.remove(name.utf8, isDirectory: true) }
    }

    /// The folder `name` in `parentFD` and all it holds, opened without following a link.
    static func removeTree(_ name: String, in parentFD: FileDescriptor) {
        guard let fd = try? parentFD.openDirectory(name.utf8) else { return }
        defer { fd.close() }
        guard let id = try? fd.status().identity else { return }
        removeTree(name, in: parentFD, root: fd, id: id)
    }

    static func removeContents(of fd: FileDescriptor) {
        try? fd.setPermissions(0o700)
        guard let names = try? fd.names() else { return }
        for n in names {
            guard let status = try? fd.status(of: n) else { continue }
            if status.kind == .directory {
                if let child = try? fd.openDirectory(n) {
                    removeContents(of: child)
                    child.close()
                }
                try? fd.remove(n, isDirectory: true)
            } else {
                try? fd.remove(n, isDirectory: false)
            }
        }
    }
}
