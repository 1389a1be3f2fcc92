#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads and writes of arrays' bytes at an offset: what the stages above use instead of a
/// raw buffer (the arrays' memory is reached here only).
extension FileDescriptor {
    /// pread(2) into `bytes[range]`; the count read (0 at the end).
    package func read(into bytes: inout [UInt8], range: Range<Int>, at offset: Int64) throws(Errno) -> Int {
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count)
        if range.isEmpty { return 0 }
        var result: Result<Int, Errno> = .success(0)
        bytes.withUnsafeMutableBytes { b in
            result = Result { () throws(Errno) in
                try read(into: UnsafeMutableRawBufferPointer(rebasing: b[range]), at: offset)
            }
        }
        return try result.get()
    }

    /// Writes all of `bytes` at `offset`, through short writes; a write of nothing is ENOSPC.
    package func writeAll(_ bytes: ArraySlice<UInt8>, at offset: Int64) throws(Errno) {
        var result: Result<Void, Errno> = .success(())
        bytes.withUnsafeBytes { b in
            result = Result { () throws(Errno) in try writeAll(b, at: offset) }
        }
        try result.get()
    }
}
