extension BoundedPlist.Objects {
    /// The reading done by `init`, over the bytes' buffer, which it never keeps: a `Parser`
    /// lives only inside the `withUnsafeBufferPointer` call that made it (`init`).
    struct Parser {
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
            BoundedPlist.Objects.atMostIntMax(BoundedPlist.readUInt(b, table + object * offsetSize, offsetSize))
        }
        // Only for a container `object(_:)` returned, whose references it checked.
        private func reference(_ at: Int, _ k: Int) -> Int {
            BoundedPlist.Objects.reference(b, at + k * refSize, refSize)
        }

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
