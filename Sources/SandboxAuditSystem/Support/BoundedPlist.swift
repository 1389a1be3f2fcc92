import Foundation

/// The only way the tool reads (and re-encodes) property lists. Foundation's parser expands a
/// binary plist's shared references into separate objects, so a few hundred bytes whose arrays
/// each refer twice to the next one (a "billion laughs") become 2^n objects. Before any bytes
/// reach `PropertyListSerialization`, this checks them:
///
/// - binary plists (`bplist00`): the trailer, the offset table, every reachable object's
///   marker and extent, and the object graph itself: it must be acyclic, no deeper than
///   `maximumDepth`, and its expansion (every reference counted as a copy, subtree sizes
///   memoised) at most `maximumExpandedObjects(for:)` objects and
///   `maximumExpandedBytes(for:)` payload bytes;
/// - XML plists: size, and nesting no deeper than `maximumDepth`;
/// - OpenStep text (what `xcrun simctl` prints), only where the caller allows it: size, and
///   nesting no deeper than `maximumDepth` (it has no shared references);
/// - anything else (other binary versions) is refused.
///
/// Limits are documented in docs/limits.md.
package enum BoundedPlist {
    package enum Format: Sendable { case binary, xml, openStep }

    /// Why a plist was not parsed: a one-line phrase.
    package struct Refusal: Error, CustomStringConvertible, Sendable {
        package let reason: String
        package init(_ reason: String) { self.reason = reason }
        package var description: String { reason }
    }

    /// The default size cap (the largest plist the tool parses anywhere: a Preferences plist).
    package static let defaultMaximumSize = 16 * 1024 * 1024
    /// Nesting of arrays and dictionaries.
    package static let maximumDepth = 256
    /// Objects in the expanded graph: 100,000, plus one per 4 bytes of input.
    package static func maximumExpandedObjects(for byteCount: Int) -> Int { 100_000 + byteCount / 4 }
    /// Payload bytes (strings, data, numbers) in the expanded graph: 1 MiB plus 4 × the input.
    package static func maximumExpandedBytes(for byteCount: Int) -> Int { (1 << 20) + 4 * byteCount }

    /// Parses `bytes` after checking them; never expands more than the limits allow. This is
    /// the one call of `PropertyListSerialization.propertyList` in the tool: every plist read
    /// from an input, a backup or another program passes `check` first.
    package static func decode(_ bytes: [UInt8], maximumSize: Int = defaultMaximumSize, openStep: Bool = false)
        -> Result<(object: Any, format: Format), Refusal>
    {
        let format: Format
        do { format = try check(bytes, maximumSize: maximumSize, openStep: openStep) } catch let r as Refusal {
            return .failure(r)
        } catch { return .failure(Refusal("\(error)")) }
        do {
            let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
            return .success((object, format))
        } catch {
            switch format {
            case .binary: return .failure(Refusal("not a valid binary property list"))
            case .xml: return .failure(Refusal("not a valid XML property list"))
            case .openStep: return .failure(Refusal("not a valid text property list"))
            }
        }
    }

    /// The object, or nil when refused or unparsable.
    package static func object(_ bytes: [UInt8], maximumSize: Int = defaultMaximumSize, openStep: Bool = false) -> Any?
    {
        if case .success(let r) = decode(bytes, maximumSize: maximumSize, openStep: openStep) { return r.object }
        return nil
    }

    /// A dictionary plist (identity plists), or nil.
    package static func dictionary(_ bytes: [UInt8], maximumSize: Int = defaultMaximumSize, openStep: Bool = false)
        -> [String: Any]?
    {
        object(bytes, maximumSize: maximumSize, openStep: openStep) as? [String: Any]
    }

    /// The size of `value` encoded alone as a binary plist; `value` must come from `decode`
    /// (so it is already bounded). Nil when it cannot be encoded.
    package static func binarySize(of value: Any) -> Int? {
        (try? PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0))?.count
    }

    /// Checks structure and cost; returns the format or throws a `Refusal`.
    @discardableResult
    package static func check(_ bytes: [UInt8], maximumSize: Int = defaultMaximumSize, openStep: Bool = false) throws
        -> Format
    {
        try bytes.withUnsafeBufferPointer { try check($0, maximumSize: maximumSize, openStep: openStep) }
    }

    /// `check` of bytes held elsewhere; a binary plist is checked without allocating anything
    /// for one of a few hundred objects.
    @discardableResult
    package static func check(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumSize: Int = defaultMaximumSize, openStep: Bool = false
    ) throws -> Format {
        guard bytes.count <= maximumSize else {
            throw Refusal("property list of \(bytes.count) bytes is over the \(maximumSize)-byte limit")
        }
        if bytes.starts(with: "bplist".utf8) {
            guard bytes.starts(with: "bplist00".utf8) else {
                throw Refusal("binary property list of an unsupported version")
            }
            try checkBinary(bytes)
            return .binary
        }
        let copy = Array(bytes)
        if looksXML(copy) {
            try checkXML(copy)
            return .xml
        }
        if openStep {
            try checkOpenStep(copy)
            return .openStep
        }
        throw Refusal("not a binary or XML property list")
    }

    // MARK: OpenStep text

    /// Nesting of `{` and `(` outside quoted strings and comments. The text has no references,
    /// so what it holds is no larger than its bytes; Foundation's parser recurses on nesting.
    package static func checkOpenStep(_ b: [UInt8]) throws {
        var depth = 0
        var i = 0
        let n = b.count
        while i < n {
            switch b[i] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quote = b[i]
                i += 1
                while i < n, b[i] != quote { i += b[i] == UInt8(ascii: "\\") ? 2 : 1 }
            case UInt8(ascii: "/") where i + 1 < n && b[i + 1] == UInt8(ascii: "/"):
                while i < n, b[i] != 0x0A { i += 1 }
            case UInt8(ascii: "/") where i + 1 < n && b[i + 1] == UInt8(ascii: "*"):
                i += 2
                while i + 1 < n, !(b[i] == UInt8(ascii: "*") && b[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i += 1
            case UInt8(ascii: "{"), UInt8(ascii: "("):
                depth += 1
                if depth > maximumDepth { throw Refusal("text property list nested more than \(maximumDepth) deep") }
            case UInt8(ascii: "}"), UInt8(ascii: ")"):
                depth -= 1
            default: break
            }
            i += 1
        }
    }

    /// True when the first bytes (after a UTF-8 byte-order mark and white space) open an XML
    /// document or a `<plist>` element.
    package static func looksXML(_ bytes: [UInt8]) -> Bool {
        var i = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
        let rest = bytes[i...]
        return rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<plist".utf8))
            || rest.starts(with: Array("<!DOCTYPE".utf8))
    }

    // MARK: XML

    package static func checkXML(_ b: [UInt8]) throws {
        // Nesting of <array> and <dict>; also refuses internal DTD subsets (entity declarations).
        var depth = 0
        var i = 0
        let n = b.count
        func at(_ i: Int, _ s: StaticString) -> Bool {
            let len = s.utf8CodeUnitCount
            guard i + len <= n else { return false }
            return s.withUTF8Buffer { p in
                for k in 0..<len where b[i + k] != p[k] { return false }
                return true
            }
        }
        while i < n {
            guard b[i] == UInt8(ascii: "<") else {
                i += 1
                continue
            }
            if at(i, "<!ENTITY") { throw Refusal("XML property list declares entities") }
            var j = i + 1
            var closing = false
            if j < n, b[j] == UInt8(ascii: "/") {
                closing = true
                j += 1
            }
            let isContainer = at(j, "array") || at(j, "dict")
            guard isContainer else {
                i += 1
                continue
            }
            // Find the end of the tag: self-closing tags do not nest.
            var k = j
            while k < n, b[k] != UInt8(ascii: ">") { k += 1 }
            let selfClosing = k > 0 && k < n && b[k - 1] == UInt8(ascii: "/")
            if closing {
                depth -= 1
            } else if !selfClosing {
                depth += 1
                if depth > maximumDepth { throw Refusal("XML property list nested more than \(maximumDepth) deep") }
            }
            i = k
        }
    }

    /// The big-endian unsigned integer of `size` bytes at `at`. Inlinable: `MBFileReader` reads
    /// every reference and offset of a row's blob with it, from another module.
    @inlinable @inline(__always)
    package static func readUInt(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(b[at])
        case 2: return UInt64(b[at]) << 8 | UInt64(b[at + 1])
        default:
            var v: UInt64 = 0
            for k in 0..<size { v = v << 8 | UInt64(b[at + k]) }
            return v
        }
    }
}
