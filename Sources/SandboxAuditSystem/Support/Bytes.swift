#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Byte strings compared and searched with the C library's `memcmp` and `memchr`, behind a safe
/// interface: the callers hand arrays and slices, never a pointer. One call per comparison,
/// where a generic `lexicographicallyPrecedes` steps element by element (ten times slower in a
/// debug build, and not vectorised in any).
package enum Bytes {
    /// Byte order (memcmp, then the shorter first): negative, zero or positive.
    package static func compare(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
        let common = min(a.count, b.count)
        let c: Int32 =
            common == 0
            ? 0
            : a.withUnsafeBufferPointer { x in
                b.withUnsafeBufferPointer { y in memcmp(x.baseAddress!, y.baseAddress!, common) }
            }
        if c != 0 { return c < 0 ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    package static func compare(_ a: ArraySlice<UInt8>, _ b: [UInt8]) -> Int { compare(a, b[...]) }

    /// Whether `count` bytes of `a` from `aStart` equal those of `b` from `bStart` (the ranges
    /// must lie within them).
    package static func equal(_ a: ArraySlice<UInt8>, from aStart: Int, _ b: [UInt8], from bStart: Int, count: Int)
        -> Bool
    {
        precondition(aStart >= a.startIndex && aStart + count <= a.endIndex && bStart >= 0 && bStart + count <= b.count)
        if count == 0 { return true }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                memcmp(x.baseAddress! + (aStart - a.startIndex), y.baseAddress! + bStart, count) == 0
            }
        }
    }

    /// How many leading bytes `a` and `b` share.
    package static func commonPrefixLength(_ a: ArraySlice<UInt8>, _ b: [UInt8]) -> Int {
        a.withUnsafeBufferPointer { t in
            b.withUnsafeBufferPointer { d in
                var i = 0
                let limit = min(t.count, d.count)
                while i < limit, t[i] == d[i] { i += 1 }
                return i
            }
        }
    }
}
