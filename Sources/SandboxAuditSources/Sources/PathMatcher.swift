/// The built paths arranged for lookups: a dictionary of literal paths, and the patterns by the
/// literal folder they start with and their number of components, so that a container's entry
/// costs a few dictionary lookups and matches only the patterns that can fit it.
struct PathMatcher: Sendable {
    /// One built path: the index of its location (locations are sorted: a smaller index is an
    /// earlier file, line and column) and what the code says it is.
    struct Target: Sendable {
        let location: Int32
        let folder: Bool?

        func fits(isDirectory: Bool) -> Bool { folder == nil || folder == isDirectory }
    }

    /// A pattern's components after its literal folder, as byte pieces between wildcards.
    struct Pattern: Sendable {
        let components: [[[UInt8]]]
        let literalCount: Int
        let target: Target
    }

    struct PatternKey: Hashable, Sendable {
        let base: SourceBase
        let prefix: String
        let count: Int
    }

    let locations: [SourceLocation]
    private var exact: [SourceBase: [String: [Target]]] = [:]
    private var patterns: [PatternKey: [Pattern]] = [:]

    /// `built`: the paths, each with a site; `files`: the file names sites refer to.
    init(built: Set<PathValue>, files: [String]) {
        func location(_ site: Site) -> SourceLocation {
            SourceLocation(file: files[Int(site.file)], line: Int(site.position.line), column: Int(site.position.column))
        }
        let matchable = built.filter { $0.site != nil && StandardFolder.namesSomething($0.components) }
        locations = Set(matchable.map { location($0.site!) }).sorted()
        let index = Dictionary(uniqueKeysWithValues: locations.enumerated().map { ($1, Int32($0)) })
        for p in matchable {
            let target = Target(location: index[location(p.site!)]!, folder: p.folder)
            let literal = p.components.prefix { !$0.contains(wildcard) }
            if literal.count == p.components.count {
                exact[p.base, default: [:]][p.components.joined(separator: "/"), default: []].append(target)
                continue
            }
            let rest = p.components[literal.count...]
            let key = PatternKey(base: p.base, prefix: literal.joined(separator: "/"), count: p.components.count)
            let pieces = rest.map { c in c.split(separator: wildcard, omittingEmptySubsequences: false).map { Array($0.utf8) } }
            let literalCount = p.components.reduce(0) { $0 + $1.utf8.count } - rest.reduce(0) { n, c in
                n + c.filter { $0 == wildcard }.count
            }
            patterns[key, default: []].append(Pattern(components: pieces, literalCount: literalCount, target: target))
        }
    }

    /// The locations that build `components` (joined: `path`), best first (see `SourceIndex.candidates`).
    func candidates(_ components: [Substring], _ path: String, base: SourceBase, isDirectory: Bool) -> [Int32] {
        var out: [Int32] = []
        var seen: Set<Int32> = []
        func add(_ tier: [Int32]) {
            for l in tier where seen.insert(l).inserted { out.append(l) }
        }
        let literal = exact[base]
        add((literal?[path] ?? []).filter { $0.fits(isDirectory: isDirectory) }.map(\.location).sorted())
        // SQLite's companions: a database's -wal, -shm and -journal are named where the database is.
        if !isDirectory, let last = components.last,
            let suffix = ["-wal", "-shm", "-journal"].first(where: { last.hasSuffix($0) })
        {
            let database = String(path.dropLast(suffix.count))
            add((literal?[database] ?? []).filter { $0.folder != true }.map(\.location).sorted())
        }
        add(matching(components, count: components.count, base: base, isDirectory: isDirectory))
        // The nearest folder above that the code builds.
        var k = components.count - 1
        while k > 0 {
            let folder = components[0..<k].joined(separator: "/")
            var tier = (literal?[folder] ?? []).filter { $0.folder != false }.map(\.location)
            tier += matching(Array(components[0..<k]), count: k, base: base, isDirectory: true)
            if !tier.isEmpty {
                add(Array(Set(tier)).sorted())
                break
            }
            k -= 1
        }
        return out
    }

    /// The patterns of `count` components that match the first `count` of `components`: more
    /// literal characters first, then by location.
    private func matching(_ components: [Substring], count: Int, base: SourceBase, isDirectory: Bool) -> [Int32] {
        guard !patterns.isEmpty else { return [] }
        var hits: [(literal: Int, location: Int32)] = []
        var prefix = ""
        for k in 0..<count {
            if k > 0 { prefix += (k > 1 ? "/" : "") + components[k - 1] }
            guard let list = patterns[PatternKey(base: base, prefix: prefix, count: count)] else { continue }
            for p in list where p.target.fits(isDirectory: isDirectory) {
                var all = true
                for (i, pieces) in p.components.enumerated() where !Self.matches(pieces, components[k + i].utf8) {
                    all = false
                    break
                }
                if all { hits.append((p.literalCount, p.target.location)) }
            }
        }
        return hits.sorted { $0.literal != $1.literal ? $0.literal > $1.literal : $0.location < $1.location }
            .map(\.location)
    }

    /// Whether `name` is the pieces with anything between them: the first at its start, the last
    /// at its end, the others in order between.
    static func matches(_ pieces: [[UInt8]], _ name: Substring.UTF8View) -> Bool {
        let bytes = Array(name)
        guard let first = pieces.first, let last = pieces.last, pieces.count > 1 else {
            return pieces.first.map { $0 == bytes } ?? bytes.isEmpty
        }
        guard bytes.count >= first.count + last.count, bytes.starts(with: first), bytes.reversed().starts(with: last.reversed())
        else { return false }
        var i = first.count
        let end = bytes.count - last.count
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = find(piece, in: bytes, from: i, to: end) else { return false }
            i = found + piece.count
        }
        return true
    }

    private static func find(_ piece: [UInt8], in bytes: [UInt8], from: Int, to end: Int) -> Int? {
        guard end - from >= piece.count else { return nil }
        for start in from...(end - piece.count) where bytes[start..<start + piece.count].elementsEqual(piece) {
            return start
        }
        return nil
    }
}
