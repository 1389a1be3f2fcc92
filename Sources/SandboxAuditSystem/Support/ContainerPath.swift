import Foundation

/// A path relative to the data root, `/`-separated, kept as raw bytes.
///
/// File names on Linux are byte strings; a container copied from a device may hold names
/// that are not valid UTF-8. Keeping bytes makes every output lossless: `display` renders
/// invalid bytes as `\xHH`, and `base64` carries the exact bytes for machine formats.
/// The empty path is the data root itself.
public struct ContainerPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }
    package init(_ string: String) { self.bytes = Array(string.utf8) }

    package static let root = ContainerPath(bytes: [])

    package var isRoot: Bool { bytes.isEmpty }

    /// The path components (the root has none).
    package var components: [ArraySlice<UInt8>] {
        bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
    }

    /// The first `n` components (fewer when the path is shorter), without splitting the rest:
    /// paths in deep trees run to many kilobytes.
    package func leadingComponents(_ n: Int) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        while out.count < n, start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            if end > start { out.append(bytes[start..<end]) }
            start = end + 1
        }
        return out
    }

    /// The number of components.
    package var depth: Int {
        if isRoot { return 0 }
        return bytes.withUnsafeBufferPointer { b in
            var n = 1
            for byte in b where byte == UInt8(ascii: "/") { n += 1 }
            return n
        }
    }

    // Hashing and equality over raw memory: paths in deep trees run to many kilobytes.
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    public static func == (lhs: ContainerPath, rhs: ContainerPath) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        if lhs.bytes.isEmpty { return true }
        return lhs.bytes.withUnsafeBufferPointer { a in
            rhs.bytes.withUnsafeBufferPointer { b in memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
        }
    }

    /// The position of the last `/`, nil when there is none: read in place (a generic
    /// `lastIndex(of:)` cost every rule that asks an entry's name about 80 ns a path).
    private var lastSlash: Int? {
        bytes.withUnsafeBufferPointer { b in
            var i = b.count - 1
            while i >= 0, b[i] != UInt8(ascii: "/") { i -= 1 }
            return i >= 0 ? i : nil
        }
    }

    /// The last component's bytes.
    package var name: ArraySlice<UInt8> {
        guard let slash = lastSlash else { return bytes[...] }
        return bytes[(slash + 1)...]
    }

    /// True when `parent` is this path's parent folder (the root for a top-level item). Compares
    /// bytes in place, without making the parent path: passes in path order check each entry
    /// against the last parent they saw, as siblings come together.
    package func isChild(of parent: ContainerPath) -> Bool {
        let cut = lastSlash ?? 0
        guard !isRoot, cut == parent.bytes.count else { return false }
        return cut == 0
            || bytes.withUnsafeBufferPointer { b in
                parent.bytes.withUnsafeBufferPointer { p in memcmp(b.baseAddress!, p.baseAddress!, cut) == 0 }
            }
    }

    package var parent: ContainerPath? {
        if isRoot { return nil }
        guard let slash = lastSlash else { return .root }
        return ContainerPath(bytes: Array(bytes[..<slash]))
    }

    package func appending<C: Collection>(_ name: C) -> ContainerPath where C.Element == UInt8 {
        if isRoot { return ContainerPath(bytes: Array(name)) }
        var b = bytes
        b.reserveCapacity(bytes.count + 1 + name.count)
        b.append(UInt8(ascii: "/"))
        b.append(contentsOf: name)
        return ContainerPath(bytes: b)
    }

    package func appending(_ name: String) -> ContainerPath { appending(Array(name.utf8)) }

    /// True when `self` is `other` or lies beneath it.
    package func isWithin(_ other: ContainerPath) -> Bool {
        if other.isRoot { return true }
        guard bytes.count >= other.bytes.count, bytes.starts(with: other.bytes) else { return false }
        return bytes.count == other.bytes.count || bytes[other.bytes.count] == UInt8(ascii: "/")
    }

    /// True when the bytes are valid UTF-8.
    package var isValidUTF8: Bool { ByteText.utf8String(bytes) != nil }

    /// Human and JSON `path` form: the UTF-8 text, with each byte that is not part of valid
    /// UTF-8 written as `\xHH`. Ambiguous only for names that really contain `\x` followed by
    /// two hex digits; machine formats add `pathBase64` for every such path, so nothing is lost.
    public var display: String { isRoot ? "." : ByteText.display(bytes) }

    /// Base64 of the raw bytes, for machine formats when `display` is not exact: the path is
    /// not valid UTF-8, or it holds a backslash (a literal `\x41` reads like an escaped byte).
    package var base64: String? {
        isValidUTF8 && !bytes.contains(UInt8(ascii: "\\")) ? nil : ByteText.base64(bytes)
    }

    public var description: String { display }

    /// Byte order (memcmp), the order of every output.
    public static func < (lhs: ContainerPath, rhs: ContainerPath) -> Bool {
        let common = min(lhs.bytes.count, rhs.bytes.count)
        let c = lhs.bytes.withUnsafeBufferPointer { a in
            rhs.bytes.withUnsafeBufferPointer { b in common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common) }
        }
        return c != 0 ? c < 0 : lhs.bytes.count < rhs.bytes.count
    }
}

extension Array where Element == UInt8 {
    /// True when the bytes end with `suffix`.
    package func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && self[(count - suffix.count)...].elementsEqual(suffix)
    }
}

/// Byte-string helpers shared by paths and attribute values.
public enum ByteText {
    /// The bytes as a String when they are valid UTF-8, nil otherwise. (`String(validating:as:)`
    /// needs macOS 15; decoding repairs invalid bytes, so a round trip that changes nothing is
    /// the check, available everywhere.)
    public static func utf8String<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
        let s = String(decoding: bytes, as: UTF8.self)
        return s.utf8.elementsEqual(bytes) ? s : nil
    }

    package static func display<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let array = Array(bytes)
        if let s = utf8String(array) { return s }
        var out = ""
        var i = 0
        while i < array.count {
            let len = validSequenceLength(array, at: i)
            if len > 0 {
                out += String(decoding: array[i..<(i + len)], as: UTF8.self)
                i += len
            } else {
                out += "\\x" + hex(array[i])
                i += 1
            }
        }
        return out
    }

    package static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }

    public static func hexString<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        bytes.map { hex($0).lowercased() }.joined()
    }

    package static func base64<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }

    /// Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there does not
    /// start one.
    package static func validSequenceLength(_ a: [UInt8], at i: Int) -> Int {
        let b0 = a[i]
        if b0 < 0x80 { return 1 }
        let need: Int
        var lo: UInt8 = 0x80
        var hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: need = 1
        case 0xE0:
            need = 2
            lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED:
            need = 2
            hi = 0x9F
        case 0xF0:
            need = 3
            lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4:
            need = 3
            hi = 0x8F
        default: return 0
        }
        guard i + need < a.count else { return 0 }
        for k in 1...need {
            let c = a[i + k]
            let (l, h): (UInt8, UInt8) = k == 1 ? (lo, hi) : (0x80, 0xBF)
            if c < l || c > h { return 0 }
        }
        return need + 1
    }
}
