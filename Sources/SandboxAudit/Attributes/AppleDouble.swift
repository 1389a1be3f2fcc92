/// AppleDouble files (`._NAME`, `__MACOSX/…`): how macOS carries extended attributes onto file
/// systems and archives that lack them. Layout from xnu `bsd/vfs/vfs_xattr.c` (domain.md §2).
///
/// Written by hand: no maintained Swift or C library on Linux reads or writes the `ATTR` block.
public enum AppleDouble {
    public static let magic: UInt32 = 0x0005_1607
    public static let version: UInt32 = 0x0002_0000
    static let attrMagic: UInt32 = 0x4154_5452 // "ATTR"
    static let finderInfoID: UInt32 = 9
    static let resourceForkID: UInt32 = 2
    static let headerSize = 26          // magic, version, 16 filler bytes, entry count
    static let finderInfoSize = 32
    static let attrHeaderSize = 36      // magic … num_attrs, after the Finder info and its pad
    /// Files larger than this are not sidecars (xnu caps attribute data at 128 KiB each and the
    /// header at 64 KiB; a few attributes fit well within 1 MiB).
    public static let maximumSize = 1 << 20

    /// The name prefix of a sidecar beside its file.
    public static let sidecarPrefix: [UInt8] = Array("._".utf8)
    public static let mirrorFolder = "__MACOSX"

    public struct Parsed: Equatable, Sendable {
        public var finderInfo: [UInt8]
        public var attributes: [(name: String, value: [UInt8])]

        public init(finderInfo: [UInt8] = [UInt8](repeating: 0, count: 32), attributes: [(name: String, value: [UInt8])] = []) {
            self.finderInfo = finderInfo
            self.attributes = attributes
        }

        public static func == (a: Parsed, b: Parsed) -> Bool {
            a.finderInfo == b.finderInfo && a.attributes.elementsEqual(b.attributes) { $0.name == $1.name && $0.value == $1.value }
        }
    }

    public enum ParseError: Error, CustomStringConvertible, Equatable {
        case notAppleDouble
        case malformed(String)
        public var description: String {
            switch self {
            case .notAppleDouble: return "not an AppleDouble file (no 0x00051607 magic)"
            case .malformed(let why): return "malformed AppleDouble file: \(why)"
            }
        }
    }

    /// True when the bytes start with the AppleDouble magic.
    public static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && be32(bytes, 0) == magic
    }

    /// Parses a sidecar. A file with Finder info and no `ATTR` block parses to no attributes.
    public static func parse(_ b: [UInt8]) throws -> Parsed {
        guard hasMagic(b) else { throw ParseError.notAppleDouble }
        guard b.count >= headerSize else { throw ParseError.malformed("header truncated at \(b.count) bytes") }
        let count = Int(be16(b, 24))
        guard headerSize + count * 12 <= b.count else { throw ParseError.malformed("entry table runs past the end") }
        var parsed = Parsed()
        for i in 0..<count {
            let base = headerSize + i * 12
            let id = be32(b, base), offset = Int(be32(b, base + 4)), length = Int(be32(b, base + 8))
            guard offset + length <= b.count else {
                throw ParseError.malformed("entry \(id) claims \(length) bytes at offset \(offset) of a \(b.count)-byte file")
            }
            guard id == finderInfoID else { continue }
            guard length >= finderInfoSize || length == 0 else {
                throw ParseError.malformed("Finder info entry is \(length) bytes, not \(finderInfoSize)")
            }
            if length >= finderInfoSize { parsed.finderInfo = Array(b[offset..<(offset + finderInfoSize)]) }
            // xnu pads the Finder info by two bytes before the ATTR header; accept it unpadded too.
            for attrStart in [offset + finderInfoSize + 2, offset + finderInfoSize]
            where attrStart + attrHeaderSize <= offset + length && be32(b, attrStart) == attrMagic {
                parsed.attributes = try parseAttributes(b, headerAt: attrStart)
                break
            }
        }
        return parsed
    }

    private static func parseAttributes(_ b: [UInt8], headerAt h: Int) throws -> [(name: String, value: [UInt8])] {
        let numAttrs = Int(be16(b, h + 34))
        var out: [(name: String, value: [UInt8])] = []
        var p = h + attrHeaderSize
        for i in 0..<numAttrs {
            guard p + 11 <= b.count else { throw ParseError.malformed("attribute entry \(i) truncated") }
            let offset = Int(be32(b, p)), length = Int(be32(b, p + 4))
            let nameLength = Int(b[p + 10])
            guard nameLength > 0, p + 11 + nameLength <= b.count else { throw ParseError.malformed("attribute name \(i) truncated") }
            var nameBytes = Array(b[(p + 11)..<(p + 11 + nameLength)])
            if nameBytes.last == 0 { nameBytes.removeLast() }
            guard offset >= 0, length >= 0, offset + length <= b.count else {
                throw ParseError.malformed("value of \(ByteText.display(nameBytes)) lies outside the file")
            }
            out.append((ByteText.display(nameBytes), Array(b[offset..<(offset + length)])))
            p += (11 + nameLength + 3) & ~3
        }
        return out
    }

    /// Builds a sidecar holding `parsed`, laid out as macOS writes it: a Finder info entry that
    /// holds the `ATTR` block, then an empty resource fork.
    public static func build(_ parsed: Parsed) -> [UInt8] {
        let finderInfoOffset = headerSize + 2 * 12
        let attrHeader = finderInfoOffset + finderInfoSize + 2
        var entries = [UInt8]()
        let encodedNames = parsed.attributes.map { Array($0.name.utf8) + [0] }
        let entryTableEnd = attrHeader + attrHeaderSize + encodedNames.reduce(0) { $0 + ((11 + $1.count + 3) & ~3) }
        let dataOffset = entryTableEnd
        var data = [UInt8]()
        for (i, attribute) in parsed.attributes.enumerated() {
            var e = [UInt8]()
            put32(&e, UInt32(dataOffset + data.count))
            put32(&e, UInt32(attribute.value.count))
            put16(&e, 0)
            e.append(UInt8(encodedNames[i].count))
            e += encodedNames[i]
            while e.count % 4 != 0 { e.append(0) }
            entries += e
            data += attribute.value
        }
        let total = entryTableEnd + data.count
        var out = [UInt8]()
        put32(&out, magic)
        put32(&out, version)
        out += [UInt8](repeating: 0, count: 16)
        put16(&out, 2)
        put32(&out, finderInfoID); put32(&out, UInt32(finderInfoOffset)); put32(&out, UInt32(total - finderInfoOffset))
        put32(&out, resourceForkID); put32(&out, UInt32(total)); put32(&out, 0)
        out += parsed.finderInfo.count == finderInfoSize ? parsed.finderInfo : [UInt8](repeating: 0, count: finderInfoSize)
        out += [0, 0]
        put32(&out, attrMagic)
        put32(&out, 0)                        // debug tag
        put32(&out, UInt32(total))            // total size
        put32(&out, UInt32(entryTableEnd))    // data start
        put32(&out, UInt32(data.count))       // data length
        out += [UInt8](repeating: 0, count: 12)
        put16(&out, 0)                        // flags
        put16(&out, UInt16(parsed.attributes.count))
        out += entries
        out += data
        return out
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
    static func be16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
    static func put32(_ b: inout [UInt8], _ v: UInt32) { b += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func put16(_ b: inout [UInt8], _ v: UInt16) { b += [UInt8(v >> 8), UInt8(v & 0xFF)] }
}
