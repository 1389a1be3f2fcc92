#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An errno value from a failed call: what the system layer throws. Callers label it with what
/// they were doing (`SystemError`), as swift-system's `Errno` is used.
package struct Errno: Error, Equatable, Sendable {
    package let code: Int32

    package init(code: Int32) {
        self.code = code
    }

    /// The current errno.
    package static var current: Errno { Errno(code: errno) }

    /// The failure as users read it: what was being done, and to what.
    package func labelled(_ operation: String, _ path: String) -> SystemError {
        SystemError(code: code, operation: operation, path: path)
    }
}

/// An open file descriptor, in the style of swift-system's `FileDescriptor`: the one door to
/// the file system for everything that is not the libattr or libarchive type. Every entry is
/// reached relative to an open directory, one name at a time, never through a symlink; the
/// descriptor is not owned (close it with `close()`).
package struct FileDescriptor: Hashable, Sendable {
    package let rawValue: Int32

    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Paths are resolved from the working directory (a whole path, for the inputs the user gives).
    package static let currentDirectory = FileDescriptor(rawValue: AT_FDCWD)

    /// How an open asks for the entry.
    package struct Access: OptionSet, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        package static let directory = Access(rawValue: O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        /// A folder the user named by a whole path: a symlink to it is followed.
        package static let namedDirectory = Access(rawValue: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        /// A file to read: no symlink followed, no blocking on a FIFO put there in a race.
        package static let reading = Access(rawValue: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        /// As `reading`, following a symlink at the last component (an input the user named).
        package static let readingFollowingSymlink = Access(rawValue: O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        /// A new file only this user can read, for writing: never an existing one.
        package static let newFile = Access(rawValue: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)
        /// A file others append to as well (a CI job summary): created when missing.
        package static let appending = Access(rawValue: O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC)
    }

    /// Opens `name` in this directory. `keepAccessTime` asks the system not to update the
    /// access time (Linux O_NOATIME), falling back to a plain open where it refuses (EPERM: not
    /// the owner).
    package func open(
        _ name: some Collection<UInt8>, _ access: Access, mode: mode_t = 0o600, keepAccessTime: Bool = false
    ) throws(Errno) -> FileDescriptor {
        try withCString(name) { cName throws(Errno) in
            try open(cString: cName, access, mode: mode, keepAccessTime: keepAccessTime)
        }
    }

    /// `open` for a name `readdir` gave, used where it is.
    func open(cString cName: UnsafePointer<CChar>, _ access: Access, mode: mode_t = 0o600, keepAccessTime: Bool = false)
        throws(Errno) -> FileDescriptor
    {
        var fd: Int32 = -1
        if keepAccessTime && Platform.noAccessTime != 0 {
            fd = retryOnInterrupt { openat(rawValue, cName, access.rawValue | Platform.noAccessTime, mode) }
            if fd < 0 && errno != EPERM { throw Errno.current }
        }
        if fd < 0 { fd = retryOnInterrupt { openat(rawValue, cName, access.rawValue, mode) } }
        guard fd >= 0 else { throw Errno.current }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens the directory `name` here: never through a symlink, access time kept where permitted.
    package func openDirectory(_ name: some Collection<UInt8>) throws(Errno) -> FileDescriptor {
        try open(name, .directory, keepAccessTime: true)
    }

    package func close() { _ = systemClose(rawValue) }

    package func duplicate() throws(Errno) -> FileDescriptor {
        let fd = dup(rawValue)
        guard fd >= 0 else { throw Errno.current }
        return FileDescriptor(rawValue: fd)
    }

    /// `fstat`.
    package func status() throws(Errno) -> FileStatus {
        var st = stat()
        guard fstat(rawValue, &st) == 0 else { throw Errno.current }
        return FileStatus(st)
    }

    /// `fstatat` of `name` here, not following a symlink.
    package func status(of name: some Collection<UInt8>) throws(Errno) -> FileStatus {
        try withCString(name) { cName throws(Errno) in try status(ofCString: cName) }
    }

    package func status(ofCString cName: UnsafePointer<CChar>, followSymlink: Bool = false) throws(Errno) -> FileStatus
    {
        var st = stat()
        guard fstatat(rawValue, cName, &st, followSymlink ? 0 : AT_SYMLINK_NOFOLLOW) == 0 else { throw Errno.current }
        return FileStatus(st)
    }

    /// `fstatat` of `name` here, following a symlink at its last component (an input the user
    /// named may be a symlink to it).
    package func status(following name: some Collection<UInt8>) throws(Errno) -> FileStatus {
        try withCString(name) { cName throws(Errno) in try status(ofCString: cName, followSymlink: true) }
    }

    /// Sets the permission bits (best effort where said).
    package func setPermissions(_ mode: mode_t) throws(Errno) {
        guard retryOnInterrupt({ fchmod(rawValue, mode) }) == 0 else { throw Errno.current }
    }

    /// Sets the modification time (the access time to now).
    package func setTimes(_ times: FileTimes) throws(Errno) {
        var values = times.values
        guard futimens(rawValue, &values) == 0 else { throw Errno.current }
    }

    /// Bytes free to this user on the descriptor's file system; nil when it cannot say.
    package func freeBytes() -> Int64? {
        var fs = statvfs()
        guard fstatvfs(rawValue, &fs) == 0 else { return nil }
        return Int64(truncatingIfNeeded: UInt64(fs.f_bavail) &* UInt64(fs.f_frsize))
    }
}

/// close(2), named so that `FileDescriptor.close()` can call it.
@inline(__always)
private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
        return Glibc.close(fd)
    #else
        return Darwin.close(fd)
    #endif
}

/// Runs system-layer calls and labels a failure with what was being done and to what.
package func attempt<T>(_ operation: String, _ path: @autoclosure () -> String, _ body: () throws(Errno) -> T)
    throws(SystemError) -> T
{
    do { return try body() } catch { throw error.labelled(operation, path()) }
}
