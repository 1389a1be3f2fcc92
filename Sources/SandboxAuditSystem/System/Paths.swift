#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole paths, for the inputs the user names (everything below an input is reached through
/// descriptors).
package enum Paths {
    /// The absolute path with every symlink resolved (realpath(3)); nil when it cannot be.
    package static func real(_ path: some Collection<UInt8>) -> [UInt8]? {
        guard let r = withCString(path, { realpath($0, nil) }) else { return nil }
        defer { free(r) }
        return Array(
            UnsafeBufferPointer(start: UnsafeRawPointer(r).assumingMemoryBound(to: UInt8.self), count: strlen(r)))
    }

    /// Why this user cannot list and enter the folder at `path` (access(2) R_OK|X_OK); nil when it can.
    package static func cannotList(_ path: String) -> Errno? {
        access(path, R_OK | X_OK) == 0 ? nil : Errno.current
    }
}
