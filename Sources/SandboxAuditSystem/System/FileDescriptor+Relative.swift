#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads at chosen offsets of a file held open for a whole run (a backup's `Manifest.db` and
/// `XX/FILEID` files): only the bytes needed, never the rest.
extension FileDescriptor {
    /// Fills `buffer` from `offset` through short reads; fewer bytes only at the end of the file.
    /// The count read.
    package func read(filling buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        var done = 0
        while done < buffer.count {
            let n = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + Int64(done))
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file).
    package func read(count: Int, at offset: Int64) throws(Errno) -> [UInt8] {
        var failure: Errno?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(Errno) {
                initialized = try read(filling: UnsafeMutableRawBufferPointer(buffer), at: offset)
            } catch { failure = error }
        }
        if let failure { throw failure }
        return bytes
    }
}

/// The process environment as the system holds it: bytes, which need not be UTF-8.
package enum Environment {
    /// The value of `name` byte for byte (getenv), nil when unset.
    package static func bytes(_ name: String) -> [UInt8]? {
        guard let value = getenv(name) else { return nil }
        return Array(
            UnsafeBufferPointer(
                start: UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self), count: strlen(value)))
    }
}
