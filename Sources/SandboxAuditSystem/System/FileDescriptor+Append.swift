import CSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Zeros appended to make room for a read (appending a `repeatElement` is a generic loop, a
/// hundred times slower in a debug build).
private let appendRoom = [UInt8](repeating: 0, count: 1 << 20)

extension FileDescriptor {
    /// Reads up to `count` bytes at the current offset onto the end of `bytes` (grown in place);
    /// the count read, 0 at the end of the file.
    package func read(appendingTo bytes: inout [UInt8], count: Int) throws(Errno) -> Int {
        guard count > 0 else { return 0 }
        let old = bytes.count
        var failure: Errno?
        var got = 0
        var left = count
        while left > 0 {
            let n = min(left, appendRoom.count)
            if n == appendRoom.count {
                bytes.append(contentsOf: appendRoom)
            } else {
                bytes.append(contentsOf: appendRoom[..<n])
            }
            left -= n
        }
        bytes.withUnsafeMutableBufferPointer { b in
            let n = retryOnInterrupt { systemRead(rawValue, b.baseAddress! + old, count) }
            if n < 0 { failure = Errno.current } else { got = n }
        }
        bytes.removeLast(count - got)
        if let failure { throw failure }
        return got
    }
}
