#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The standard streams as the command line uses them: whether one is a terminal, how wide it
/// is, unbuffered writes (safe in a signal handler), and SIGQUIT as an interrupt.
public enum Terminal {
    public enum Stream: Sendable {
        case output, error
        package var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }
    }

    public static func isTerminal(_ stream: Stream) -> Bool { isatty(stream.descriptor) == 1 }

    /// The terminal's width in columns; nil when it cannot say.
    public static func columns(_ stream: Stream) -> Int? {
        var size = winsize()
        guard ioctl(stream.descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Writes `text` with one write(2), no buffering.
    public static func write(_ text: String, to stream: Stream) {
        _ = text.withCString { systemWrite(stream.descriptor, $0, strlen($0)) }
    }

    /// SIGQUIT (Ctrl-backslash) prints "sandbox-audit: error: interrupted (SIGQUIT)" on one line
    /// and exits 2, in place of the Swift runtime's crash report.
    public static func quitAsInterrupt() {
        signal(SIGQUIT) { _ in
            let line = "sandbox-audit: error: interrupted (SIGQUIT)\n"
            _ = line.withCString { systemWrite(STDERR_FILENO, $0, strlen($0)) }
            _exit(2)
        }
    }
}
