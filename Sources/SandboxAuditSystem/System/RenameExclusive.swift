import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileDescriptor {
    /// Renames `name` (in this folder) to `newName` in `directory`, never replacing what
    /// `newName` holds: renameat2(2) with RENAME_NOREPLACE on Linux, renameatx_np(2) with
    /// RENAME_EXCL on Darwin. EEXIST when `newName` exists; ENOSYS or EINVAL where the kernel or
    /// the file system has no such rename (the caller then falls back).
    package func renameExclusive(
        _ name: some Collection<UInt8>, to newName: some Collection<UInt8>, in directory: FileDescriptor
    ) throws(Errno) {
        let rc = withCString(name) { o in
            withCString(newName) { n in
                retryOnInterrupt { sandbox_audit_rename_noreplace(rawValue, o, directory.rawValue, n) }
            }
        }
        guard rc == 0 else { throw Errno.current }
    }
}
