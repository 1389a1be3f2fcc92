#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file whole or not at all: to a temporary file beside it, then renamed into place.
/// An interrupted or failed write leaves the old file (or none), never half a file. A file that
/// is replaced keeps its owner, group and mode (where the caller may set them).
public enum AtomicFile {
    /// Writes `bytes` to `path`. With `overwrite` false, an existing file is an error.
    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool = true) throws {
        try write(bytes, to: Array(path.utf8), overwrite: overwrite)
    }

    private static func cPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (path + [0]).withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) { body($0) }
        }
    }

    /// Writes `bytes` to the file at the raw path `path`.
    package static func write(_ bytes: [UInt8], to path: [UInt8], overwrite: Bool = true) throws {
        let shown = ByteText.display(path)
        var old = stat()
        let exists = cPath(path) { lstat($0, &old) } == 0
        if !overwrite && exists { throw InputError("\(shown) exists; refusing to overwrite it") }
        var template = path + Array(".sandbox-audit-XXXXXX".utf8) + [0]
        let fd = template.withUnsafeMutableBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) { mkstemp($0) }
        }
        guard fd >= 0 else { throw SystemError(operation: "create temporary file for", path: shown) }
        let tmp = Array(template.dropLast())
        let tmpShown = ByteText.display(tmp)
        func removeTmp() { _ = cPath(tmp) { unlink($0) } }
        let written = bytes.withUnsafeBytes { b in
            Result { () throws(Errno) in try FileDescriptor(rawValue: fd).writeAll(b) }
        }
        if case .failure(let e) = written {
            close(fd)
            removeTmp()
            throw e.labelled("write", tmpShown)
        }
        if exists && UInt32(old.st_mode) & UInt32(S_IFMT) == UInt32(S_IFREG) {
            // Keep the replaced file's owner and mode; set-id bits only when the owner is kept.
            let owned = fchown(fd, old.st_uid, old.st_gid) == 0 || (old.st_uid == geteuid() && old.st_gid == getegid())
            fchmod(fd, mode_t(UInt32(old.st_mode) & (owned ? 0o7777 : 0o777)))
        } else {
            fchmod(fd, 0o644)
        }
        if fsync(fd) != 0 || close(fd) != 0 {
            let e = SystemError(operation: "write", path: tmpShown)
            removeTmp()
            throw e
        }
        // link() refuses an existing target, so "no overwrite" holds even against a race.
        let rc = cPath(tmp) { t in cPath(path) { p in overwrite ? rename(t, p) : link(t, p) } }
        if rc != 0 {
            let e =
                errno == EEXIST
                ? InputError("\(shown) exists; refusing to overwrite it") as Error
                : SystemError(operation: "rename into", path: shown)
            removeTmp()
            throw e
        }
        if !overwrite { removeTmp() }
    }
}

/// Adds to the end of a file that others write too (GitHub's job summary): each call is one
/// append, the file created mode 0644 when missing. Not atomic: the file is shared by design.
public enum AppendedFile {
    public static func append(_ bytes: [UInt8], to path: String) throws(SystemError) {
        let fd: FileDescriptor
        switch Result(catching: { () throws(Errno) in
            try FileDescriptor.currentDirectory.open(path.utf8, .appending, mode: 0o644)
        }) {
        case .success(let opened): fd = opened
        case .failure(let e): throw e.labelled("open", path)
        }
        defer { fd.close() }
        let written = bytes.withUnsafeBytes { b in Result { () throws(Errno) in try fd.writeAll(b) } }
        if case .failure(let e) = written { throw e.labelled("write", path) }
    }
}
