import Foundation
import SandboxAuditSystem

/// What one `Manifest.db` row's `file` blob says about a file: an `MBFile` archived by
/// NSKeyedArchiver (a binary plist: `$top` {root: UID}, `$objects` [the objects, referring to
/// each other by UID]). Decoded by `MBFileReader` (or, for what it leaves, by
/// `PropertyListSerialization`) after `BoundedPlist` checked the bytes, UIDs resolved here;
/// every key is optional (the schema is Apple's and
/// undocumented: read what is there). Keys as the public readers decode them: mvt
/// (https://github.com/mvt-project/mvt/blob/main/src/mvt/ios/modules/backup/manifest.py),
/// iphonebackuptools (https://github.com/richinfante/iphonebackuptools).
struct MBFile: Sendable, Equatable {
    var size: Int64?
    var mode: UInt32?
    /// Seconds since 1970.
    var lastModified: Int64?
    var lastStatusChange: Int64?
    var birth: Int64?
    var inode: UInt64?
    var userID: Int64?
    var groupID: Int64?
    var protectionClass: Int64?
    var flags: Int64?
    var relativePath: String?
    /// A symlink's target, as archived.
    var target: [UInt8]?
    /// An encrypted backup's wrapped file key (with its 4-byte protection class in front).
    var encryptionKey: [UInt8]?
    /// `ExtendedAttributes`: of the item's extended attributes as the device recorded them, the
    /// ones the tool reads (`readsAttribute`: the exclude-from-backup attributes), by name
    /// (sorted), each value's bytes. An NSData holding a binary plist of name → data, as public
    /// readers decode it; nil when the row records none.
    var extendedAttributes: [(name: String, value: [UInt8])]?
    /// Why `ExtendedAttributes` was present but could not be read (the rest of the row is).
    var extendedAttributesProblem: String?

    init() {}

    static func == (a: MBFile, b: MBFile) -> Bool {
        a.size == b.size && a.mode == b.mode && a.lastModified == b.lastModified
            && a.lastStatusChange == b.lastStatusChange
            && a.birth == b.birth && a.inode == b.inode && a.userID == b.userID && a.groupID == b.groupID
            && a.protectionClass == b.protectionClass && a.flags == b.flags && a.relativePath == b.relativePath
            && a.target == b.target && a.encryptionKey == b.encryptionKey
            && a.extendedAttributesProblem == b.extendedAttributesProblem
            && a.extendedAttributes?.map(\.name) == b.extendedAttributes?.map(\.name)
            && a.extendedAttributes?.map(\.value) == b.extendedAttributes?.map(\.value)
    }

    /// A blob larger than this is not decoded (a real one is well under 1 KiB).
    static let maximumBlobSize = 64 * 1024

    /// Why a blob gave no MBFile: a one-line phrase.
    struct Refusal: Error, Sendable, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// Decodes `bytes`, or says why it cannot.
    static func decode(_ bytes: [UInt8]) -> Result<MBFile, Refusal> {
        decode(bytes[...])
    }

    /// `decode` of bytes held inside a larger array (a batch of `Manifest.db` rows), read in place.
    static func decode(_ bytes: ArraySlice<UInt8>) -> Result<MBFile, Refusal> {
        guard bytes.count <= maximumBlobSize else {
            return .failure(Refusal(reason: "its MBFile blob is \(bytes.count) bytes, over \(maximumBlobSize)"))
        }
        // Read directly when the bytes pass the same checks and hold nothing the direct reader
        // leaves to Foundation; Foundation decides everything else, as it always did.
        if (try? BoundedPlist.check(bytes, maximumSize: maximumBlobSize)) == .binary,
            let direct = MBFileReader.decode(bytes)
        {
            return .success(direct)
        }
        return decodeWithFoundation(Array(bytes))
    }

    /// `decode` through `PropertyListSerialization`: every blob the direct reader leaves.
    static func decodeWithFoundation(_ bytes: [UInt8]) -> Result<MBFile, Refusal> {
        let object: Any
        switch BoundedPlist.decode(bytes, maximumSize: maximumBlobSize) {
        case .success(let parsed): object = parsed.object
        case .failure(let refusal):
            return .failure(Refusal(reason: "its MBFile blob is not a property list (\(refusal.reason))"))
        }
        guard let archive = object as? [String: Any], let objects = archive["$objects"] as? [Any] else {
            return .failure(Refusal(reason: "its MBFile blob is not a keyed archive (no $objects)"))
        }
        let top = archive["$top"] as? [String: Any]
        guard let rootUID = top.flatMap({ uid($0["root"]) }), let root = resolve(rootUID, objects) as? [String: Any]
        else {
            return .failure(Refusal(reason: "its MBFile blob has no root object"))
        }
        func value(_ key: String) -> Any? {
            guard let v = root[key] else { return nil }
            if let u = uid(v) { return resolve(u, objects) }
            return v
        }
        // Numbers are stored inline, never behind a UID: read them directly (a scan decodes one
        // blob per row, and every dynamic cast costs).
        func integer(_ key: String) -> Int64? {
            guard let v = root[key] else { return nil }
            if let n = v as? Int { return Int64(n) }
            if let n = v as? Int64 { return n }
            return (v as? NSNumber)?.int64Value
        }
        var f = MBFile()
        f.size = integer("Size").flatMap { $0 >= 0 ? $0 : nil }
        f.mode = integer("Mode").flatMap { UInt32(exactly: $0) }
        f.lastModified = integer("LastModified")
        f.lastStatusChange = integer("LastStatusChange")
        f.birth = integer("Birth")
        f.inode = integer("InodeNumber").flatMap { UInt64(exactly: $0) }
        f.userID = integer("UserID")
        f.groupID = integer("GroupID")
        f.protectionClass = integer("ProtectionClass")
        f.flags = integer("Flags")
        f.relativePath = value("RelativePath") as? String
        f.target = dataBytes(value("Target"), objects)
        f.encryptionKey = dataBytes(value("EncryptionKey"), objects)
        if root["ExtendedAttributes"] != nil {
            switch decodeAttributes(dataBytes(value("ExtendedAttributes"), objects)) {
            case .success(let list): f.extendedAttributes = list
            case .failure(let refusal): f.extendedAttributesProblem = refusal.reason
            }
        }
        return .success(f)
    }

    /// Whether the tool reads the attribute `name` of a backup's row: the exclude-from-backup
    /// attributes under their macOS and Linux names (`BackupAttribute`). The others are skipped.
    static func readsAttribute(_ name: [UInt8]) -> Bool { BackupAttribute(attributeName: name) != nil }

    /// The lengths of those names, in UTF-16 code units and in bytes alike (they are ASCII): a
    /// name of another length is skipped without a look at its bytes.
    static let attributeNameLengths: Set<Int> = Set(
        BackupAttribute.allCases.flatMap { [$0.macName.utf8.count, $0.linuxName.utf8.count] })

    /// The attributes the tool reads (`readsAttribute`) in `ExtendedAttributes`' bytes: a binary or XML plist
    /// dictionary of names
    /// to data (a string value is taken as its UTF-8), read with the same bounds as the blob
    /// that held it (`BoundedPlist`: no reference bombs, no deep nesting).
    static func decodeAttributes(_ bytes: [UInt8]?) -> Result<[(name: String, value: [UInt8])], Refusal> {
        guard let bytes else { return .failure(Refusal(reason: "its ExtendedAttributes is not data")) }
        guard case .success(let parsed) = BoundedPlist.decode(bytes, maximumSize: maximumBlobSize),
            let dictionary = parsed.object as? [String: Any]
        else {
            return .failure(Refusal(reason: "its ExtendedAttributes is not a property list of names and values"))
        }
        var list: [(name: String, value: [UInt8])] = []
        for (name, v) in dictionary where readsAttribute(Array(name.utf8)) {
            if let d = v as? Data {
                list.append((name, [UInt8](d)))
            } else if let s = v as? String {
                list.append((name, Array(s.utf8)))
            }
        }
        return .success(list.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) })
    }

    /// A string's UTF-8, data's bytes, or an NSData/NSMutableData archive object's `NS.data`.
    static func dataBytes(_ value: Any?, _ objects: [Any]) -> [UInt8]? {
        if let s = value as? String { return Array(s.utf8) }
        if let d = value as? Data { return [UInt8](d) }
        if let archived = value as? [String: Any], let inner = archived["NS.data"] {
            if let d = inner as? Data { return [UInt8](d) }
            if let u = uid(inner), let d = resolve(u, objects) as? Data { return [UInt8](d) }
            if let s = archived["NS.bytes"] as? String { return Array(s.utf8) }
        }
        return nil
    }

    /// The object `uid` names; `$null` (object 0) and out-of-range UIDs are nil.
    static func resolve(_ uid: Int, _ objects: [Any]) -> Any? {
        guard uid > 0, uid < objects.count else { return nil }
        if let s = objects[uid] as? String, s == "$null" { return nil }
        return objects[uid]
    }

    /// The value of a plist UID, found without Foundation's private types: neither Foundation
    /// names the type it decodes a UID as (on Linux a Swift class, `_NSKeyedArchiverUID`; on
    /// Apple platforms an opaque CFKeyedArchiverUID, whose Swift type is `__NSCFType`), so a value
    /// of none of the property-list types is written back through `PropertyListSerialization`
    /// (CoreFoundation's binary writer writes a UID as one, on both: CFBinaryPList.c's
    /// `_appendUID`, https://github.com/swiftlang/swift-corelibs-foundation) and its number read
    /// from those bytes here. An XML plist's `{CF$UID: N}` dictionary is one too.
    static func uid(_ value: Any?) -> Int? {
        guard let value else { return nil }
        if let d = value as? [String: Any] {
            if d.count == 1, let n = d["CF$UID"] as? Int { return n }
            return nil
        }
        if value is String || value is Data || value is NSNumber || value is Date || value is [Any] { return nil }
        guard let written = try? PropertyListSerialization.data(fromPropertyList: [value], format: .binary, options: 0)
        else { return nil }
        return uidWritten([UInt8](written))
    }

    /// The UID in a one-element array written as a binary plist by `uid(_:)`: `bplist00`, the
    /// array (`0xA1`, one reference), the UID (`0x8n`, n + 1 bytes), the offset table, the trailer.
    static func uidWritten(_ b: [UInt8]) -> Int? {
        guard b.count >= 8 + 32, b.starts(with: "bplist00".utf8) else { return nil }
        let t = b.count - 32
        let offsetSize = Int(b[t + 6])
        let refSize = Int(b[t + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(refSize), BoundedPlist.readUInt(b, t + 8, 8) == 2 else {
            return nil
        }
        let table = Int(clamping: BoundedPlist.readUInt(b, t + 24, 8))
        let top = Int(clamping: BoundedPlist.readUInt(b, t + 16, 8))
        guard top < 2, table + 2 * offsetSize <= t else { return nil }
        let array = Int(clamping: BoundedPlist.readUInt(b, table + top * offsetSize, offsetSize))
        guard array + 1 + refSize <= table, b[array] == 0xA1 else { return nil }
        let element = Int(clamping: BoundedPlist.readUInt(b, array + 1, refSize))
        guard element < 2 else { return nil }
        let at = Int(clamping: BoundedPlist.readUInt(b, table + element * offsetSize, offsetSize))
        guard at < table, b[at] >> 4 == 0x8 else { return nil }
        let size = Int(b[at] & 0x0F) + 1
        guard size <= 4, at + 1 + size <= table else { return nil }
        return Int(BoundedPlist.readUInt(b, at + 1, size))
    }
}
