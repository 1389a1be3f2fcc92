import SandboxAuditCore
import SandboxAuditSystem

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
        self.hasAnyDepth = parts.contains(Glob.doubleStar)
    }

    package var description: String { pattern }

    /// True when the glob matches `path` itself.
    func matches(_ path: ContainerPath) -> Bool {
        // Without `**` a match needs exactly as many components: read one more at most.
        let parts = path.leadingComponents(hasAnyDepth ? Int.max : components.count + 1)
        if !hasAnyDepth && parts.count != components.count { return false }
        return Glob.match(components[...], parts[...], prefix: false)
    }

    /// True when the glob matches `path` or one of its ancestors: the glob followed by
    /// "anything below", matched once.
    package func covers(_ path: ContainerPath) -> Bool {
        let parts = path.leadingComponents(hasAnyDepth ? Int.max : components.count)
        return Glob.match(components[...], parts[...], prefix: true)
    }

    /// `covers` of a path already split (`GlobSet`).
    func covers(_ parts: ArraySlice<ArraySlice<UInt8>>) -> Bool {
        Glob.match(components[...], hasAnyDepth ? parts : parts.prefix(components.count), prefix: true)
    }

    /// Whether the glob has a `**` component.
    let hasAnyDepth: Bool

    /// The glob's components, `**` as one of its own: for matching many globs against one path
    /// split once (`OwnerMatcher`), with `matches(_:_:)`.
    var patterns: [[UInt8]] { components }
    static let anyDepth = doubleStar

    /// True when component patterns match components, both already split.
    static func matches(_ patterns: ArraySlice<[UInt8]>, _ parts: ArraySlice<ArraySlice<UInt8>>) -> Bool {
        match(patterns, parts, prefix: false)
    }

    private static let doubleStar = Array("**".utf8)

    /// Components against components, in time proportional to their product (git's wildmatch
    /// bounds `**` the same way): each `**` is a star over components, and a mismatch after it
    /// moves only the last `**` on by one component (the earliest match of what follows it is
    /// as good as any, since components match one by one). A trailing `**` matches one
    /// component or more (what is inside a folder, not the folder). With `prefix`, the globs
    /// may match any leading run of one component or more (the path or an ancestor).
    static func match(_ globs: ArraySlice<[UInt8]>, _ parts: ArraySlice<ArraySlice<UInt8>>, prefix: Bool) -> Bool {
        let end = globs.endIndex
        var gi = globs.startIndex
        var pj = parts.startIndex
        var starG = -1
        var starP = 0
        while true {
            if gi == end, prefix, pj > parts.startIndex { return true }
            guard pj < parts.endIndex else { break }
            if gi < end {
                if globs[gi] == doubleStar {
                    if gi == end - 1 { return true }
                    starG = gi
                    starP = pj
                    gi += 1
                    continue
                }
                if component(globs[gi], parts[pj]) {
                    gi += 1
                    pj += 1
                    continue
                }
            }
            guard starG >= 0 else { return false }
            starP += 1
            pj = starP
            gi = starG + 1
        }
        // Every part read: what is left of the globs must be `**` that may match nothing.
        while gi < end - 1, globs[gi] == doubleStar { gi += 1 }
        return gi == end
    }

    /// One component: `*`, `?`, `[...]`, literal bytes (`ComponentPattern`: a mismatch moves
    /// only the last `*` on by one byte, so a component costs at most its length times the
    /// pattern's, whatever the stars).
    static func component(_ g: [UInt8], _ s: ArraySlice<UInt8>) -> Bool {
        ComponentPattern.matches(g, s)
    }
}
