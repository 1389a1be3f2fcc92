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
/// ASCII strings with bytes over 0x7F, UTF-16 with an unpaired surrogate, dictionary keys that are not
/// strings, a key a lookup finds twice, a `CF$UID` dictionary, a number of another type where
/// an integer is read) and on every shape `MBFile.decode` refuses. The caller then decodes the
/// blob through Foundation, which gives the answer or the refusal it always gave. The format and
/// Foundation's checks: swift-corelibs-foundation, Sources/CoreFoundation/CFBinaryPList.c
/// (https://github.com/swiftlang/swift-corelibs-foundation).
struct MBFileReader {
    private let b: UnsafeBufferPointer<UInt8>
    private let offsetSize: Int, refSize: Int, count: Int, table: Int, top: Int
    /// What each object is, read once (`object(_:)`); on the stack for a blob of a few dozen.
    private var kinds = UnsafeBufferPointer<Kind>(start: nil, count: 0)

    /// The MBFile in `bytes` (a binary plist `BoundedPlist.check` accepted), or nil when the
    /// Foundation path must decide.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> MBFile? {
        guard var reader = MBFileReader(bytes) else { return nil }
        return withUnsafeTemporaryAllocation(of: Kind.self, capacity: reader.count) { kinds in
            for i in 0..<reader.count { (kinds.baseAddress! + i).initialize(to: reader.object(i)) }
            reader.kinds = UnsafeBufferPointer(kinds)
            guard reader.objectsAreLaidOutInOrder(), reader.allSupported() else { return nil }
            return reader.mbFile()
        }
    }

    private init?(_ b: UnsafeBufferPointer<UInt8>) {
        guard b.count >= 8 + 1 + 32, b.starts(with: "bplist00".utf8) else { return nil }
        self.b = b
        let t = b.count - 32
        offsetSize = Int(b[t + 6])
        refSize = Int(b[t + 7])
        let objects = BoundedPlist.readUInt(b, t + 8, 8), top = BoundedPlist.readUInt(b, t + 16, 8)
        let tableOffset = BoundedPlist.readUInt(b, t + 24, 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize), objects >= 1, objects <= UInt64(b.count),
              top < objects, tableOffset >= 9, tableOffset <= UInt64(t),
              UInt64(t) - tableOffset >= objects * UInt64(offsetSize) else { return nil }
        // CoreFoundation's own checks (__CFBinaryPlistGetTopLevelInfo): the offset table ends
        // where the trailer starts, references and offsets are wide enough for what they
        // address, and every offset lies before the table.
        guard tableOffset + objects * UInt64(offsetSize) == UInt64(t),
              refSize == 8 || (UInt64(1) << (8 * UInt64(refSize))) > objects,
              offsetSize == 8 || (UInt64(1) << (8 * UInt64(offsetSize))) > tableOffset else { return nil }
        count = Int(objects)
        table = Int(tableOffset)
        self.top = Int(top)
        for object in 0..<count where offset(object) >= table { return nil }
        guard offset(self.top) >= 8 else { return nil }
    }

    // MARK: objects

    private enum Kind {
        case integer(Int64)
        case uid(Int)
        /// ASCII bytes or big-endian UTF-16 code units at `start`.
        case ascii(start: Int, count: Int)
        case utf16(start: Int, count: Int)
        case data(start: Int, count: Int)
        case array(refs: Int, count: Int)
        case dictionary(refs: Int, count: Int)
        /// A boolean, a real or a date: read by no key as a value, but a valid object.
        case scalar
        case unsupported
    }

    private func offset(_ object: Int) -> Int { Int(BoundedPlist.readUInt(b, table + object * offsetSize, offsetSize)) }
    private func reference(_ at: Int, _ k: Int) -> Int { Int(BoundedPlist.readUInt(b, at + k * refSize, refSize)) }

    /// What object `object` is, as `object(_:)` read it.
    private func kind(_ object: Int) -> Kind {
        object >= 0 && object < count ? kinds[object] : .unsupported
    }

    /// What object `object` is. Its extent was checked by `BoundedPlist.check`; lengths again here.
    private func object(_ object: Int) -> Kind {
        guard object >= 0, object < count else { return .unsupported }
        let start = offset(object)
        guard start >= 8, start < table else { return .unsupported }
        let marker = b[start], high = marker >> 4, low = Int(marker & 0x0F)
        var p = start + 1
        var n = low
        if low == 0x0F, high == 0x4 || high == 0x5 || high == 0x6 || high == 0xA || high == 0xD {
            // The length is the integer object that follows the marker.
            guard p < table, b[p] >> 4 == 0x1, b[p] & 0x0F <= 3 else { return .unsupported }
            let size = 1 << Int(b[p] & 0x0F)
            guard p + 1 + size <= table else { return .unsupported }
            let v = BoundedPlist.readUInt(b, p + 1, size)
            guard v <= UInt64(b.count) else { return .unsupported }
            n = Int(v)
            p += 1 + size
        }
        switch high {
        case 0x0: return low == 0x8 || low == 0x9 ? .scalar : .unsupported
        case 0x1:
            guard low <= 3, p + (1 << low) <= table else { return .unsupported }
            let v = BoundedPlist.readUInt(b, p, 1 << low)
            return .integer(low == 3 ? Int64(bitPattern: v) : Int64(v))
        case 0x2: return (low == 2 || low == 3) && p + (1 << low) <= table ? .scalar : .unsupported
        case 0x3: return low == 3 && p + 8 <= table ? .scalar : .unsupported
        case 0x4: return p + n <= table ? .data(start: p, count: n) : .unsupported
        case 0x5:
            guard p + n <= table else { return .unsupported }
            for i in p..<(p + n) where b[i] >= 0x80 { return .unsupported }
            return .ascii(start: p, count: n)
        case 0x6:
            guard p + 2 * n <= table else { return .unsupported }
            // Surrogates only in pairs (a character outside the BMP: an emoji); an unpaired one
            // is left to Foundation.
            var i = 0
            while i < n {
                let high = b[p + 2 * i]
                if high & 0xF8 == 0xD8 {
                    guard high & 0xFC == 0xD8, i + 1 < n, b[p + 2 * (i + 1)] & 0xFC == 0xDC else { return .unsupported }
                    i += 1
                }
                i += 1
            }
            return .utf16(start: p, count: n)
        case 0x8:
            guard low <= 3, p + low + 1 <= table else { return .unsupported }
            return .uid(Int(BoundedPlist.readUInt(b, p, low + 1)))
        case 0xA: return p + n * refSize <= table ? .array(refs: p, count: n) : .unsupported
        case 0xD: return p + 2 * n * refSize <= table ? .dictionary(refs: p, count: n) : .unsupported
        default: return .unsupported
        }
    }

    /// True when each object starts at or after the end of the one before it in the offset
    /// table, as every writer lays them out (CoreFoundation's and Python's plistlib write them in
    /// table order). An offset into another object's bytes (a damaged table) is left to
    /// Foundation, which refuses some of those that would read here as other objects.
    private func objectsAreLaidOutInOrder() -> Bool {
        var end = 8
        for object in 0..<count {
            let start = offset(object)
            guard start >= end else { return false }
            let low = Int(b[start] & 0x0F)
            switch kinds[object] {
            case .data(let p, let n), .ascii(let p, let n): end = p + n
            case .utf16(let p, let n): end = p + 2 * n
            case .array(let refs, let n): end = refs + n * refSize
            case .dictionary(let refs, let n): end = refs + 2 * n * refSize
            case .integer: end = start + 1 + (1 << low)
            case .uid: end = start + 2 + low
            case .scalar:
                switch b[start] >> 4 {
                case 0x2: end = start + 1 + (1 << low)
                case 0x3: end = start + 9
                default: end = start + 1
                }
            case .unsupported: end = start + 1
            }
        }
        return true
    }

    /// True when every object reachable from the top is one this reader reads as Foundation
    /// does, and every dictionary's keys are strings.
    private func allSupported() -> Bool {
        // The walk's tables on the stack when they are small (a blob of a few dozen objects).
        withUnsafeTemporaryAllocation(of: Bool.self, capacity: count) { seen in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { pending in
                seen.initialize(repeating: false)
                return allSupported(seen: seen, pending: pending)
            }
        }
    }

    private func allSupported(seen: UnsafeMutableBufferPointer<Bool>, pending: UnsafeMutableBufferPointer<Int>) -> Bool {
        // Each object is pending at most once.
        var waiting = 1
        pending[0] = top
        seen[top] = true
        func visit(_ child: Int) -> Bool {
            guard child < count else { return false }
            if !seen[child] {
                seen[child] = true
                pending[waiting] = child
                waiting += 1
            }
            return true
        }
        while waiting > 0 {
            waiting -= 1
            switch kind(pending[waiting]) {
            case .unsupported: return false
            case .array(let refs, let n):
                for k in 0..<n where !visit(reference(refs, k)) { return false }
            case .dictionary(let refs, let n):
                for k in 0..<n {
                    switch kind(reference(refs, k)) {
                    case .ascii, .utf16: break
                    default: return false
                    }
                }
                for k in n..<(2 * n) where !visit(reference(refs, k)) { return false }
            default: break
            }
        }
        return true
    }

    /// True when the string object at `start` (ASCII or UTF-16) spells `key` (ASCII).
    private func equals(_ string: Kind, _ key: StaticString) -> Bool {
        let n = key.utf8CodeUnitCount
        return key.withUTF8Buffer { k in
            switch string {
            case .ascii(let start, let count):
                guard count == n else { return false }
                for i in 0..<n where b[start + i] != k[i] { return false }
                return true
            case .utf16(let start, let count):
                guard count == n else { return false }
                for i in 0..<n where b[start + 2 * i] != 0 || b[start + 2 * i + 1] != k[i] { return false }
                return true
            default: return false
            }
        }
    }

    private struct GiveUp: Error {}

    /// The value object of `key` in `dictionary`; nil when absent. Throws when the key is there
    /// twice (which of them Foundation keeps is its own business).
    private func value(_ dictionary: Kind, _ key: StaticString) throws(GiveUp) -> Int? {
        guard case .dictionary(let refs, let n) = dictionary else { throw GiveUp() }
        var found: Int?
        for k in 0..<n where equals(kind(reference(refs, k)), key) {
            guard found == nil else { throw GiveUp() }
            found = reference(refs, n + k)
        }
        return found
    }

    private func string(_ kind: Kind) -> String? {
        switch kind {
        case .ascii(let start, let n): return String(decoding: UnsafeBufferPointer(rebasing: b[start..<(start + n)]), as: UTF8.self)
        case .utf16(let start, let n):
            return String(decoding: (0..<n).lazy.map { UInt16(self.b[start + 2 * $0]) << 8 | UInt16(self.b[start + 2 * $0 + 1]) }, as: UTF16.self)
        default: return nil
        }
    }

    private func isNullString(_ kind: Kind) -> Bool { equals(kind, "$null") }

    /// `uid(_:)` of `MBFile`: a UID's value; nil for anything else; gives up on a `CF$UID` dictionary.
    private func uid(_ kind: Kind) throws(GiveUp) -> Int? {
        switch kind {
        case .uid(let n): return n
        case .dictionary: if try value(kind, "CF$UID") != nil { throw GiveUp() }
        default: break
        }
        return nil
    }

    /// `resolve(_:_:)` of `MBFile`: the object a UID names in `$objects`, nil for `$null` and out of range.
    private func resolve(_ uid: Int, _ objects: Kind) -> Kind? {
        guard case .array(let refs, let n) = objects, uid > 0, uid < n else { return nil }
        let k = kind(reference(refs, uid))
        return isNullString(k) ? nil : k
    }

    /// The root keys read, in one pass over the root's keys (`rootValues`).
    private static let rootKeys: [StaticString] = [
        "Size", "Mode", "LastModified", "LastStatusChange", "Birth", "InodeNumber", "UserID", "GroupID", "ProtectionClass",
        "Flags", "RelativePath", "Target", "EncryptionKey", "ExtendedAttributes",
    ]

    /// The value object of each of `rootKeys` in `root` (-1 when absent); gives up on a key
    /// found twice.
    private func rootValues(_ root: Kind) throws(GiveUp) -> [Int] {
        guard case .dictionary(let refs, let n) = root else { throw GiveUp() }
        var values = [Int](repeating: -1, count: Self.rootKeys.count)
        for k in 0..<n {
            let key = kind(reference(refs, k))
            let length: Int
            switch key {
            case .ascii(_, let count), .utf16(_, let count): length = count
            default: continue
            }
            for (i, name) in Self.rootKeys.enumerated() where name.utf8CodeUnitCount == length && equals(key, name) {
                guard values[i] < 0 else { throw GiveUp() }
                values[i] = reference(refs, n + k)
            }
        }
        return values
    }

    /// `value(_:)` inside `MBFile.decode`: a root value, through its UID when it is one.
    private func resolved(_ value: Int, _ objects: Kind) throws(GiveUp) -> Kind? {
        guard value >= 0 else { return nil }
        let k = kind(value)
        if let u = try uid(k) { return resolve(u, objects) }
        return k
    }

    private func bytes(_ kind: Kind) -> [UInt8]? {
        switch kind {
        case .ascii(let start, let n), .data(let start, let n): return Array(b[start..<(start + n)])
        case .utf16: return string(kind).map { Array($0.utf8) }
        default: return nil
        }
    }

    /// `dataBytes(_:_:)` of `MBFile`.
    private func dataBytes(_ kind: Kind?, _ objects: Kind) throws(GiveUp) -> [UInt8]? {
        guard let kind else { return nil }
        switch kind {
        case .ascii, .utf16, .data: return bytes(kind)
        case .dictionary:
            guard let inner = try value(kind, "NS.data").map(self.kind) else { return nil }
            if case .data = inner { return bytes(inner) }
            if let u = try uid(inner), let d = resolve(u, objects), case .data = d { return bytes(d) }
            if let s = try value(kind, "NS.bytes").map(self.kind) {
                switch s {
                case .ascii, .utf16: return bytes(s)
                default: break
                }
            }
            return nil
        default: return nil
        }
    }

    /// `integer(_:)` inside `MBFile.decode`: only an integer object is read here.
    private func integer(_ value: Int) throws(GiveUp) -> Int64? {
        guard value >= 0 else { return nil }
        guard case .integer(let n) = kind(value) else { throw GiveUp() }
        return n
    }

    /// `MBFile.decodeAttributes` of `ExtendedAttributes`' bytes, read directly when they are a
    /// binary plist this reader reads as Foundation would (else nil: Foundation decides): only
    /// the values of the names the tool reads (`MBFile.readsAttribute`) are taken, the other
    /// names compared and skipped, so a row recording thousands of attributes costs what their
    /// bytes cost to look at, not a Foundation object each (docs/limits.md).
    static func readAttributes(_ bytes: UnsafeBufferPointer<UInt8>) -> [(name: String, value: [UInt8])]? {
        guard (try? BoundedPlist.check(bytes, maximumSize: MBFile.maximumBlobSize)) == .binary, var reader = MBFileReader(bytes) else { return nil }
        return withUnsafeTemporaryAllocation(of: Kind.self, capacity: reader.count) { kinds in
            for i in 0..<reader.count { (kinds.baseAddress! + i).initialize(to: reader.object(i)) }
            reader.kinds = UnsafeBufferPointer(kinds)
            guard reader.objectsAreLaidOutInOrder(), reader.allSupported() else { return nil }
            return reader.wantedAttributes()
        }
    }

    /// The top dictionary's entries whose names the tool reads, data or string values (others
    /// skipped, as `MBFile.decodeAttributes` skips them), sorted by name; nil when the top is
    /// not a dictionary or a name read is there twice.
    private func wantedAttributes() -> [(name: String, value: [UInt8])]? {
        guard case .dictionary(let refs, let n) = kind(top) else { return nil }
        var list: [(name: String, value: [UInt8])] = []
        var names: [[UInt8]] = []
        for k in 0..<n {
            let key = kind(reference(refs, k))
            let name: [UInt8]
            switch key {
            case .ascii(let start, let count):
                guard MBFile.attributeNameLengths.contains(count) else { continue }
                name = Array(b[start..<(start + count)])
            case .utf16(_, let count):
                guard MBFile.attributeNameLengths.contains(count) else { continue }
                name = Array((string(key) ?? "").utf8)
            default: return nil
            }
            guard MBFile.readsAttribute(name) else { continue }
            guard !names.contains(name) else { return nil }
            names.append(name)
            let value = kind(reference(refs, n + k))
            switch value {
            case .data, .ascii, .utf16: list.append((String(decoding: name, as: UTF8.self), bytes(value) ?? []))
            default: continue
            }
        }
        return list.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }

    private func mbFile() -> MBFile? {
        do throws(GiveUp) {
            let archive = kind(top)
            guard let objectsRef = try value(archive, "$objects"), case .array = kind(objectsRef),
                  let topRef = try value(archive, "$top"), case .dictionary = kind(topRef),
                  let rootRef = try value(kind(topRef), "root"), let rootUID = try uid(kind(rootRef)) else { return nil }
            let objects = kind(objectsRef)
            guard let root = resolve(rootUID, objects), case .dictionary = root else { return nil }
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
            f.relativePath = try resolved(v[10], objects).flatMap(string)
            f.target = try dataBytes(resolved(v[11], objects), objects)
            f.encryptionKey = try dataBytes(resolved(v[12], objects), objects)
            if v[13] >= 0 {
                let bytes = try dataBytes(resolved(v[13], objects), objects)
                if let bytes, let read = bytes.withUnsafeBufferPointer(Self.readAttributes) {
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
