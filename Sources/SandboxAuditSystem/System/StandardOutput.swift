import Foundation

/// Standard output written as bytes, as they are and without a copy (no `print` buffering
/// surprises on large outputs), and the process's arguments as the bytes it was given.
package enum StandardOutput {
    /// Writes the string's own UTF-8 bytes (a large report is not copied once more).
    package static func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    package static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(
            Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
    }
}

package enum ProcessArguments {
    /// Every argument as the bytes the process was given (argv), the program's name first.
    package static let bytes: [[UInt8]] = (0..<Int(CommandLine.argc)).map { i in
        guard let p = CommandLine.unsafeArgv[i] else { return [] }
        return Array(
            UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p)))
    }
}
