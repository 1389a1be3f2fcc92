import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a directory descriptor does with the names in it: list them, make, link, rename and
/// remove entries, read a link, set an entry's times. Each name is one component.
extension FileDescriptor {
    /// Calls `body` with each name in this directory (not `.` and `..`), as the C string
    /// `readdir` returned and as bytes; both are valid only during the call. Returns the error
    /// that ended the listing early, if any.
    @discardableResult
    package func forEachName(_ body: (UnsafePointer<CChar>, UnsafeBufferPointer<UInt8>) throws -> Void) rethrows
        -> Errno?
    {
        let copy = dup(rawValue)
        guard copy >= 0, let dir = fdopendir(copy) else {
            let e = Errno.current
            if copy >= 0 { FileDescriptor(rawValue: copy).close() }
            return e
        }
        defer { closedir(dir) }
        while true {
            errno = 0
            guard let ent = readdir(dir) else { return errno == 0 ? nil : Errno.current }
            let cName = UnsafeRawPointer(ent).advanced(by: MemoryLayout<dirent>.offset(of: \dirent.d_name)!)
                .assumingMemoryBound(to: CChar.self)
            let name = UnsafeBufferPointer(
                start: UnsafeRawPointer(cName).assumingMemoryBound(to: UInt8.self), count: strlen(cName))
            if name.count <= 2, name[0] == UInt8(ascii: "."), name.count == 1 || name[1] == UInt8(ascii: ".") {
                continue
            }
            try body(cName, name)
        }
    }

    /// The names in this directory, without `.` and `..`.
    package func names() throws(Errno) -> [[UInt8]] {
        var names: [[UInt8]] = []
        if let failure = forEachName({ _, name in names.append(Array(name)) }) { throw failure }
        return names
    }

    package func makeDirectory(_ name: some Collection<UInt8>, mode: mode_t) throws(Errno) {
        guard withCString(name, { n in retryOnInterrupt { mkdirat(rawValue, n, mode) } }) == 0 else {
            throw Errno.current
        }
    }

    package func makeFIFO(_ name: some Collection<UInt8>, mode: mode_t) throws(Errno) {
        guard withCString(name, { n in retryOnInterrupt { mkfifoat(rawValue, n, mode) } }) == 0 else {
            throw Errno.current
        }
    }

    package func makeSymlink(_ name: some Collection<UInt8>, target: some Collection<UInt8>) throws(Errno) {
        guard
            withCString(target, { t in withCString(name) { n in retryOnInterrupt { symlinkat(t, rawValue, n) } } }) == 0
        else { throw Errno.current }
    }

    /// A hard link `name` here to `existing` in the directory `from`.
    package func makeLink(_ name: some Collection<UInt8>, to existing: some Collection<UInt8>, in from: FileDescriptor)
        throws(Errno)
    {
        let rc = withCString(existing) { e in
            withCString(name) { n in retryOnInterrupt { linkat(from.rawValue, e, rawValue, n, 0) } }
        }
        guard rc == 0 else { throw Errno.current }
    }

    /// Renames `name` here to `newName` in `directory` (renameat(2): replaces an empty folder in one step).
    package func rename(
        _ name: some Collection<UInt8>, to newName: some Collection<UInt8>, in directory: FileDescriptor
    ) throws(Errno) {
        let rc = withCString(name) { o in
            withCString(newName) { n in retryOnInterrupt { renameat(rawValue, o, directory.rawValue, n) } }
        }
        guard rc == 0 else { throw Errno.current }
    }

    /// Removes `name` here: a folder (empty) or anything else.
    package func remove(_ name: some Collection<UInt8>, isDirectory: Bool) throws(Errno) {
        guard withCString(name, { unlinkat(rawValue, $0, isDirectory ? AT_REMOVEDIR : 0) }) == 0 else {
            throw Errno.current
        }
    }

    /// Sets the modification time of `name` here (the access time to now), not following a symlink.
    package func setTimes(of name: some Collection<UInt8>, _ times: FileTimes) throws(Errno) {
        var values = times.values
        guard withCString(name, { utimensat(rawValue, $0, &values, AT_SYMLINK_NOFOLLOW) }) == 0 else {
            throw Errno.current
        }
    }

    /// The target of the symlink `name` here, as stored; `size` is its `st_size` (a first guess:
    /// the buffer grows to 1 MiB when the link changed meanwhile).
    package func readLink(_ name: some Collection<UInt8>, size: Int) throws(Errno) -> [UInt8] {
        try withCString(name) { cName throws(Errno) in try readLink(cString: cName, size: size) }
    }

    package func readLink(cString cName: UnsafePointer<CChar>, size: Int) throws(Errno) -> [UInt8] {
        var capacity = max(size + 1, 256)
        while capacity <= 1 << 20 {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let n = buffer.withUnsafeMutableBytes {
                readlinkat(rawValue, cName, $0.baseAddress!.assumingMemoryBound(to: CChar.self), capacity)
            }
            if n < 0 { throw Errno.current }
            if n < capacity { return Array(buffer[0..<n]) }
            capacity *= 2
        }
        throw Errno(code: ENAMETOOLONG)
    }
}

/// Folders below a folder held open, reached by a relative path that no symlink may redirect
/// (a Simulator device set: `UDID/data/Containers/Data/Application`).
extension FileDescriptor {
    /// Opens the folder at `path` inside this directory (components joined by `/`, none empty,
    /// `.` or `..`), never through a symlink at any component and never above this directory:
    /// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has it (Linux 5.6),
    /// else (ENOSYS, or EPERM from a filter hiding the call, and on macOS) one component at a
    /// time, each opened from its parent's descriptor with O_NOFOLLOW. A component that is a
    /// symlink fails with ELOOP (openat2 may say EXDEV), one that is not a folder with ENOTDIR.
    /// The access time is kept where permitted.
    package func openDirectory(beneath path: String) throws(Errno) -> FileDescriptor {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw Errno(code: EINVAL)
        }
        let flags = FileDescriptor.Access.directory.rawValue
        var fd: Int32 = -1
        if Platform.noAccessTime != 0 {
            fd = retryOnInterrupt { sandbox_audit_openat2_beneath(rawValue, path, flags | Platform.noAccessTime) }
        }
        if fd < 0 && (Platform.noAccessTime == 0 || errno == EPERM) {
            fd = retryOnInterrupt { sandbox_audit_openat2_beneath(rawValue, path, flags) }
        }
        if fd >= 0 { return FileDescriptor(rawValue: fd) }
        guard errno == ENOSYS || errno == EPERM else { throw Errno.current }
        return try openDirectory(componentwise: parts.map { Array($0.utf8) })
    }

    /// `openDirectory(beneath:)` one component at a time, each with O_NOFOLLOW from its
    /// parent's descriptor (what it does where openat2 is missing).
    package func openDirectory(componentwise parts: [[UInt8]]) throws(Errno) -> FileDescriptor {
        guard !parts.isEmpty else { throw Errno(code: EINVAL) }
        var current = self
        for (i, part) in parts.enumerated() {
            guard !part.isEmpty, part != [UInt8(ascii: ".")], part != [UInt8(ascii: "."), UInt8(ascii: ".")] else {
                if i > 0 { current.close() }
                throw Errno(code: EINVAL)
            }
            let next: FileDescriptor
            do { next = try current.openDirectory(part) } catch {
                if i > 0 { current.close() }
                throw error
            }
            if i > 0 { current.close() }
            current = next
        }
        return current
    }
}
