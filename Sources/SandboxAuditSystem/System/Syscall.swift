#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Calls `body` again for as long as it fails with EINTR: a signal arrived before the call
/// could complete (the materialiser's handlers do not ask for calls to be restarted, and not
/// every system restarts them). The one retry loop of the tool.
@inline(__always)
package func retryOnInterrupt<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result < 0 && errno == EINTR { continue }
        return result
    }
}

/// `name` as a NUL-terminated C string for the duration of `body`.
package func withCString<R, E: Error>(_ name: some Collection<UInt8>, _ body: (UnsafePointer<CChar>) throws(E) -> R)
    throws(E) -> R
{
    try (Array(name) + [0]).withUnsafeBufferPointer { p throws(E) in
        try p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { c throws(E) in try body(c) }
    }
}

/// The message of an errno value ("No such file or directory").
package func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

/// read(2) and write(2), named apart from the methods called `read` and `write` around them.
#if canImport(Glibc)
    @inline(__always) package func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Glibc.read(fd, buffer, count)
    }
    @inline(__always) package func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        Glibc.write(fd, buffer, count)
    }
#else
    @inline(__always) package func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        Darwin.read(fd, buffer, count)
    }
    @inline(__always) package func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        Darwin.write(fd, buffer, count)
    }
#endif
