#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads small input files (identity plists, sidecars, policy files) whole, with a size limit:
/// opened non-blocking (a FIFO put in place never hangs the tool), refused unless a regular
/// file after opening, without updating the access time where permitted (Linux O_NOATIME),
/// and never more than `limit` + 1 bytes read (so the caller can tell "over the limit").
package enum BoundedRead {
    package enum Failure: Error, CustomStringConvertible {
        case open(Int32)
        case notRegular(isDirectory: Bool)
        case tooLarge(Int64)
        case read(Int32)
        package var description: String {
            switch self {
            case .open(let e), .read(let e): return String(cString: strerror(e))
            case .notRegular(let dir): return dir ? "is a directory" : "is not a regular file"
            case .tooLarge(let n): return "is \(n) bytes, over the limit"
            }
        }
    }

    /// The file's bytes; throws `Failure` when it cannot be opened, is not a regular file or is
    /// larger than `limit`.
    package static func file(_ path: [UInt8], limit: Int, followSymlink: Bool) throws -> [UInt8] {
        let cwd = FileDescriptor.currentDirectory
        let fd: FileDescriptor
        switch Result(catching: { () throws(Errno) in
            try cwd.open(path, followSymlink ? .readingFollowingSymlink : .reading, keepAccessTime: true)
        }) {
        case .success(let opened): fd = opened
        case .failure(let e): throw Failure.open(e.code)
        }
        defer { fd.close() }
        return try read(fd, limit: limit)
    }

    /// `file` for the entry `name` of an open directory, never through a symlink: what a walk that
    /// holds each folder open reads its files with.
    package static func file(named name: some Collection<UInt8>, in directory: FileDescriptor, limit: Int) throws
        -> [UInt8]
    {
        let fd: FileDescriptor
        switch Result(catching: { () throws(Errno) in try directory.open(name, .reading, keepAccessTime: true) }) {
        case .success(let opened): fd = opened
        case .failure(let e): throw Failure.open(e.code)
        }
        defer { fd.close() }
        return try read(fd, limit: limit)
    }

    private static func read(_ fd: FileDescriptor, limit: Int) throws -> [UInt8] {
        let status: FileStatus
        switch Result(catching: { () throws(Errno) in try fd.status() }) {
        case .success(let s): status = s
        case .failure(let e): throw Failure.read(e.code)
        }
        guard status.kind == .regular else { throw Failure.notRegular(isDirectory: status.kind == .directory) }
        guard status.size <= Int64(limit) else { throw Failure.tooLarge(status.size) }
        let bytes: [UInt8]
        switch Result(catching: { () throws(Errno) in try fd.read(upTo: limit + 1, expectedSize: status.size) }) {
        case .success(let b): bytes = b
        case .failure(let e): throw Failure.read(e.code)
        }
        guard bytes.count <= limit else { throw Failure.tooLarge(Int64(bytes.count)) }
        return bytes
    }
}
