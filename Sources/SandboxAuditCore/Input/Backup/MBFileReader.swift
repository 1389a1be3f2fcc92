import SandboxAuditSystem

/// Reads an `MBFile` blob straight from its binary-plist bytes, without
/// `PropertyListSerialization` or a Foundation object per value: the keys `MBFile.decode` uses,
/// with the same meaning. A `Manifest.db` row's blob costs about 3 µs instead of about 40 µs
/// (docs/PERFORMANCE.md).
///
/// It runs after `BoundedPlist.check` accepted the bytes (every bound kept), and reads only
/// what it reads exactly as Foundation would: it walks every object reachable from the top (as
/// Foundation parses them all) and gives up, returning nil, on anything outside the vocabulary
/// of a well-formed archive (null and fill markers, 16-byte integers, sets, UIDs over 4 bytes,
/// ASCII strings with bytes over 0x7F, UTF-16 with an unpaired surrogate or no character, dictionary keys that are not
/// strings, a key a lookup finds twice, a `CF$UID` dictionary, a number of another type where
/// an integer is read) and on every shape `MBFile.decode` refuses. The caller then decodes the
/// blob through Foundation, which gives the answer or the refusal it always gave. The format and
/// Foundation's checks: swift-corelibs-foundation, Sources/CoreFoundation/CFBinaryPList.c
/// (https://github.com/swiftlang/swift-corelibs-foundation).
struct MBFileReader {
    /// The blob's objects, read in place (`BoundedPlist.Objects`, in `SandboxAuditSystem`: the
    /// raw reads and the checks that keep them inside the bytes are there).
    private let plist: BoundedPlist.Objects

    /// The MBFile in `bytes` (a binary plist `BoundedPlist.check` accepted), or nil when the
    /// Foundation path must decide.
    static func decode(_ bytes: ArraySlice<UInt8>) -> MBFile? {
        guard let plist = BoundedPlist.Objects(bytes) else { return nil }
        return MBFileReader(plist: plist).mbFile()
    }

    /// Why the reader leaves a blob to Foundation: a lookup with no one answer (a key found
    /// twice, a dictionary that is not one), or a shape read here differently.
    private typealias GiveUp = BoundedPlist.Objects.Undecided

    /// The value object of `key` in the dictionary `dictionary`; nil when absent. Throws when
    /// the key is there twice (which of them Foundation keeps is its own business), or
    /// `dictionary` is not one.
    private func value(_ dictionary: Int, _ key: StaticString) throws(GiveUp) -> Int? {
        try plist.value(key, in: dictionary)
    }

    /// `uid(_:)` of `MBFile`: a UID's value; nil for anything else; gives up on a `CF$UID` dictionary.
    private func uid(_ object: Int) throws(GiveUp) -> Int? {
        switch plist.kind(object) {
        case .uid(let n): return n
        case .dictionary: if try value(object, "CF$UID") != nil { throw GiveUp() }
        default: break
        }
        return nil
    }

    /// `resolve(_:_:)` of `MBFile`: the object a UID names in `$objects` (the array `objects`),
    /// nil for `$null` and out of range.
    private func resolve(_ uid: Int, _ objects: Int) -> Int? {
        guard case .array(let n) = plist.kind(objects), uid > 0, uid < n else { return nil }
        let named = plist.reference(objects, uid)
        return plist.equals(named, "$null") ? nil : named
    }

    /// The root keys read, in one pass over the root's keys (`rootValues`).
    private static let rootKeys: [StaticString] = [
        "Size", "Mode", "LastModified", "LastStatusChange", "Birth", "InodeNumber", "UserID", "GroupID",
        "ProtectionClass",
        "Flags", "RelativePath", "Target", "EncryptionKey", "ExtendedAttributes",
    ]

    /// The value object of each of `rootKeys` in `root` (-1 when absent); gives up on a key
    /// found twice.
    private func rootValues(_ root: Int) throws(GiveUp) -> [Int] {
        try plist.values(Self.rootKeys, in: root)
    }

    /// `value(_:)` inside `MBFile.decode`: a root value, through its UID when it is one.
    private func resolved(_ value: Int, _ objects: Int) throws(GiveUp) -> Int? {
        guard value >= 0 else { return nil }
        if let u = try uid(value) { return resolve(u, objects) }
        return value
    }

    /// `dataBytes(_:_:)` of `MBFile`.
    private func dataBytes(_ object: Int?, _ objects: Int) throws(GiveUp) -> [UInt8]? {
        guard let object else { return nil }
        switch plist.kind(object) {
        case .string, .data: return plist.bytes(object)
        case .dictionary:
            guard let inner = try value(object, "NS.data") else { return nil }
            if case .data = plist.kind(inner) { return plist.bytes(inner) }
            if let u = try uid(inner), let d = resolve(u, objects), case .data = plist.kind(d) { return plist.bytes(d) }
            if let s = try value(object, "NS.bytes"), case .string = plist.kind(s) { return plist.bytes(s) }
            return nil
        default: return nil
        }
    }

    /// `integer(_:)` inside `MBFile.decode`: only an integer object is read here.
    private func integer(_ value: Int) throws(GiveUp) -> Int64? {
        guard value >= 0 else { return nil }
        guard case .integer(let n) = plist.kind(value) else { throw GiveUp() }
        return n
    }

    /// `MBFile.decodeAttributes` of `ExtendedAttributes`' bytes, read directly when they are a
    /// binary plist this reader reads as Foundation would (else nil: Foundation decides): only
    /// the values of the names the tool reads (`MBFile.readsAttribute`) are taken, the other
    /// names compared and skipped, so a row recording thousands of attributes costs what their
    /// bytes cost to look at, not a Foundation object each (docs/limits.md).
    static func readAttributes(_ bytes: [UInt8]) -> [(name: String, value: [UInt8])]? {
        guard (try? BoundedPlist.check(bytes, maximumSize: MBFile.maximumBlobSize)) == .binary,
            let plist = BoundedPlist.Objects(bytes[...])
        else { return nil }
        return MBFileReader(plist: plist).wantedAttributes()
    }

    /// The top dictionary's entries whose names the tool reads, data or string values (others
    /// skipped, as `MBFile.decodeAttributes` skips them), sorted by name; nil when the top is
    /// not a dictionary or a name read is there twice.
    private func wantedAttributes() -> [(name: String, value: [UInt8])]? {
        var list: [(name: String, value: [UInt8])] = []
        var names: [[UInt8]] = []
        let read = plist.forEachEntry(plist.top) { entry in
            guard let length = entry.keyLength else { return false }
            guard MBFile.attributeNameLengths.contains(length) else { return true }
            let name = plist.bytes(entry.key) ?? []
            guard MBFile.readsAttribute(name) else { return true }
            guard !names.contains(name) else { return false }
            names.append(name)
            switch plist.kind(entry.value) {
            case .data, .string: list.append((String(decoding: name, as: UTF8.self), plist.bytes(entry.value) ?? []))
            default: break
            }
            return true
        }
        guard read else { return nil }
        return list.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }

    private func mbFile() -> MBFile? {
        do throws(GiveUp) {
            let archive = plist.top
            guard let objects = try value(archive, "$objects"), case .array = plist.kind(objects),
                let top = try value(archive, "$top"), case .dictionary = plist.kind(top),
                let rootRef = try value(top, "root"), let rootUID = try uid(rootRef)
            else { return nil }
            guard let root = resolve(rootUID, objects), case .dictionary = plist.kind(root) else { return nil }
            let v = try rootValues(root)
            var f = MBFile()
            f.size = try integer(v[0]).flatMap { $0 >= 0 ? $0 : nil }
            f.mode = try integer(v[1]).flatMap { UInt32(exactly: $0) }
            f.lastModified = try integer(v[2])
            f.lastStatusChange = try integer(v[3])
            f.birth = try integer(v[4])
            f.inode = try integer(v[5]).flatMap { UInt64(exactly: $0) }
            f.userID = try integer(v[6])
            f.groupID = try integer(v[7])
            f.protectionClass = try integer(v[8])
            f.flags = try integer(v[9])
            f.relativePath = try resolved(v[10], objects).flatMap(plist.string)
            f.target = try dataBytes(resolved(v[11], objects), objects)
            f.encryptionKey = try dataBytes(resolved(v[12], objects), objects)
            if v[13] >= 0 {
                let bytes = try dataBytes(resolved(v[13], objects), objects)
                if let bytes, let read = Self.readAttributes(bytes) {
                    f.extendedAttributes = read
                } else {
                    switch MBFile.decodeAttributes(bytes) {
                    case .success(let list): f.extendedAttributes = list
                    case .failure(let refusal): f.extendedAttributesProblem = refusal.reason
                    }
                }
            }
            return f
        } catch {
            return nil
        }
    }
}
