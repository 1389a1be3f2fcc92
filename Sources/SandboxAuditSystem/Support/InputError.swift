/// A problem with what the user asked for: a missing path, a file that is not a container,
/// a malformed option. The CLI prints it on one line and exits 2.
public struct InputError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
