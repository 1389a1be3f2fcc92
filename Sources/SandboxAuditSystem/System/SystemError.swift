#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: the call (or the step it served, "open directory"), the path it was
/// about, and errno. The one error type of the system layer.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    package let code: Int32
    package let operation: String
    package let path: String

    package init(code: Int32 = errno, operation: String, path: String) {
        self.code = code
        self.operation = operation
        self.path = path
    }

    /// What went wrong, as the system says it (`strerror`).
    public var reason: String { String(cString: strerror(code)) }
    public var description: String { "\(operation) \(path): \(reason)" }
}
