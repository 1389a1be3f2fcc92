import SandboxAuditSystem
import SandboxAuditCore

/// Path globs for the policy file, matched against paths relative to the data root.
///
/// - `*` matches any run of characters within one path component;
/// - `?` matches one character other than `/`;
/// - `[abc]`, `[a-z]`, `[!abc]` match one character of (or not of) a set;
/// - `**` as a whole component matches zero or more components (`Documents/**/*.sqlite`
///   matches `Documents/a.sqlite` and `Documents/x/y/a.sqlite`); a trailing `/**` matches
///   everything inside a folder but not the folder itself;
/// - a leading `/` is ignored: globs are always relative to the data root.
///
/// A glob that names a folder applies to everything beneath it, in the policies that say so.
/// Written by hand: Foundation has no glob matcher on Linux, and fnmatch(3) knows no `**`.
package struct Glob: Hashable, Sendable, CustomStringConvertible {
    package let pattern: String
    private let components: [[UInt8]]

    enum ParseError: Error, CustomStringConvertible, Equatable {
        case empty
        case unclosedBracket
        case doubleStarInComponent(String)
        var description: String {
            switch self {
            case .empty: return "an empty glob matches nothing"
            case .unclosedBracket: return "unclosed '[' in glob"
            case .doubleStarInComponent(let c): return "'**' must be a whole path component, not part of '\(c)'"
            }
        }
    }

    init(_ pattern: String) throws {
        var p = pattern
        while p.hasPrefix("/") { p.removeFirst() }
        while p.hasSuffix("/") && p.count > 1 { p.removeLast() }
        guard !p.isEmpty else { throw ParseError.empty }
        let parts = p.split(separator: "/", omittingEmptySubsequences: true).map { Array($0.utf8) }
        for part in parts {
            if part != Array("**".utf8), part.count > 2, String(decoding: part, as: UTF8.self).contains("**") {
                throw ParseError.doubleStarInComponent(String(decoding: part, as: UTF8.self))
            }
            var depth = 0
            for c in part {
                if c == UInt8(ascii: "[") { depth += 1 } else if c == UInt8(ascii: "]"), depth > 0 { depth -= 1 }
            }
            if depth != 0 { throw ParseError.unclosedBracket }
        }
        self.pattern = pattern
        self.components = parts
    }

    package var description: String { pattern }

    /// For each entry (by index), the topmost path among it and its ancestors that the glob
    /// matches: the item a policy on this glob is about. One pass, as parents sort first.
    func owners(in inventory: Inventory) -> [ContainerPath?] {
        var directoryOwner: [ContainerPath: ContainerPath] = [:]
        return inventory.entries.map { e in
            let inherited = e.path.parent.flatMap { directoryOwner[$0] }
            let owner = inherited ?? (matches(e.path) ? e.path : nil)
            if e.entry.kind == .directory, let owner { directoryOwner[e.path] = owner }
            return owner
        }
    }

    /// True when the glob matches `path` itself.
    func matches(_ path: ContainerPath) -> Bool {
        // Without `**` a match needs exactly as many components: read one more at most.
        let hasDoubleStar = components.contains(Glob.doubleStar)
        let parts = path.leadingComponents(hasDoubleStar ? Int.max : components.count + 1).map(Array.init)
        if !hasDoubleStar && parts.count != components.count { return false }
        return Glob.match(components[...], parts[...])
    }

    /// True when the glob matches `path` or one of its ancestors.
    package func covers(_ path: ContainerPath) -> Bool {
        let parts = path.leadingComponents(Int.max).map(Array.init)
        for n in stride(from: parts.count, through: 1, by: -1) where Glob.match(components[...], parts[0..<n]) {
            return true
        }
        return false
    }

    /// The glob's components, `**` as one of its own: for matching many globs against one path
    /// split once (`OwnerMatcher`), with `matches(_:_:)`.
    var patterns: [[UInt8]] { components }
    static let anyDepth = doubleStar

    /// True when component patterns match components, both already split.
    static func matches(_ patterns: ArraySlice<[UInt8]>, _ parts: ArraySlice<[UInt8]>) -> Bool { match(patterns, parts) }

    private static let doubleStar = Array("**".utf8)

    private static func match(_ globs: ArraySlice<[UInt8]>, _ parts: ArraySlice<[UInt8]>) -> Bool {
        guard let g = globs.first else { return parts.isEmpty }
        if g == doubleStar {
            let rest = globs.dropFirst()
            // A trailing `**` matches what is inside, not the folder itself (as in .gitignore):
            // `tmp/**` is everything in tmp.
            if rest.isEmpty { return !parts.isEmpty }
            var p = parts
            while true {
                if match(rest, p) { return true }
                guard !p.isEmpty else { return false }
                p = p.dropFirst()
            }
        }
        guard let part = parts.first, component(g[...], part[...]) else { return false }
        return match(globs.dropFirst(), parts.dropFirst())
    }

    /// One component: `*`, `?`, `[...]`, literal bytes.
    private static func component(_ g: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool {
        guard let c = g.first else { return s.isEmpty }
        switch c {
        case UInt8(ascii: "*"):
            var rest = s
            while true {
                if component(g.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        case UInt8(ascii: "?"):
            guard !s.isEmpty else { return false }
            return component(g.dropFirst(), s.dropFirst())
        case UInt8(ascii: "["):
            guard let ch = s.first, let close = g.dropFirst(2).firstIndex(of: UInt8(ascii: "]")) else { return false }
            var set = g[(g.startIndex + 1)..<close]
            let negate = set.first == UInt8(ascii: "!") || set.first == UInt8(ascii: "^")
            if negate { set = set.dropFirst() }
            var hit = false
            var i = set.startIndex
            while i < set.endIndex {
                if i + 2 < set.endIndex, set[i + 1] == UInt8(ascii: "-") {
                    if set[i] <= ch && ch <= set[i + 2] { hit = true }
                    i += 3
                } else {
                    if set[i] == ch { hit = true }
                    i += 1
                }
            }
            guard hit != negate else { return false }
            return component(g[(close + 1)...], s.dropFirst())
        default:
            guard s.first == c else { return false }
            return component(g.dropFirst(), s.dropFirst())
        }
    }
}
