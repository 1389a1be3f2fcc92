import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading and writing an open file's bytes.
extension FileDescriptor {
    /// Up to `limit` bytes from the current offset (to the end when shorter), read in place into
    /// the result: a buffer of the expected size and one byte more (to see the end), filled until
    /// the end, then 64 KiB more at a time while the file goes on.
    package func read(upTo limit: Int, expectedSize: Int64 = 0) throws(Errno) -> [UInt8] {
        let chunk = 64 * 1024
        let expected = expectedSize < Int64(limit) ? Int(max(expectedSize, 0)) + 1 : limit
        var out = [UInt8]()
        var failure: Errno?
        var atEnd = false
        while out.count < limit, !atEnd {
            let want = min(limit - out.count, out.isEmpty ? max(expected, chunk) : chunk)
            let piece = [UInt8](unsafeUninitializedCapacity: want) { buffer, count in
                while count < want {
                    let n = retryOnInterrupt { systemRead(rawValue, buffer.baseAddress! + count, want - count) }
                    if n < 0 {
                        failure = Errno.current
                        return
                    }
                    if n == 0 {
                        atEnd = true
                        return
                    }
                    count += n
                }
            }
            if let failure { throw failure }
            if out.isEmpty { out = piece } else { out.append(contentsOf: piece) }
        }
        return out
    }

    /// Reads into `buffer` at the current offset; the count read (0 at the end).
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        let n = retryOnInterrupt { systemRead(rawValue, buffer.baseAddress!, buffer.count) }
        guard n >= 0 else { throw Errno.current }
        return n
    }

    /// lseek(2): the new offset. `whence` is SEEK_SET, SEEK_CUR or SEEK_END.
    package func seek(_ offset: Int64, from whence: Int32) throws(Errno) -> Int64 {
        let r = lseek(rawValue, off_t(offset), whence)
        guard r >= 0 else { throw Errno.current }
        return Int64(r)
    }

    /// Reads into `buffer` at `offset`; the count read (0 at the end).
    package func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        let n = retryOnInterrupt { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
        guard n >= 0 else { throw Errno.current }
        return n
    }

    /// Writes all of `bytes` at `offset`, through short writes; a write of nothing is ENOSPC.
    package func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(Errno) {
        var done = 0
        while done < bytes.count {
            let n = retryOnInterrupt {
                pwrite(rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            if n < 0 { throw Errno.current }
            guard n > 0 else { throw Errno(code: ENOSPC) }
            done += n
        }
    }

    /// Writes all of `bytes` at the current offset, through short writes.
    package func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var done = 0
        while done < bytes.count {
            let n = retryOnInterrupt { systemWrite(rawValue, bytes.baseAddress! + done, bytes.count - done) }
            if n < 0 { throw Errno.current }
            guard n > 0 else { throw Errno(code: ENOSPC) }
            done += n
        }
    }

    /// The next data segment at or after `offset` (SEEK_DATA) and the hole that ends it
    /// (SEEK_HOLE); nil when only a hole is left. Where the system cannot tell, the whole rest
    /// up to `size` is one segment.
    package func dataSegment(from offset: Int64, size: Int64) -> Range<Int64>? {
        guard Platform.seekData >= 0 else { return offset..<size }
        var data = Int64(lseek(rawValue, off_t(offset), Platform.seekData))
        if data < 0 {
            if errno == ENXIO { return nil }
            data = offset
        }
        var hole = Int64(lseek(rawValue, off_t(data), Platform.seekHole))
        if hole < 0 { hole = size }
        return data..<max(data, hole)
    }

    /// Copies up to `count` bytes from `source` at `inOffset` to this file at `outOffset` in the
    /// kernel (copy_file_range: a reflink where the file system can). Returns the count copied
    /// (0 at the source's end); throws ENOSYS, EXDEV … where it cannot work here.
    package func copy(from source: FileDescriptor, at inOffset: inout Int64, to outOffset: inout Int64, count: Int)
        throws(Errno) -> Int
    {
        var i = off_t(inOffset)
        var o = off_t(outOffset)
        let n = retryOnInterrupt { sandbox_audit_copy_file_range(source.rawValue, &i, rawValue, &o, count) }
        guard n >= 0 else { throw Errno.current }
        inOffset = Int64(i)
        outOffset = Int64(o)
        return n
    }

    package func truncate(to size: Int64) throws(Errno) {
        guard retryOnInterrupt({ ftruncate(rawValue, off_t(size)) }) == 0 else { throw Errno.current }
    }
}
