import Foundation
import SandboxAuditRules
import SandboxAuditSystem

/// A baseline or scan report read back (`scan --baseline`, `compare`): the file read once through
/// one descriptor, refused early when it cannot be JSON; then read in one pass by `JSONReader`
/// into the documented fields and types (`ReportDocument`), each number an exact integer.
///
/// Why not Foundation: `JSONSerialization` builds a tree of boxed objects, 40–67 times the file's
/// size, and reads a number that does not fit (2^64, 10^40) as 0, 1.5 or `true` as 1; `JSONDecoder`
/// keeps a map of the whole text (about 3.5 times the file) and a 200,000-file baseline cost
/// `compare` 909 MB. Read by `JSONReader`, a document costs its bytes and the compact columns kept.
package enum JSONDocument {
    /// The largest file read. A 200,000-file container's baseline is 54 MB; at this limit the
    /// reading holds the file's bytes and its columns, under 1 GB (docs/limits.md).
    package static let maximumSize = 512 << 20
    static let chunk = 1 << 20

    /// Why a file was not read, in words that follow its name.
    package enum Refusal: Error, CustomStringConvertible {
        case unreadable(String)
        case notJSON(String)
        package var description: String {
            switch self {
            case .unreadable(let why), .notJSON(let why): return why
            }
        }
    }

    /// The bytes of `location`, read up to `limit`: only a regular file, opened non-blocking,
    /// without following nothing but the user's own path (a symlink the user named is followed).
    /// Refused as soon as a byte shows it is not JSON: the first byte that is not white space
    /// must open an object, and JSON text holds no control byte but tab, line feed and carriage
    /// return (inside strings they are escaped), so a sparse file of zeros or a binary file is
    /// refused at its first chunk, before the rest is read.
    package static func read(_ location: String, limit: Int = maximumSize) throws(Refusal) -> [UInt8] {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.currentDirectory.open(
                Array(location.utf8), .readingFollowingSymlink, keepAccessTime: true)
        } catch {
            throw .unreadable(String(cString: strerror(error.code)))
        }
        defer { fd.close() }
        let status: FileStatus
        do { status = try fd.status() } catch { throw .unreadable(String(cString: strerror(error.code))) }
        guard status.kind == .regular else {
            throw .unreadable(status.kind == .directory ? "is a directory" : "is not a regular file")
        }
        guard status.size <= Int64(limit) else {
            throw .unreadable("is \(status.size) bytes, over the limit of \(limit) bytes")
        }
        var data: [UInt8] = []
        data.reserveCapacity(Int(status.size) + chunk)
        var sawStart = false
        while true {
            let offset = data.count
            let n: Int
            switch Result(catching: { () throws(Errno) in try fd.read(appendingTo: &data, count: chunk) }) {
            case .success(let count): n = count
            case .failure(let e): throw .unreadable(String(cString: strerror(e.code)))
            }
            if n == 0 { break }
            guard offset + n <= limit else { throw .unreadable("is over the limit of \(limit) bytes") }
            if !sawStart, let i = JSONReader.firstNonSpace(in: data[offset..<(offset + n)]) {
                let b = data[i]
                if b < 0x20 {
                    throw .notJSON("it holds the byte 0x\(ByteText.hex(b)) at offset \(i), which JSON text never does")
                }
                guard b == UInt8(ascii: "{") else {
                    throw .notJSON("it does not begin with a JSON object (its first byte is 0x\(ByteText.hex(b)))")
                }
                sawStart = true
            }
            if let i = JSONReader.firstForbiddenByte(in: data[offset..<(offset + n)]) {
                throw .notJSON(
                    "it holds the byte 0x\(ByteText.hex(data[i])) at offset \(i), which JSON text never does")
            }
        }
        guard sawStart else { throw .notJSON(data.isEmpty ? "it is empty" : "it holds only white space") }
        return data
    }
}
