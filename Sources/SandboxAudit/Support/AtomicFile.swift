#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a file whole or not at all: to a temporary file beside it, then renamed into place.
/// An interrupted or failed write leaves the old file (or none), never half a file.
public enum AtomicFile {
    /// Writes `bytes` to `path`. With `overwrite` false, an existing file is an error.
    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool = true) throws {
        if !overwrite {
            var st = stat()
            if lstat(path, &st) == 0 { throw InputError("\(path) exists; refusing to overwrite it") }
        }
        var template = Array((path + ".sandbox-audit-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError(operation: "create temporary file for", path: path) }
        let tmp = String(cString: template)
        var written = 0
        while written < bytes.count {
            #if canImport(Glibc)
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            #else
            let n = bytes[written...].withUnsafeBytes { Darwin.write(fd, $0.baseAddress, $0.count) }
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                let e = SystemError(operation: "write", path: tmp)
                close(fd); unlink(tmp)
                throw e
            }
            written += n
        }
        fchmod(fd, 0o644)
        if fsync(fd) != 0 || close(fd) != 0 {
            let e = SystemError(operation: "write", path: tmp)
            unlink(tmp)
            throw e
        }
        // link() refuses an existing target, so "no overwrite" holds even against a race.
        let rc = overwrite ? rename(tmp, path) : link(tmp, path)
        if rc != 0 {
            let e = errno == EEXIST ? InputError("\(path) exists; refusing to overwrite it") as Error : SystemError(operation: "rename into", path: path)
            unlink(tmp)
            throw e
        }
        if !overwrite { unlink(tmp) }
    }
}
