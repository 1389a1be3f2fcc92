#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading a small regular file whole, relative to an open directory.
extension FileDescriptor {
    /// Up to `limit` bytes of the regular file `name` in this directory, opened for reading: no
    /// symlink followed, no blocking on a FIFO put there in a race, the access time kept where
    /// permitted; anything but a regular file is refused after opening (EINVAL). A failure says
    /// "open" or "read" and the name.
    package func readFile(cString cName: UnsafePointer<CChar>, limit: Int) throws(SystemError) -> [UInt8] {
        let fd: FileDescriptor
        do { fd = try open(cString: cName, .reading, keepAccessTime: true) } catch {
            throw error.labelled("open", String(cString: cName))
        }
        defer { fd.close() }
        guard let status = try? fd.status(), status.kind == .regular else {
            throw SystemError(code: EINVAL, operation: "open", path: String(cString: cName))
        }
        do { return try fd.read(upTo: limit, expectedSize: status.size) } catch {
            throw error.labelled("read", String(cString: cName))
        }
    }

    package func readFile(_ name: some Collection<UInt8>, limit: Int) throws(SystemError) -> [UInt8] {
        try withCString(name) { cName throws(SystemError) in try readFile(cString: cName, limit: limit) }
    }
}
