extension BoundedPlist {
    /// The objects of a binary property list, read in place from its bytes without a Foundation
    /// object per value, behind a safe interface: objects are named by their number in the
    /// offset table (as the plist's own references name them), and what the caller asks of one
    /// (its kind, a reference it holds, its string or bytes, whether it spells a key) comes back
    /// as a value. `MBFileReader` reads a `Manifest.db` row's `MBFile` blob with it.
    ///
    /// `init` reads the trailer, the offset table and every object's marker and extent once,
    /// and accepts only a plist this reader reads exactly as Foundation would: every object
    /// laid out after the one before it, every object reachable from the top of the vocabulary
    /// below, every dictionary's keys strings. It gives nil on anything else (null and fill
    /// markers, 16-byte integers, sets, UIDs over 4 bytes, ASCII strings with bytes over 0x7F,
    /// UTF-16 with an unpaired surrogate or no character, a damaged table), and the caller leaves those bytes to
    /// Foundation. The format and Foundation's checks: swift-corelibs-foundation,
    /// Sources/CoreFoundation/CFBinaryPList.c (https://github.com/swiftlang/swift-corelibs-foundation).
    ///
    /// Why the raw reads here are sound: the bytes are held (`bytes`, immutable) for as long as
    /// the value lives, and read only inside `withUnsafeBufferPointer` on them. Every position
    /// read is one `init` checked against the start of the offset table (`table`, before the
    /// 32-byte trailer, so inside the bytes) when it read the object's marker and length, and
    /// `Stored` keeps only positions so checked; the caller names objects by number, checked
    /// against the number of objects (out of range is `.unsupported`), and a reference by its
    /// index, checked against the container's count. So each field costs one check, and its
    /// bytes are then read without one per byte.
    package struct Objects: Sendable {
        /// What an object is, as the caller sees it.
        package enum Kind: Sendable, Equatable {
            case integer(Int64)
            case uid(Int)
            /// ASCII or UTF-16: `count` characters (code units).
            case string(count: Int)
            case data(count: Int)
            case array(count: Int)
            /// `count` keys, then as many values, among its references.
            case dictionary(count: Int)
            /// A boolean, a real or a date: read by no caller as a value, but a valid object.
            case scalar
            /// Outside the vocabulary above, or not an object of this plist.
            case unsupported
        }

        /// What each object is, with where its payload starts in `bytes` (from its start).
        private enum Stored: Sendable {
            case integer(Int64)
            case uid(Int)
            /// ASCII bytes or big-endian UTF-16 code units at `start`.
            case ascii(start: Int, count: Int)
            case utf16(start: Int, count: Int)
            case data(start: Int, count: Int)
            /// `count` references of `refSize` bytes at `refs`; a dictionary has 2 × `count`.
            case array(refs: Int, count: Int)
            case dictionary(refs: Int, count: Int)
            case scalar
            case unsupported
        }

        private let bytes: ArraySlice<UInt8>
        private let stored: [Stored]
        private let refSize: Int
        /// The top object's number.
        package let top: Int
        /// How many objects the offset table lists.
        package var count: Int { stored.count }

        /// The objects of `bytes`, or nil when they are not a binary plist this reader reads
        /// as Foundation does (above). `BoundedPlist.check` is not run here: a caller that
        /// hands the bytes on to Foundation runs it first.
        package init?(_ bytes: ArraySlice<UInt8>) {
            guard let read = bytes.withUnsafeBufferPointer({ Parser($0)?.read() }) else { return nil }
            self.bytes = bytes
            stored = read.stored
            refSize = read.refSize
            top = read.top
        }

        /// What object `object` is (`.unsupported` when there is no such object).
        package func kind(_ object: Int) -> Kind {
            guard object >= 0, object < stored.count else { return .unsupported }
            switch stored[object] {
            case .integer(let n): return .integer(n)
            case .uid(let n): return .uid(n)
            case .ascii(_, let n), .utf16(_, let n): return .string(count: n)
            case .data(_, let n): return .data(count: n)
            case .array(_, let n): return .array(count: n)
            case .dictionary(_, let n): return .dictionary(count: n)
            case .scalar: return .scalar
            case .unsupported: return .unsupported
            }
        }

        /// The object number of reference `k` of the array or dictionary `container` (a
        /// dictionary's keys are its first `count`, its values the next `count`). It may name no
        /// object (`kind` then says `.unsupported`). Asking a reference a container does not
        /// hold is a programming error (it traps).
        package func reference(_ container: Int, _ k: Int) -> Int {
            let refs: Int
            let n: Int
            switch container >= 0 && container < stored.count ? stored[container] : .unsupported {
            case .array(let at, let count):
                refs = at
                n = count
            case .dictionary(let at, let count):
                refs = at
                n = 2 * count
            default: preconditionFailure("object \(container) is not an array or a dictionary")
            }
            precondition(k >= 0 && k < n, "reference \(k) of \(n)")
            // `init` checked that the container's `n` references lie before the offset table.
            return bytes.withUnsafeBufferPointer { Self.reference($0, refs + k * refSize, refSize) }
        }

        /// True when the string object `object` (ASCII or UTF-16) spells `key` (ASCII).
        package func equals(_ object: Int, _ key: StaticString) -> Bool {
            guard object >= 0, object < stored.count else { return false }
            return bytes.withUnsafeBufferPointer { Self.spells($0, stored[object], key) }
        }

        /// Why a lookup gives no answer: the object is not a dictionary, or it holds the key
        /// twice (which of them Foundation keeps is its own business).
        package struct Undecided: Error {
            package init() {}
        }

        /// The value object of `key` in the dictionary `dictionary`; nil when it has no such key.
        package func value(_ key: StaticString, in dictionary: Int) throws(Undecided) -> Int? {
            guard dictionary >= 0, dictionary < stored.count, case .dictionary(let refs, let n) = stored[dictionary]
            else { throw Undecided() }
            // `init` checked that the dictionary's 2 × `n` references lie before the offset table.
            let found: Int?? = bytes.withUnsafeBufferPointer { b in
                var found: Int?
                for k in 0..<n where Self.spells(b, stored, Self.reference(b, refs + k * refSize, refSize), key) {
                    guard found == nil else { return .none }
                    found = Self.reference(b, refs + (n + k) * refSize, refSize)
                }
                return .some(found)
            }
            guard let found else { throw Undecided() }
            return found
        }

        /// The value object of each of `keys` in the dictionary `dictionary` (-1 for a key it
        /// does not hold), in one pass over its keys.
        package func values(_ keys: [StaticString], in dictionary: Int) throws(Undecided) -> [Int] {
            guard dictionary >= 0, dictionary < stored.count, case .dictionary(let refs, let n) = stored[dictionary]
            else { throw Undecided() }
            var values = [Int](repeating: -1, count: keys.count)
            // `init` checked that the dictionary's 2 × `n` references lie before the offset table.
            let unique = bytes.withUnsafeBufferPointer { b in
                for k in 0..<n {
                    let key = Self.reference(b, refs + k * refSize, refSize)
                    guard key < stored.count else { continue }
                    // The key's length compared with each name's before any of its bytes.
                    let length: Int
                    switch stored[key] {
                    case .ascii(_, let count), .utf16(_, let count): length = count
                    default: continue
                    }
                    let string = stored[key]
                    for i in 0..<keys.count where keys[i].utf8CodeUnitCount == length && Self.spells(b, string, keys[i])
                    {
                        guard values[i] < 0 else { return false }
                        values[i] = Self.reference(b, refs + (n + k) * refSize, refSize)
                    }
                }
                return true
            }
            guard unique else { throw Undecided() }
            return values
        }

        /// The object number in the reference of `size` bytes at `at` of `b` (a number past
        /// `Int.max` read as `Int.max`: no object, as any other past the last).
        private static func reference(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ size: Int) -> Int {
            atMostIntMax(BoundedPlist.readUInt(b, at, size))
        }

        /// `Int(clamping:)` of a UInt64 without the generic initializer (a call per reference in
        /// a debug build).
        @inline(__always)
        private static func atMostIntMax(_ v: UInt64) -> Int { v > UInt64(Int.max) ? Int.max : Int(v) }

        /// An entry of a dictionary, as `forEachEntry` hands it.
        package struct Entry {
            /// The key's and the value's object numbers.
            package let key: Int, value: Int
            /// The key's length (characters) when it is a string; nil when it is not.
            package let keyLength: Int?
        }

        /// Hands each entry of the dictionary `dictionary` to `body`, in order, until it
        /// returns false; false when it did, or `dictionary` is not a dictionary.
        package func forEachEntry(_ dictionary: Int, _ body: (Entry) -> Bool) -> Bool {
            guard dictionary >= 0, dictionary < stored.count, case .dictionary(let refs, let n) = stored[dictionary]
            else { return false }
            // `init` checked that the dictionary's 2 × `n` references lie before the offset table.
            return bytes.withUnsafeBufferPointer { b in
                for k in 0..<n {
                    let key = Self.reference(b, refs + k * refSize, refSize)
                    let length: Int?
                    switch key < stored.count ? stored[key] : .unsupported {
                    case .ascii(_, let count), .utf16(_, let count): length = count
                    default: length = nil
                    }
                    guard
                        body(
                            Entry(
                                key: key, value: Self.reference(b, refs + (n + k) * refSize, refSize), keyLength: length
                            ))
                    else { return false }
                }
                return true
            }
        }

        /// `spells` of object `object`, false when there is no such object.
        private static func spells(
            _ b: UnsafeBufferPointer<UInt8>, _ stored: [Stored], _ object: Int, _ key: StaticString
        ) -> Bool {
            object < stored.count && spells(b, stored[object], key)
        }

        /// True when `string` (ASCII or UTF-16, in `b`, the buffer of the bytes it was read
        /// from) spells `key` (ASCII); false for any other object. `init` checked its extent.
        private static func spells(_ b: UnsafeBufferPointer<UInt8>, _ string: Stored, _ key: StaticString) -> Bool {
            let n = key.utf8CodeUnitCount
            switch string {
            case .ascii(let start, let count):
                guard count == n else { return false }
                return key.withUTF8Buffer { k in
                    for i in 0..<n where b[start + i] != k[i] { return false }
                    return true
                }
            case .utf16(let start, let count):
                guard count == n else { return false }
                return key.withUTF8Buffer { k in
                    for i in 0..<n where b[start + 2 * i] != 0 || b[start + 2 * i + 1] != k[i] { return false }
                    return true
                }
            default: return false
            }
        }

        /// The string object `object` (ASCII or UTF-16); nil for any other.
        package func string(_ object: Int) -> String? {
            guard object >= 0, object < stored.count else { return nil }
            switch stored[object] {
            case .ascii(let start, let n):
                let from = bytes.startIndex + start
                return String(decoding: bytes[from..<(from + n)], as: UTF8.self)
            case .utf16(let start, let n):
                // `init` checked start + 2 × n against the table, and that surrogates come in pairs.
                return bytes.withUnsafeBufferPointer { b in
                    String(
                        decoding: (0..<n).lazy.map { UInt16(b[start + 2 * $0]) << 8 | UInt16(b[start + 2 * $0 + 1]) },
                        as: UTF16.self)
                }
            default: return nil
            }
        }

        /// The bytes of a data or ASCII string object, a UTF-16 string's UTF-8; nil for any other.
        package func bytes(_ object: Int) -> [UInt8]? {
            guard object >= 0, object < stored.count else { return nil }
            switch stored[object] {
            case .ascii(let start, let n), .data(let start, let n):
                let from = bytes.startIndex + start
                return Array(bytes[from..<(from + n)])
            case .utf16: return string(object).map { Array($0.utf8) }
            default: return nil
            }
        }

        /// The reading done by `init`, over the bytes' buffer, which it never keeps: a `Parser`
        /// lives only inside the `withUnsafeBufferPointer` call that made it (`init`).
        private struct Parser {
            let b: UnsafeBufferPointer<UInt8>
            let offsetSize: Int, refSize: Int, count: Int, table: Int, top: Int

            init?(_ b: UnsafeBufferPointer<UInt8>) {
                guard b.count >= 8 + 1 + 32, b.starts(with: "bplist00".utf8) else { return nil }
                self.b = b
                let t = b.count - 32
                offsetSize = Int(b[t + 6])
                refSize = Int(b[t + 7])
                let objects = BoundedPlist.readUInt(b, t + 8, 8)
                let top = BoundedPlist.readUInt(b, t + 16, 8)
                let tableOffset = BoundedPlist.readUInt(b, t + 24, 8)
                guard (1...8).contains(offsetSize), (1...8).contains(refSize), objects >= 1, objects <= UInt64(b.count),
                    top < objects, tableOffset >= 9, tableOffset <= UInt64(t),
                    UInt64(t) - tableOffset >= objects * UInt64(offsetSize)
                else { return nil }
                // CoreFoundation's own checks (__CFBinaryPlistGetTopLevelInfo): the offset table ends
                // where the trailer starts, references and offsets are wide enough for what they
                // address, and every offset lies before the table.
                guard tableOffset + objects * UInt64(offsetSize) == UInt64(t),
                    refSize == 8 || (UInt64(1) << (8 * UInt64(refSize))) > objects,
                    offsetSize == 8 || (UInt64(1) << (8 * UInt64(offsetSize))) > tableOffset
                else { return nil }
                count = Int(objects)
                table = Int(tableOffset)
                self.top = Int(top)
                for object in 0..<count where offset(object) >= table { return nil }
                guard offset(self.top) >= 8 else { return nil }
            }

            /// Every object, or nil when the plist is not one `Objects` reads.
            func read() -> (stored: [Stored], refSize: Int, top: Int)? {
                // Each object read where it starts, which must be at or after the end of the one
                // before it. The count is set once all `count` elements are initialized; when an
                // object is out of order it stays 0 and the array is dropped unread (a `Stored`
                // holds no reference: the elements written need no deinitializing).
                var inOrder = true
                let stored = [Stored](unsafeUninitializedCapacity: count) { objects, initialized in
                    var end = 8
                    for i in 0..<count {
                        let start = offset(i)
                        let read = object(at: start)
                        // `init?` checked every offset against the table: from here 8 <= start < table.
                        guard start >= end else {
                            inOrder = false
                            return
                        }
                        end = self.end(of: read, at: start)
                        (objects.baseAddress! + i).initialize(to: read)
                    }
                    initialized = count
                }
                guard inOrder, stored.withUnsafeBufferPointer(allSupported) else { return nil }
                return (stored, refSize, top)
            }

            // The offset table lies inside the bytes (checked by `init?`), `object` < `count`.
            // An offset past `Int.max` reads as `Int.max`: past the table, refused like any other there.
            private func offset(_ object: Int) -> Int {
                Objects.atMostIntMax(BoundedPlist.readUInt(b, table + object * offsetSize, offsetSize))
            }
            // Only for a container `object(_:)` returned, whose references it checked.
            private func reference(_ at: Int, _ k: Int) -> Int { Objects.reference(b, at + k * refSize, refSize) }

            /// What object `object` is. Every position read is checked against `table` first.
            private func object(at start: Int) -> Stored {
                guard start >= 8, start < table else { return .unsupported }
                let marker = b[start]
                let high = marker >> 4
                let low = Int(marker & 0x0F)
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
                    // An empty one (0x60) CoreFoundation refuses: it allocates the characters
                    // and takes the NULL CFAllocatorAllocate gives for 0 bytes for a failure
                    // (CFBinaryPList.c). Writers write an empty string as ASCII.
                    guard n > 0, p + 2 * n <= table else { return .unsupported }
                    // Surrogates only in pairs (a character outside the BMP: an emoji); an unpaired one
                    // is left to Foundation.
                    var i = 0
                    while i < n {
                        let high = b[p + 2 * i]
                        if high & 0xF8 == 0xD8 {
                            guard high & 0xFC == 0xD8, i + 1 < n, b[p + 2 * (i + 1)] & 0xFC == 0xDC else {
                                return .unsupported
                            }
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

            /// Where the object `stored` read at `start` ends: each object starts at or after the end
            /// of the one before it in the offset table, as every writer lays them out
            /// (CoreFoundation's and Python's plistlib write them in table order). An offset into
            /// another object's bytes (a damaged table) is left to Foundation, which refuses some
            /// of those that would read here as other objects. `start` is inside the object area.
            private func end(of stored: Stored, at start: Int) -> Int {
                let low = Int(b[start] & 0x0F)
                switch stored {
                case .data(let p, let n), .ascii(let p, let n): return p + n
                case .utf16(let p, let n): return p + 2 * n
                case .array(let refs, let n): return refs + n * refSize
                case .dictionary(let refs, let n): return refs + 2 * n * refSize
                case .integer: return start + 1 + (1 << low)
                case .uid: return start + 2 + low
                case .scalar:
                    switch b[start] >> 4 {
                    case 0x2: return start + 1 + (1 << low)
                    case 0x3: return start + 9
                    default: return start + 1
                    }
                case .unsupported: return start + 1
                }
            }

            /// True when every object reachable from the top is one this reader reads as Foundation
            /// does, and every dictionary's keys are strings.
            private func allSupported(_ stored: UnsafeBufferPointer<Stored>) -> Bool {
                // The walk's tables on the stack when they are small (a blob of a few dozen objects).
                // They live only for this call; every index into them is an object number below
                // `count` (`visit` checks), and each object is pending at most once, so at most
                // `count` are.
                withUnsafeTemporaryAllocation(of: Bool.self, capacity: count) { seen in
                    withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { pending in
                        seen.initialize(repeating: false)
                        return allSupported(stored, seen: seen, pending: pending)
                    }
                }
            }

            private func allSupported(
                _ stored: UnsafeBufferPointer<Stored>, seen: UnsafeMutableBufferPointer<Bool>,
                pending: UnsafeMutableBufferPointer<Int>
            ) -> Bool {
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
                func isString(_ object: Int) -> Bool {
                    guard object < count else { return false }
                    switch stored[object] {
                    case .ascii, .utf16: return true
                    default: return false
                    }
                }
                while waiting > 0 {
                    waiting -= 1
                    switch stored[pending[waiting]] {
                    case .unsupported: return false
                    case .array(let refs, let n):
                        for k in 0..<n where !visit(reference(refs, k)) { return false }
                    case .dictionary(let refs, let n):
                        for k in 0..<n where !isString(reference(refs, k)) { return false }
                        for k in n..<(2 * n) where !visit(reference(refs, k)) { return false }
                    default: break
                    }
                }
                return true
            }
        }
    }
}

extension BoundedPlist {
    /// `check` of bytes inside a larger array (a `Manifest.db` row's blob in its batch's
    /// buffer), read in place.
    @discardableResult
    package static func check(_ bytes: ArraySlice<UInt8>, maximumSize: Int = defaultMaximumSize, openStep: Bool = false)
        throws -> Format
    {
        try bytes.withUnsafeBufferPointer { try check($0, maximumSize: maximumSize, openStep: openStep) }
    }

    /// The big-endian unsigned integer of `size` bytes at `at` of `b`, each byte read through
    /// the array's checked subscript (for a few reads, where `Objects` is not worth making).
    package static func readUInt(_ b: [UInt8], _ at: Int, _ size: Int) -> UInt64 {
        var v: UInt64 = 0
        for k in 0..<size { v = v << 8 | UInt64(b[at + k]) }
        return v
    }
}
