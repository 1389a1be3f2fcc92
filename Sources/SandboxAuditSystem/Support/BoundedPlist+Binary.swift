import Foundation

extension BoundedPlist {
    // MARK: binary

    package static func checkBinary(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBufferPointer { try checkBinary($0) }
    }

    static func checkBinary(_ b: UnsafeBufferPointer<UInt8>) throws {
        let n = b.count
        guard n >= 8 + 1 + 32 else { throw Refusal("binary property list truncated") }
        let t = n - 32
        let offsetSize = Int(b[t + 6])
        let refSize = Int(b[t + 7])
        let objectCount = readUInt(b, t + 8, 8)
        let top = readUInt(b, t + 16, 8)
        let tableOffset = readUInt(b, t + 24, 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw Refusal("binary property list trailer is malformed")
        }
        // Every object takes at least one byte, so there are no more objects than bytes.
        guard objectCount >= 1, objectCount <= UInt64(n), top < objectCount else {
            throw Refusal("binary property list trailer claims \(objectCount) objects")
        }
        guard tableOffset >= 9, tableOffset <= UInt64(t),
            UInt64(t) - tableOffset >= objectCount * UInt64(offsetSize)
        else {
            throw Refusal("binary property list offset table lies outside the file")
        }
        let count = Int(objectCount)
        let table = Int(tableOffset)

        // Iterative depth-first walk with memoised expanded sizes. state: 0 new, 1 on stack, 2 done.
        // The walk's tables live on the stack when they are small (a Manifest.db row's blob).
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { state in
            try withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * count) { expanded in
                // An object is on the stack at most once, so it is never deeper than the objects.
                try withUnsafeTemporaryAllocation(of: Frame.self, capacity: min(count, maximumDepth) + 1) { stack in
                    state.initialize(repeating: 0)
                    try walk(
                        b, state: state, expanded: expanded, stack: stack, count: count, top: Int(top),
                        offsetSize: offsetSize, refSize: refSize, table: table)
                }
            }
        }
    }

    /// An object being walked: its references are `refCount` integers of `refSize` bytes at `refs`;
    /// the first `keys` of them (a dictionary's keys) must be strings.
    private struct Frame {
        var object: Int
        var refs: Int
        var refCount: Int
        var keys: Int
        var next: Int
        var objects: Int
        var bytes: Int
    }

    /// The walk of `checkBinary`: `expanded` holds an object's expanded objects at its index and
    /// its expanded bytes at `count` + its index, once its `state` is 2.
    private static func walk(
        _ b: UnsafeBufferPointer<UInt8>, state: UnsafeMutableBufferPointer<UInt8>,
        expanded: UnsafeMutableBufferPointer<Int>,
        stack: UnsafeMutableBufferPointer<Frame>, count: Int, top: Int, offsetSize: Int, refSize: Int, table: Int
    ) throws {
        let n = b.count
        let objectCount = UInt64(count)
        let tableOffset = UInt64(table)
        let objectEnd = table
        let maxObjects = maximumExpandedObjects(for: n)
        let maxBytes = maximumExpandedBytes(for: n)
        func malformed(_ object: Int, _ what: String) -> Refusal {
            Refusal("binary property list object \(object) \(what)")
        }

        func open(_ object: Int) throws -> Frame {
            let o = readUInt(b, table + object * offsetSize, offsetSize)
            guard o >= 8, o < tableOffset else { throw malformed(object, "lies outside the object area") }
            let start = Int(o)
            let marker = b[start]
            let high = marker >> 4
            let low = Int(marker & 0x0F)
            var p = start + 1
            // Length of a variable-sized object: the low nibble, or a following integer object.
            func length() throws -> Int {
                if low != 0x0F { return low }
                guard p < objectEnd, b[p] >> 4 == 0x1 else { throw malformed(object, "has a malformed length") }
                let size = 1 << Int(b[p] & 0x0F)
                guard size <= 8, p + 1 + size <= objectEnd else { throw malformed(object, "has a malformed length") }
                let v = readUInt(b, p + 1, size)
                p += 1 + size
                guard v <= UInt64(n) else { throw malformed(object, "claims \(v) elements") }
                return Int(v)
            }
            func need(_ bytes: Int) throws {
                guard bytes >= 0, p + bytes <= objectEnd else { throw malformed(object, "runs past the object area") }
            }
            var payload = 0
            switch high {
            case 0x0:
                // false and true. Null (0x00) and fill (0x0F) are in the format's header but no
                // writer emits them: Foundation refuses fill, and makes null an NSNull nothing
                // encodes again.
                guard low == 0x08 || low == 0x09 else {
                    throw malformed(
                        object, "has a marker no property list writer emits (0x\(String(marker, radix: 16)))")
                }
                payload = 1
            case 0x1:
                guard low <= 4 else { throw malformed(object, "is a number of unsupported size") }
                try need(1 << low)
                payload = 1 << low
            case 0x2:
                // Reals are 4 or 8 bytes.
                guard low == 2 || low == 3 else { throw malformed(object, "is a number of unsupported size") }
                try need(1 << low)
                payload = 1 << low
            case 0x3:
                guard low == 3 else { throw malformed(object, "has an unknown marker") }
                try need(8)
                payload = 8
            case 0x4, 0x5:
                let len = try length()
                try need(len)
                payload = len
            case 0x6:
                let len = try length()
                try need(len * 2)
                payload = len * 2
            case 0x8:
                // A UID of 1 to 4 bytes, as Foundation reads it.
                guard low <= 3 else { throw malformed(object, "is a UID of unsupported size") }
                try need(low + 1)
                payload = low + 1
            case 0xA, 0xD:
                let len = try length()
                let refs = high == 0xD ? len * 2 : len
                try need(refs * refSize)
                return Frame(
                    object: object, refs: p, refCount: refs, keys: high == 0xD ? len : 0, next: 0, objects: 1, bytes: 0)
            case 0xC:
                // A set: Foundation on Linux reads one and then crashes bridging it (SIGSEGV);
                // no property list Apple writes holds one.
                throw malformed(
                    object,
                    "is a set (marker 0x\(String(marker, radix: 16))), which no property list Apple writes holds")
            default:
                throw malformed(object, "has an unknown marker 0x\(String(marker, radix: 16))")
            }
            return Frame(object: object, refs: p, refCount: 0, keys: 0, next: 0, objects: 1, bytes: payload)
        }

        func overLimit() -> Refusal {
            Refusal(
                "binary property list expands to more than \(maxObjects) objects or \(maxBytes) bytes (shared "
                    + "references)"
            )
        }
        state[top] = 1
        stack[0] = try open(top)
        var depth = 1
        while depth > 0 {
            let i = depth - 1
            if stack[i].next < stack[i].refCount {
                let r = readUInt(b, stack[i].refs + stack[i].next * refSize, refSize)
                guard r < objectCount else { throw malformed(stack[i].object, "refers to a missing object") }
                let child = Int(r)
                if stack[i].next < stack[i].keys {
                    // Keys are strings (ASCII or UTF-16), as in every plist Apple writes.
                    let o = readUInt(b, table + child * offsetSize, offsetSize)
                    guard o >= 8, o < tableOffset, b[Int(o)] >> 4 == 0x5 || b[Int(o)] >> 4 == 0x6 else {
                        throw malformed(stack[i].object, "has a key that is not a string")
                    }
                }
                stack[i].next += 1
                switch state[child] {
                case 2:
                    stack[i].objects += expanded[child]
                    stack[i].bytes += expanded[count + child]
                    if stack[i].objects > maxObjects || stack[i].bytes > maxBytes { throw overLimit() }
                case 1:
                    throw Refusal("binary property list contains a cycle")
                default:
                    guard depth < maximumDepth else {
                        throw Refusal("binary property list nested more than \(maximumDepth) deep")
                    }
                    state[child] = 1
                    stack[depth] = try open(child)
                    depth += 1
                }
            } else {
                let done = stack[i]
                depth -= 1
                state[done.object] = 2
                expanded[done.object] = done.objects
                expanded[count + done.object] = done.bytes
                if depth > 0 {
                    let parent = depth - 1
                    stack[parent].objects += done.objects
                    stack[parent].bytes += done.bytes
                    if stack[parent].objects > maxObjects || stack[parent].bytes > maxBytes { throw overLimit() }
                }
            }
        }
    }
}
