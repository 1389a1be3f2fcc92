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
        enum Stored: Sendable {
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
        static func reference(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ size: Int) -> Int {
            atMostIntMax(BoundedPlist.readUInt(b, at, size))
        }

        /// `Int(clamping:)` of a UInt64 without the generic initializer (a call per reference in
        /// a debug build).
        @inline(__always)
        static func atMostIntMax(_ v: UInt64) -> Int { v > UInt64(Int.max) ? Int.max : Int(v) }

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
        static func spells(
            _ b: UnsafeBufferPointer<UInt8>, _ stored: [Stored], _ object: Int, _ key: StaticString
        ) -> Bool {
            object < stored.count && spells(b, stored[object], key)
        }

        /// True when `string` (ASCII or UTF-16, in `b`, the buffer of the bytes it was read
        /// from) spells `key` (ASCII); false for any other object. `init` checked its extent.
        static func spells(_ b: UnsafeBufferPointer<UInt8>, _ string: Stored, _ key: StaticString) -> Bool {
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
