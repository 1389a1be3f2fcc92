import Foundation
import SandboxAuditSystem

/// A baseline or scan report read back (`scan --baseline`, `compare`): the file read once through
/// one descriptor, refused early when it cannot be JSON, then decoded by Foundation's
/// `JSONDecoder` into the documented fields and types, each number an exact integer.
///
/// Why not `JSONSerialization`: it builds a tree of boxed objects, 40–67 times the file's size,
/// and reads a number that does not fit (2^64, 10^40) as 0, 1.5 or `true` as 1, `"yes"` as
/// false, an object where an array was expected as nothing. `JSONDecoder` keeps one compact map
/// of the text (measured: about 3.5 times the file, the decoded values included) and refuses a
/// value of another type with the field's path; numbers are read as `Decimal` (exact to 38
/// digits) and taken only when they are integers in range, so that every one names its field.
package enum JSONDocument {
    /// The largest file read. A 200,000-file container's baseline is 54 MB; at this limit the
    /// decoding holds at most about 1.8 GB (docs/limits.md).
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
    package static func read(_ location: String, limit: Int = maximumSize) throws(Refusal) -> Data {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.currentDirectory.open(Array(location.utf8), .readingFollowingSymlink, keepAccessTime: true) } catch {
            throw .unreadable(String(cString: strerror(error.code)))
        }
        defer { fd.close() }
        let status: FileStatus
        do { status = try fd.status() } catch { throw .unreadable(String(cString: strerror(error.code))) }
        guard status.kind == .regular else { throw .unreadable(status.kind == .directory ? "is a directory" : "is not a regular file") }
        guard status.size <= Int64(limit) else { throw .unreadable("is \(status.size) bytes, over the limit of \(limit) bytes") }
        var data = Data()
        data.reserveCapacity(Int(status.size))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 8)
        defer { buffer.deallocate() }
        var sawStart = false
        var offset = 0
        while true {
            let n: Int
            switch Result(catching: { () throws(Errno) in try fd.read(into: buffer) }) {
            case .success(let count): n = count
            case .failure(let e): throw .unreadable(String(cString: strerror(e.code)))
            }
            if n == 0 { break }
            guard offset + n <= limit else { throw .unreadable("is over the limit of \(limit) bytes") }
            for i in 0..<n {
                let b = buffer[i]
                if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D {
                    throw .notJSON("it holds the byte 0x\(ByteText.hex(b)) at offset \(offset + i), which JSON text never does")
                }
                if !sawStart, b != 0x20, b != 0x09, b != 0x0A, b != 0x0D {
                    guard b == UInt8(ascii: "{") else {
                        throw .notJSON("it does not begin with a JSON object (its first byte is 0x\(ByteText.hex(b)))")
                    }
                    sawStart = true
                }
            }
            data.append(buffer.bindMemory(to: UInt8.self).baseAddress!, count: n)
            offset += n
        }
        guard sawStart else { throw .notJSON(offset == 0 ? "it is empty" : "it holds only white space") }
        return data
    }

    /// `T` decoded from `data`; a value of the wrong type, a number that is not an exact integer
    /// in range, a missing field: one phrase naming the field (`files[3].size is not …`).
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch let e as DecodingError {
            throw Refusal.notJSON(describe(e))
        }
    }

    /// The field a coding path leads to, as JSON paths are written (`files[3].size`).
    static func field(_ path: [any CodingKey]) -> String {
        var out = ""
        for k in path {
            if let i = k.intValue { out += "[\(i)]" } else { out += (out.isEmpty ? "" : ".") + k.stringValue }
        }
        return out.isEmpty ? "the document" : TerminalText.escaped(out)
    }

    static func describe(_ e: DecodingError) -> String {
        switch e {
        case .typeMismatch(let type, let c):
            let expected: String
            switch type {
            case is Bool.Type: expected = "true or false"
            case is String.Type: expected = "a string"
            case is Decimal.Type, is Int64.Type, is Int.Type, is UInt64.Type: expected = "an integer"
            case is [Any].Type: expected = "an array"
            default: expected = String(describing: type).hasPrefix("Array") ? "an array" : "an object"
            }
            return "\(field(c.codingPath)) is not \(expected)"
        case .valueNotFound(_, let c):
            return "\(field(c.codingPath)) is null"
        case .keyNotFound(let key, let c):
            return "\(field(c.codingPath + [key])) is missing"
        case .dataCorrupted(let c):
            if c.codingPath.isEmpty { return "it is not valid JSON (or holds a number beyond Decimal's range)" }
            return "\(field(c.codingPath)) \(c.debugDescription)"
        @unknown default:
            return "it cannot be read: \(e)"
        }
    }
}

/// A number the formats document as an integer: read exactly, refused (naming its field)
/// unless it is an integer in `range`.
package struct ExactInteger: Decodable, Sendable {
    package let value: Int64

    /// Sizes, counts, footprints: byte counts, so that every difference fits.
    static let byteCount: ClosedRange<Int64> = 0...Int64.max

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        // Most numbers fit: read as Int64 first (2.7 times faster than as Decimal); what does not
        // fit or is not an integer is read again exactly, to say why.
        if let n = try? c.decode(Int64.self) {
            value = n
            return
        }
        let d = try c.decode(Decimal.self)
        let text = d.description
        guard let n = Int64(text) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "is not an integer from -2^63 to 2^63−1 (\(text.count > 40 ? String(text.prefix(40)) + "…" : text))")
        }
        value = n
    }
}

extension KeyedDecodingContainer {
    /// A byte count (0…2^63−1), 0 when the key is absent or null.
    func byteCount(_ key: Key) throws -> Int64 {
        guard let n = try decodeIfPresent(ExactInteger.self, forKey: key)?.value else { return 0 }
        guard n >= 0 else { throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "is negative (\(n))") }
        return n
    }

    /// A byte count that may be absent (nil).
    func optionalByteCount(_ key: Key) throws -> Int64? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try byteCount(key)
    }
}
