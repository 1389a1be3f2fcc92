import Foundation
import SandboxAuditSystem

/// What of a path the globs read: its depth, its first and last components (as many as the
/// globs need), and all of them only when a glob has several `**`.
struct PathParts {
    let depth: Int
    let leading: [ArraySlice<UInt8>]
    let trailing: [ArraySlice<UInt8>]
    let all: ArraySlice<ArraySlice<UInt8>>

    /// The last `n` components (fewer when the path is shorter), read from the end.
    static func trailing(_ path: ContainerPath, _ n: Int) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var end = path.bytes.endIndex
        while out.count < n, end > path.bytes.startIndex {
            let start = path.bytes[..<end].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? path.bytes.startIndex
            out.append(path.bytes[start..<end])
            end = start - 1
        }
        return out.reversed()
    }
}

/// A glob as its matching needs it: components at fixed places, or around one `**`; each
/// component's literal head and tail checked first, so most paths are turned away without
/// running the glob.
struct GlobShape {
    enum Kind {
        /// No `**`: exactly the `before` components.
        case fixed
        /// One `**`: the `before` components first and the `after` ones last, anything between
        /// (a trailing `**`: at least one component after the first ones).
        case around
        /// Several `**`: matched against the whole path.
        case general
    }

    let kind: Kind
    let before: [[UInt8]]
    let after: [[UInt8]]
    let all: [[UInt8]]
    private let beforeAffixes: [Affix]
    private let afterAffixes: [Affix]

    /// What a component must start and end with to match a pattern.
    struct Affix {
        let head: [UInt8]
        let tail: [UInt8]

        init(_ pattern: [UInt8]) {
            let wild = "*?[".utf8
            guard let first = pattern.firstIndex(where: { wild.contains($0) }) else {
                head = pattern
                tail = []
                return
            }
            head = Array(pattern[..<first])
            // Only `*` wildcards: the bytes after the last one end every match.
            if pattern.contains(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "[") }) {
                tail = []
            } else {
                tail = Array(pattern[(pattern.lastIndex(of: UInt8(ascii: "*"))! + 1)...])
            }
        }

        func admits(_ c: ArraySlice<UInt8>) -> Bool {
            c.count >= head.count + tail.count && c.starts(with: head)
                && (tail.isEmpty || c.suffix(tail.count).elementsEqual(tail))
        }
    }

    init(_ glob: Glob) {
        let p = glob.patterns
        let stars = p.indices.filter { p[$0] == Glob.anyDepth }
        all = p
        switch stars.count {
        case 0: (kind, before, after) = (.fixed, p, [])
        case 1: (kind, before, after) = (.around, Array(p[..<stars[0]]), Array(p[(stars[0] + 1)...]))
        default: (kind, before, after) = (.general, [], [])
        }
        beforeAffixes = before.map(Affix.init)
        afterAffixes = after.map(Affix.init)
    }

    /// The literal head and tail a path's last component needs to match the glob's last
    /// component; nil for a glob ending in `**` or with several (any name may match).
    var lastAffix: Affix? {
        switch kind {
        case .fixed: return beforeAffixes.last
        case .around: return afterAffixes.last
        case .general: return nil
        }
    }

    var leading: Int { before.count }
    var trailing: Int { after.count }

    func matches(_ path: PathParts) -> Bool {
        switch kind {
        case .fixed:
            guard path.depth == before.count else { return false }
        case .around:
            guard path.depth >= before.count + max(after.count, 1) else { return false }
        case .general:
            return Glob.matches(all[...], path.all)
        }
        let lead = path.leading[0..<before.count]
        let trail = path.trailing[(path.trailing.count - after.count)...]
        for (a, c) in zip(beforeAffixes, lead) where !a.admits(c) { return false }
        for (a, c) in zip(afterAffixes, trail) where !a.admits(c) { return false }
        return Glob.matches(before[...], lead) && (kind == .fixed || Glob.matches(after[...], trail))
    }
}

/// The globs' last-component affixes (`GlobShape.lastAffix`) in one byte buffer, so that
/// turning a name away costs a few byte comparisons, without copying a glob or an array.
struct LastAffixes {
    private struct Span { var headStart: Int32, headCount: Int32, tailStart: Int32, tailCount: Int32, any: Bool }
    private let bytes: [UInt8]
    private let spans: [Span]

    init(_ affixes: [GlobShape.Affix?]) {
        var bytes: [UInt8] = []
        var spans: [Span] = []
        for affix in affixes {
            guard let affix else {
                spans.append(Span(headStart: 0, headCount: 0, tailStart: 0, tailCount: 0, any: true))
                continue
            }
            let head = Int32(bytes.count)
            bytes += affix.head
            let tail = Int32(bytes.count)
            bytes += affix.tail
            spans.append(
                Span(
                    headStart: head, headCount: Int32(affix.head.count), tailStart: tail,
                    tailCount: Int32(affix.tail.count), any: false))
        }
        self.bytes = bytes
        self.spans = spans
    }

    /// Whether `name` may match the last component of glob `index`.
    func admits(_ index: Int, _ name: ArraySlice<UInt8>) -> Bool {
        let s = spans[index]
        if s.any { return true }
        let head = Int(s.headCount)
        let tail = Int(s.tailCount)
        guard name.count >= head + tail else { return false }
        return (head == 0 || Bytes.equal(name, from: name.startIndex, bytes, from: Int(s.headStart), count: head))
            && (tail == 0 || Bytes.equal(name, from: name.endIndex - tail, bytes, from: Int(s.tailStart), count: tail))
    }

    /// Whether `name` may match the last component of any of the globs `indices` (the same
    /// test as `Affix.admits`).
    func admitsAny(_ indices: [Int], _ name: ArraySlice<UInt8>) -> Bool {
        let count = name.count
        for i in indices {
            let s = spans[i]
            if s.any { return true }
            let head = Int(s.headCount)
            let tail = Int(s.tailCount)
            guard count >= head + tail else { continue }
            if head > 0, !Bytes.equal(name, from: name.startIndex, bytes, from: Int(s.headStart), count: head) {
                continue
            }
            if tail > 0, !Bytes.equal(name, from: name.endIndex - tail, bytes, from: Int(s.tailStart), count: tail) {
                continue
            }
            return true
        }
        return false
    }
}
