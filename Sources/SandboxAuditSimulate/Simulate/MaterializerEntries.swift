import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// Writing one entry of the new tree: a file's bytes and attributes, a link, a symlink, a FIFO.
extension Materializer {
    /// A hard link at `w`'s name in `parent` to `firstName` in the folder `firstParent`, checked
    /// to be the file first written there.
    static func makeLink(
        _ w: WalkEntry, to firstName: some Collection<UInt8>, in firstParent: FileDescriptor, expect: FileIdentity,
        into parent: FileDescriptor
    ) throws {
        try attempt("link", w.path.display) { () throws(Errno) in
            try parent.makeLink(w.path.name, to: firstName, in: firstParent)
        }
        guard (try? parent.status(of: w.path.name).identity) == expect else {
            throw InputError("the new file linked at \(w.path.display) was replaced while the tree was written")
        }
    }

    static func makeSymlink(_ w: WalkEntry, in parent: FileDescriptor) throws {
        guard let target = w.symlinkTarget else {
            throw SystemError(code: EIO, operation: "read link", path: w.path.display)
        }
        try attempt("create symlink", w.path.display) { () throws(Errno) in
            try parent.makeSymlink(w.path.name, target: target)
        }
        try? parent.setTimes(of: w.path.name, w.times)
    }

    static func makeFIFO(_ w: WalkEntry, in parent: FileDescriptor) throws {
        try attempt("create FIFO", w.path.display) { () throws(Errno) in
            try parent.makeFIFO(w.path.name, mode: writtenMode(w.mode))
        }
        try? parent.setTimes(of: w.path.name, w.times)
    }

    /// Native attributes through libattr; marks that came from sidecars, written natively. An
    /// attribute the kernel refuses to set here (EPERM: macOS's `com.apple.macl`; ENOTSUP …)
    /// is left out and named in `notCopied`, as the archive path does; the backup attributes
    /// must be written.
    static func copyAttributes(
        _ s: FileDescriptor, _ d: FileDescriptor, path: ContainerPath, marks: [AttributeMark], source: String,
        notCopied: inout [String]
    ) throws {
        do {
            try XAttr.copyAll(
                from: s.rawValue, sourcePath: source + "/" + path.display, to: d.rawValue, destinationPath: path.display
            )
        } catch let e as SystemError where refusedHere.contains(e.code) {
            for name in try XAttr.names(.descriptor(s.rawValue)) {
                let n = String(decoding: name, as: UTF8.self)
                guard heldHere(n),
                    let value = try XAttr.value(.descriptor(s.rawValue), name: n)
                else { continue }
                do {
                    try XAttr.set(descriptor: d.rawValue, name: n, value: value, path: path.display)
                } catch let e as SystemError where refusedHere.contains(e.code) {
                    notCopied.append("\(path.display): \(n) (\(errorText(e.code)))")
                }
            }
        }
        try writeMarks(d, marks, path: path, native: false)
    }

    /// What a file system answers for an attribute it will not hold (ext4: ENOSPC for a value
    /// larger than its attribute block).
    static let refusedHere: Set<Int32> = [EPERM, EACCES, ENOTSUP, EOPNOTSUPP, EINVAL, ERANGE, E2BIG, ENOSPC]

    /// Backup marks as native attributes; those found natively only when `native` is set.
    static func writeMarks(_ d: FileDescriptor, _ marks: [AttributeMark], path: ContainerPath, native: Bool) throws {
        for m in marks {
            if !native, case .native = m.source { continue }
            try XAttr.set(descriptor: d.rawValue, name: m.attribute.nativeName, value: m.value, path: path.display)
        }
    }

    /// Copies the file `w` (checked to be the one scanned) into `dstParent`; returns the new
    /// file's device and inode.
    static func copyFile(
        _ w: WalkEntry, srcParent: FileDescriptor, dstParent: FileDescriptor, source: String, notCopied: inout [String]
    ) throws -> FileIdentity {
        let s = try openChecked(w.path, in: srcParent, expect: w.identity, kind: .regular, source: source)
        defer { s.close() }
        let d = try attempt("create", w.path.display) { () throws(Errno) in try dstParent.open(w.path.name, .newFile) }
        defer { d.close() }
        try copyData(from: s, to: d, size: w.size, path: w.path)
        try copyAttributes(s, d, path: w.path, marks: w.marks, source: source, notCopied: &notCopied)
        try? d.setPermissions(writtenMode(w.mode))
        try? d.setTimes(w.times)
        return try attempt("create", w.path.display) { () throws(Errno) in try d.status().identity }
    }

    /// Copies the data segments only, so holes stay holes; copy_file_range lets the kernel (and
    /// a reflinking file system) do the work, with read/write where it cannot.
    static func copyData(from s: FileDescriptor, to d: FileDescriptor, size: Int64, path: ContainerPath) throws {
        var offset: Int64 = 0
        while offset < size {
            try checkInterrupted()
            guard let segment = s.dataSegment(from: offset, size: size) else { break }  // only a hole is left
            try copyRange(
                s, d, from: segment.lowerBound, count: min(segment.upperBound, size) - segment.lowerBound, path: path)
            offset = segment.upperBound
        }
        try attempt("write", path.display) { () throws(Errno) in try d.truncate(to: size) }
    }

    static func copyRange(
        _ s: FileDescriptor, _ d: FileDescriptor, from start: Int64, count: Int64, path: ContainerPath
    ) throws {
        var inOff = start
        var outOff = start
        var left = count
        while left > 0 {
            do {
                let n = try d.copy(from: s, at: &inOff, to: &outOff, count: Int(min(left, 1 << 30)))
                if n == 0 { break }  // the source is shorter than the scan saw
                left -= Int64(n)
                continue
            } catch {
                guard [EXDEV, ENOSYS, EINVAL, EOPNOTSUPP].contains(error.code) else {
                    throw error.labelled("copy", path.display)
                }
            }
            // Plain read and write where copy_file_range cannot work.
            var buffer = [UInt8](repeating: 0, count: Int(min(left, 1 << 20)))
            while left > 0 {
                let want = Int(min(left, Int64(buffer.count)))
                let r = try attempt("read", path.display) { () throws(Errno) in
                    try s.read(into: &buffer, range: 0..<want, at: inOff)
                }
                if r == 0 { return }
                try attempt("write", path.display) { () throws(Errno) in try d.writeAll(buffer[0..<r], at: outOff) }
                inOff += Int64(r)
                outOff += Int64(r)
                left -= Int64(r)
            }
        }
    }

}

extension WalkEntry {
    /// Device and inode, as the walk saw them.
    var identity: FileIdentity { FileIdentity(device: device, inode: inode) }
    /// The times a copy gives the entry: its modification time (the access time: now).
    var times: FileTimes { FileTimes(seconds: modifiedSeconds, nanoseconds: modifiedNanoseconds) }
}
