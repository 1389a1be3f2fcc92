/// A column of 64-bit values (sizes, times, device and inode numbers) nearly all of which fit in
/// 32 bits: four bytes an entry, and the few values that do not fit (a file past 4 GiB, a time
/// before 1970 or after 2106, a 64-bit inode number) in a sparse table by entry. Reads are
/// exact whatever the value; a million entries hold 4 MB here instead of 8.
@usableFromInline package struct NarrowColumn<Value: FixedWidthInteger & Sendable>: Sendable {
    /// Each entry's value, or `wideMark` when it is in `wide`.
    @usableFromInline var narrow: [UInt32] = []
    @usableFromInline var wide: [Int32: Value] = [:]
    @usableFromInline static var wideMark: UInt32 { .max }

    init() {}

    init(narrow: [UInt32], wide: [Int32: Value]) {
        self.narrow = narrow
        self.wide = wide
    }

    var count: Int { narrow.count }

    /// The value as it is kept narrow, nil when it does not fit.
    @inlinable static func narrowed(_ v: Value) -> UInt32? {
        v >= 0 && UInt64(v) < UInt64(wideMark) ? UInt32(truncatingIfNeeded: v) : nil
    }

    @inlinable subscript(i: Int) -> Value {
        get {
            let v = narrow[i]
            return v != NarrowColumn.wideMark ? Value(truncatingIfNeeded: v) : wide[Int32(i)]!
        }
        set {
            if let n = NarrowColumn.narrowed(newValue) {
                if narrow[i] == NarrowColumn.wideMark { wide[Int32(i)] = nil }
                narrow[i] = n
            } else {
                narrow[i] = NarrowColumn.wideMark
                wide[Int32(i)] = newValue
            }
        }
    }

    /// For a column of ends (entry `i`'s bytes follow entry `i - 1`'s in one buffer and end at
    /// `self[i]`): where entry `i`'s bytes lie.
    @inlinable func span(_ i: Int) -> Range<Int> where Value == Int { (i == 0 ? 0 : self[i - 1])..<self[i] }

    mutating func append(_ v: Value) {
        if let n = NarrowColumn.narrowed(v) {
            narrow.append(n)
        } else {
            wide[Int32(narrow.count)] = v
            narrow.append(NarrowColumn.wideMark)
        }
    }

    mutating func reserveCapacity(_ n: Int) { narrow.reserveCapacity(n) }

    /// `other`'s values, each plus `offset`, after these; `other` emptied.
    mutating func take(_ other: inout NarrowColumn, reserving total: Int, adding offset: Value = 0) {
        let base = Int32(narrow.count)
        narrow.reserveCapacity(total)
        if offset == 0 {
            narrow += other.narrow
            for (k, v) in other.wide { wide[k + base] = v }
        } else if other.wide.isEmpty, let add = NarrowColumn.narrowed(offset),
            UInt64(other.narrow.max() ?? 0) + UInt64(add) < UInt64(NarrowColumn.wideMark)
        {
            // Every sum stays narrow: added in one pass.
            narrow += other.narrow.lazy.map { $0 + add }
        } else {
            for i in 0..<other.count { append(other[i] + offset) }
        }
        other = NarrowColumn()
    }

    /// The values in `order` (old positions), this column let go; `inverse` maps an old position
    /// to its new one.
    mutating func gathered(_ order: [Int32], inverse: [Int32]) -> NarrowColumn {
        let out = PathOrder.gather(narrow, order)
        narrow = []
        var moved: [Int32: Value] = [:]
        moved.reserveCapacity(wide.count)
        for (k, v) in wide { moved[inverse[Int(k)]] = v }
        wide = [:]
        return NarrowColumn(narrow: out, wide: moved)
    }
}
