#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with the call and the path it was about.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let operation: String
    public let path: String

    public init(code: Int32 = errno, operation: String, path: String) {
        self.code = code
        self.operation = operation
        self.path = path
    }

    public var reason: String { String(cString: strerror(code)) }
    public var description: String { "\(operation) \(path): \(reason)" }
}

/// A problem with what the user asked for: a missing path, a file that is not a container,
/// a malformed option. The CLI prints it on one line and exits 2.
public struct InputError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
