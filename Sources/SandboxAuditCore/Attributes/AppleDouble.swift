import SandboxAuditSystem

/// AppleDouble files (`._NAME`, `__MACOSX/…`): how macOS carries extended attributes onto file
/// systems and archives that lack them. Layout from xnu `bsd/vfs/vfs_xattr.c`.
///
/// Written by hand: no maintained Swift or C library on Linux reads or writes the `ATTR` block.
package enum AppleDouble {
    static let magic: UInt32 = 0x0005_1607
    static let version: UInt32 = 0x0002_0000
    static let attrMagic: UInt32 = 0x4154_5452  // "ATTR"
    static let finderInfoID: UInt32 = 9
    static let resourceForkID: UInt32 = 2
    static let headerSize = 26  // magic, version, 16 filler bytes, entry count
    static let finderInfoSize = 32
    static let attrHeaderSize = 36  // magic … num_attrs, after the Finder info and its pad
    /// Files larger than this are not sidecars (xnu caps attribute data at 128 KiB each and the
    /// header at 64 KiB; a few attributes fit well within 1 MiB).
    static let maximumSize = 1 << 20

    /// The name prefix of a sidecar beside its file.
    static let sidecarPrefix: [UInt8] = Array("._".utf8)
    static let mirrorFolder = "__MACOSX"

    /// At most this many entries in the header (macOS writes 2; AppleSingle defines 15 ids).
    static let maximumEntries = 64
    /// At most this many attributes in the `ATTR` block (each takes at least 12 bytes anyway).
    static let maximumAttributes = 4096

    /// One attribute as stored: its name's raw bytes (no trailing NUL), its flags and value.
    struct Attribute: Equatable, Sendable {
        var name: [UInt8]
        var value: [UInt8]
        var flags: UInt16
        init(name: [UInt8], value: [UInt8], flags: UInt16 = 0) {
            self.name = name
            self.value = value
            self.flags = flags
        }
    }

    /// A sidecar's contents: everything a writer needs to keep what it does not change.
    package struct Parsed: Equatable, Sendable {
        var finderInfo: [UInt8]
        /// The attributes, byte for byte.
        var entries: [Attribute]
        /// The resource fork (entry 2), kept whole.
        var resourceFork: [UInt8] = []
        /// Other AppleSingle entries (comments, dates …), kept whole by id.
        var otherEntries: [(id: UInt32, bytes: [UInt8])] = []
        /// The 16 filler bytes after the version ("Mac OS X        " from macOS).
        var filler: [UInt8] = [UInt8](repeating: 0, count: 16)
        /// Bytes of the Finder info entry after its 32 bytes when it holds no `ATTR` block.
        var finderInfoTail: [UInt8] = []
        /// The `ATTR` header's debug tag and flags.
        var attrDebugTag: UInt32 = 0
        var attrFlags: UInt16 = 0

        package init(
            finderInfo: [UInt8] = [UInt8](repeating: 0, count: 32), attributes: [(name: String, value: [UInt8])] = []
        ) {
            self.finderInfo = finderInfo
            self.entries = attributes.map { Attribute(name: Array($0.name.utf8), value: $0.value) }
        }

        /// The attributes with names as text (undecodable bytes shown as `\xNN`).
        var attributes: [(name: String, value: [UInt8])] {
            get { entries.map { (ByteText.display($0.name), $0.value) } }
            set { entries = newValue.map { Attribute(name: Array($0.name.utf8), value: $0.value) } }
        }

        /// True when nothing but (zeroed) Finder info would be left.
        var isEmpty: Bool {
            entries.isEmpty && resourceFork.isEmpty && otherEntries.isEmpty && finderInfo.allSatisfy { $0 == 0 }
                && finderInfoTail.allSatisfy { $0 == 0 }
        }

        package static func == (a: Parsed, b: Parsed) -> Bool {
            a.finderInfo == b.finderInfo && a.entries == b.entries && a.resourceFork == b.resourceFork
                && a.otherEntries.elementsEqual(b.otherEntries) { $0.id == $1.id && $0.bytes == $1.bytes }
        }
    }

    enum ParseError: Error, CustomStringConvertible, Equatable {
        case notAppleDouble
        case malformed(String)
        var description: String {
            switch self {
            case .notAppleDouble: return "not an AppleDouble file (no 0x00051607 magic)"
            case .malformed(let why): return "malformed AppleDouble file: \(why)"
            }
        }
    }

    /// True when the bytes start with the AppleDouble magic.
    static func hasMagic(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && be32(bytes, 0) == magic
    }

    /// Refuses ranges that overlap one another (empty ranges never overlap).
    private static func requireDisjoint(_ ranges: [(Range<Int>, String)]) throws {
        let sorted = ranges.filter { !$0.0.isEmpty }.sorted { $0.0.lowerBound < $1.0.lowerBound }
        for (a, b) in zip(sorted, sorted.dropFirst()) where b.0.lowerBound < a.0.upperBound {
            throw ParseError.malformed("\(a.1) and \(b.1) overlap")
        }
    }

    /// Parses a sidecar. A file with Finder info and no `ATTR` block parses to no attributes.
    /// Every entry and attribute value must lie inside the file without overlapping another, so
    /// the values parsed never add up to more than the file's size.
    static func parse(_ b: [UInt8]) throws -> Parsed {
        guard hasMagic(b) else { throw ParseError.notAppleDouble }
        guard b.count >= headerSize else { throw ParseError.malformed("header truncated at \(b.count) bytes") }
        guard b.count <= maximumSize else {
            throw ParseError.malformed("\(b.count) bytes, over the \(maximumSize)-byte limit")
        }
        let count = Int(be16(b, 24))
        guard count <= maximumEntries else {
            throw ParseError.malformed("\(count) entries, over the limit of \(maximumEntries)")
        }
        let tableEnd = headerSize + count * 12
        guard tableEnd <= b.count else { throw ParseError.malformed("entry table runs past the end") }
        var parsed = Parsed()
        parsed.filler = Array(b[8..<24])
        var ranges: [(Range<Int>, String)] = [(0..<tableEnd, "the header")]
        var seen = Set<UInt32>()
        var finder: (offset: Int, length: Int)?
        for i in 0..<count {
            let base = headerSize + i * 12
            let id = be32(b, base)
            let offset = Int(be32(b, base + 4))
            let length = Int(be32(b, base + 8))
            guard offset + length <= b.count else {
                throw ParseError.malformed(
                    "entry \(id) claims \(length) bytes at offset \(offset) of a \(b.count)-byte file")
            }
            guard seen.insert(id).inserted else { throw ParseError.malformed("entry \(id) appears twice") }
            ranges.append((offset..<(offset + length), "entry \(id)"))
            switch id {
            case finderInfoID:
                guard length >= finderInfoSize || length == 0 else {
                    throw ParseError.malformed("Finder info entry is \(length) bytes, not \(finderInfoSize)")
                }
                finder = (offset, length)
            case resourceForkID:
                parsed.resourceFork = Array(b[offset..<(offset + length)])
            default:
                parsed.otherEntries.append((id, Array(b[offset..<(offset + length)])))
            }
        }
        try requireDisjoint(ranges)
        if let (offset, length) = finder, length >= finderInfoSize {
            parsed.finderInfo = Array(b[offset..<(offset + finderInfoSize)])
            var found = false
            // xnu pads the Finder info by two bytes before the ATTR header; accept it unpadded too.
            for attrStart in [offset + finderInfoSize + 2, offset + finderInfoSize]
            where attrStart + attrHeaderSize <= offset + length && be32(b, attrStart) == attrMagic {
                try parseAttributes(b, headerAt: attrStart, into: &parsed)
                found = true
                break
            }
            if !found { parsed.finderInfoTail = Array(b[(offset + finderInfoSize)..<(offset + length)]) }
        }
        return parsed
    }

    private static func parseAttributes(_ b: [UInt8], headerAt h: Int, into parsed: inout Parsed) throws {
        parsed.attrDebugTag = be32(b, h + 4)
        parsed.attrFlags = be16(b, h + 32)
        let numAttrs = Int(be16(b, h + 34))
        guard numAttrs <= maximumAttributes else {
            throw ParseError.malformed("\(numAttrs) attributes, over the limit of \(maximumAttributes)")
        }
        var p = h + attrHeaderSize
        var found: [(offset: Int, length: Int, flags: UInt16, name: [UInt8])] = []
        found.reserveCapacity(numAttrs)
        for i in 0..<numAttrs {
            guard p + 11 <= b.count else { throw ParseError.malformed("attribute entry \(i) truncated") }
            let offset = Int(be32(b, p))
            let length = Int(be32(b, p + 4))
            let nameLength = Int(b[p + 10])
            guard nameLength > 0, p + 11 + nameLength <= b.count else {
                throw ParseError.malformed("attribute name \(i) truncated")
            }
            var nameBytes = Array(b[(p + 11)..<(p + 11 + nameLength)])
            if nameBytes.last == 0 { nameBytes.removeLast() }
            guard offset + length <= b.count else {
                throw ParseError.malformed("value of \(ByteText.display(nameBytes)) lies outside the file")
            }
            found.append((offset, length, be16(b, p + 8), nameBytes))
            p += (11 + nameLength + 3) & ~3
        }
        // Values lie after the attribute entries and do not overlap one another: one byte of the
        // file is never read as the value of two attributes.
        let entriesEnd = min(p, b.count)
        var ranges: [(Range<Int>, String)] = []
        for a in found {
            guard a.length == 0 || a.offset >= entriesEnd else {
                throw ParseError.malformed("value of \(ByteText.display(a.name)) overlaps the attribute entries")
            }
            ranges.append((a.offset..<(a.offset + a.length), "the values of \(ByteText.display(a.name))"))
        }
        try requireDisjoint(ranges)
        parsed.entries = found.map {
            Attribute(name: $0.name, value: Array(b[$0.offset..<($0.offset + $0.length)]), flags: $0.flags)
        }
    }

    /// Builds a sidecar holding `parsed`, laid out as macOS writes it: a Finder info entry that
    /// holds the `ATTR` block, any other entries, then the resource fork. Names, values, flags,
    /// Finder info, filler, other entries and the resource fork are written as parsed.
    package static func build(_ parsed: Parsed) -> [UInt8] {
        let entryCount = 2 + parsed.otherEntries.count
        let finderInfoOffset = headerSize + entryCount * 12
        let hasAttr = !parsed.entries.isEmpty || parsed.finderInfoTail.allSatisfy { $0 == 0 }
        let attrHeader = finderInfoOffset + finderInfoSize + 2
        var entries = [UInt8]()
        // A name of 255 bytes fills the length byte without its NUL (as parsed).
        let encodedNames = parsed.entries.map { $0.name.count < 255 ? $0.name + [0] : Array($0.name.prefix(255)) }
        let entryTableEnd = attrHeader + attrHeaderSize + encodedNames.reduce(0) { $0 + ((11 + $1.count + 3) & ~3) }
        let dataOffset = entryTableEnd
        var data = [UInt8]()
        for (i, attribute) in parsed.entries.enumerated() {
            var e = [UInt8]()
            put32(&e, UInt32(dataOffset + data.count))
            put32(&e, UInt32(attribute.value.count))
            put16(&e, attribute.flags)
            e.append(UInt8(encodedNames[i].count))
            e += encodedNames[i]
            while e.count % 4 != 0 { e.append(0) }
            entries += e
            data += attribute.value
        }
        let finderEnd =
            hasAttr ? entryTableEnd + data.count : finderInfoOffset + finderInfoSize + parsed.finderInfoTail.count
        var others = [UInt8]()
        var otherTable = [UInt8]()
        for o in parsed.otherEntries {
            put32(&otherTable, o.id)
            put32(&otherTable, UInt32(finderEnd + others.count))
            put32(&otherTable, UInt32(o.bytes.count))
            others += o.bytes
        }
        let forkOffset = finderEnd + others.count
        var out = [UInt8]()
        put32(&out, magic)
        put32(&out, version)
        out += parsed.filler.count == 16 ? parsed.filler : [UInt8](repeating: 0, count: 16)
        put16(&out, UInt16(entryCount))
        put32(&out, finderInfoID)
        put32(&out, UInt32(finderInfoOffset))
        put32(&out, UInt32(finderEnd - finderInfoOffset))
        out += otherTable
        put32(&out, resourceForkID)
        put32(&out, UInt32(forkOffset))
        put32(&out, UInt32(parsed.resourceFork.count))
        out +=
            parsed.finderInfo.count == finderInfoSize ? parsed.finderInfo : [UInt8](repeating: 0, count: finderInfoSize)
        if hasAttr {
            out += [0, 0]
            put32(&out, attrMagic)
            put32(&out, parsed.attrDebugTag)
            put32(&out, UInt32(finderEnd))  // total size (of the Finder info entry's end)
            put32(&out, UInt32(entryTableEnd))  // data start
            put32(&out, UInt32(data.count))  // data length
            out += [UInt8](repeating: 0, count: 12)
            put16(&out, parsed.attrFlags)
            put16(&out, UInt16(parsed.entries.count))
            out += entries
            out += data
        } else {
            out += parsed.finderInfoTail
        }
        out += others
        out += parsed.resourceFork
        return out
    }

    static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
    static func be16(_ b: [UInt8], _ i: Int) -> UInt16 { UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
    static func put32(_ b: inout [UInt8], _ v: UInt32) {
        b += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func put16(_ b: inout [UInt8], _ v: UInt16) { b += [UInt8(v >> 8), UInt8(v & 0xFF)] }
}
