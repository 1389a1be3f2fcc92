/// A glob pattern of one path component (`*`, `?`, `[...]` sets with ranges and `!`/`^`, literal
/// bytes) matched against a name's bytes, on the bytes' memory directly: the policy's globs run
/// for every entry of a container (the caller, `Glob`, splits paths into components and handles
/// `**`).
package enum ComponentPattern {
    /// Whether `s` matches `g`: `*`, `?`, `[...]`, literal bytes; two indices, a mismatch moving
    /// only the last `*` on by one byte, so a component costs at most its length times the
    /// pattern's, whatever the stars.
    package static func matches(_ g: [UInt8], _ s: ArraySlice<UInt8>) -> Bool {
        g.withUnsafeBufferPointer { gp in
            s.withUnsafeBufferPointer { sp in component(gp, sp) }
        }
    }

    private static func component(_ g: UnsafeBufferPointer<UInt8>, _ s: UnsafeBufferPointer<UInt8>) -> Bool {
        let star = UInt8(ascii: "*")
        var pi = 0
        var si = 0
        var starP = -1
        var starS = 0
        while si < s.count {
            if pi < g.count {
                if g[pi] == star {
                    starP = pi
                    starS = si
                    pi += 1
                    continue
                }
                if let next = single(g, pi, s[si]) {
                    pi = next
                    si += 1
                    continue
                }
            }
            guard starP >= 0 else { return false }
            starS += 1
            si = starS
            pi = starP + 1
        }
        while pi < g.count, g[pi] == star { pi += 1 }
        return pi == g.count
    }

    /// The index after the one-byte token at `pi` (`?`, a `[...]` set, a literal byte) when it
    /// matches `ch`; nil when it does not (a `[` without its `]` matches nothing).
    private static func single(_ g: UnsafeBufferPointer<UInt8>, _ pi: Int, _ ch: UInt8) -> Int? {
        switch g[pi] {
        case UInt8(ascii: "?"):
            return pi + 1
        case UInt8(ascii: "["):
            // The set ends at the first `]` after its first member (`[]a]` holds `]`).
            var close = pi + 2
            while close < g.count, g[close] != UInt8(ascii: "]") { close += 1 }
            guard close < g.count else { return nil }
            var i = pi + 1
            let negate = g[i] == UInt8(ascii: "!") || g[i] == UInt8(ascii: "^")
            if negate { i += 1 }
            var hit = false
            while i < close {
                if i + 2 < close, g[i + 1] == UInt8(ascii: "-") {
                    if g[i] <= ch && ch <= g[i + 2] { hit = true }
                    i += 3
                } else {
                    if g[i] == ch { hit = true }
                    i += 1
                }
            }
            return hit != negate ? close + 1 : nil
        default:
            return g[pi] == ch ? pi + 1 : nil
        }
    }
}
