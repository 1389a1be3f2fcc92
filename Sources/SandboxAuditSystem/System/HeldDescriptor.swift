#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An input opened once, when it is located, and held for the rest of the run: every later
/// read of it (the walk, the content rules, `simulate --into`) goes through this descriptor or
/// a duplicate of it, never through its name again, so that a name swapped meanwhile for
/// another folder, file or symlink changes nothing that is read. Closed when the last value
/// holding it goes.
package final class HeldDescriptor: Sendable {
    package let descriptor: FileDescriptor

    package init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

    deinit { descriptor.close() }

    /// The folder at `path` (a whole path; its last component not followed), opened with the
    /// access time kept where permitted.
    package static func directory(_ path: some Collection<UInt8>) throws(Errno) -> HeldDescriptor {
        HeldDescriptor(try FileDescriptor.currentDirectory.openDirectory(path))
    }

    /// The folder `name` in the held folder `parent`, never through a symlink.
    package static func directory(_ name: some Collection<UInt8>, in parent: HeldDescriptor) throws(Errno)
        -> HeldDescriptor
    {
        HeldDescriptor(try parent.descriptor.openDirectory(name))
    }

    /// The regular file at `path` (a whole path; its last component not followed, no blocking
    /// on a FIFO put there in a race, the access time kept where permitted). Anything that is
    /// not a regular file once open is refused (EINVAL), and so is one that cannot seek back to
    /// its start (ESPIPE), so that it can be read again from its first byte.
    package static func regularFile(_ path: some Collection<UInt8>) throws(Errno) -> HeldDescriptor {
        let held = HeldDescriptor(try FileDescriptor.currentDirectory.open(path, .reading, keepAccessTime: true))
        guard try held.descriptor.status().kind == .regular else { throw Errno(code: EINVAL) }
        _ = try held.descriptor.seek(0, from: SEEK_SET)
        return held
    }

    /// A new descriptor of the same folder (`.` opened in it: no name looked up again), with a
    /// listing position of its own. The caller closes it.
    package func reopenedDirectory() throws(Errno) -> FileDescriptor {
        try descriptor.openDirectory(".".utf8)
    }

    /// A new descriptor of the same open file, positioned at its start: the whole file read
    /// again, whatever its name leads to by now. The caller closes it.
    package func rewound() throws(Errno) -> FileDescriptor {
        let copy = try descriptor.duplicate()
        do { _ = try copy.seek(0, from: SEEK_SET) } catch {
            copy.close()
            throw error
        }
        return copy
    }
}
