#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads small input files (identity plists, sidecars, policy files) whole, with a size limit:
/// opened non-blocking (a FIFO put in place never hangs the tool), refused unless a regular
/// file after opening, without updating the access time where permitted (Linux O_NOATIME),
/// and never more than `limit` + 1 bytes read (so the caller can tell "over the limit").
public enum BoundedRead {
    #if os(Linux)
    static let noATime: Int32 = 0o1000000 // O_NOATIME; not exported to Swift by Glibc
    #else
    static let noATime: Int32 = 0
    #endif

    public enum Failure: Error, CustomStringConvertible {
        case open(Int32)
        case notRegular(isDirectory: Bool)
        case tooLarge(Int64)
        case read(Int32)
        public var description: String {
            switch self {
            case .open(let e), .read(let e): return String(cString: strerror(e))
            case .notRegular(let dir): return dir ? "is a directory" : "is not a regular file"
            case .tooLarge(let n): return "is \(n) bytes, over the limit"
            }
        }
    }

    /// The file's bytes; throws `Failure` when it cannot be opened, is not a regular file or is
    /// larger than `limit`.
    public static func file(_ path: [UInt8], limit: Int, followSymlink: Bool) throws -> [UInt8] {
        var flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC
        if !followSymlink { flags |= O_NOFOLLOW }
        let fd: Int32 = (path + [0]).withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) { p in
                var fd = open(p, flags | noATime)
                if fd < 0 && errno == EPERM && noATime != 0 { fd = open(p, flags) }
                return fd
            }
        }
        guard fd >= 0 else { throw Failure.open(errno) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure.read(errno) }
        let type = UInt32(st.st_mode) & UInt32(S_IFMT)
        guard type == UInt32(S_IFREG) else { throw Failure.notRegular(isDirectory: type == UInt32(S_IFDIR)) }
        guard Int64(st.st_size) <= Int64(limit) else { throw Failure.tooLarge(Int64(st.st_size)) }
        var out = [UInt8](repeating: 0, count: limit + 1)
        var got = 0
        while got < out.count {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure.read(errno)
            }
            if n == 0 { break }
            got += n
        }
        guard got <= limit else { throw Failure.tooLarge(Int64(got)) }
        out.removeLast(out.count - got)
        return out
    }
}
