/// The built paths arranged for lookups: a tree of literal components per container, each node
/// holding the paths that end there and the patterns whose literal part ends there, so that an
/// entry costs one dictionary lookup per component (keyed by the entry's own substrings, nothing
/// copied) and matches only the patterns below the folders it is in.
struct PathMatcher: Sendable {
    /// One built path: the index of its location (locations are sorted: a smaller index is an
    /// earlier file, line and column) and what the code says it is.
    struct Target: Sendable {
        let location: Int32
        let folder: Bool?

        func fits(isDirectory: Bool) -> Bool { folder == nil || folder == isDirectory }
    }

    /// A pattern's components after its literal folder, each as byte pieces between wildcards.
    struct Pattern: Sendable {
        let components: [[[UInt8]]]
        let literalCount: Int
        let target: Target
    }

    struct Node: Sendable {
        var children: [Substring: Int32] = [:]
        var exact: [Target] = []
        var patterns: [Pattern] = []
    }

    let locations: [SourceLocation]
    private var nodes: [Node] = []
    private var roots: [SourceBase: Int32] = [:]

    /// `built`: the paths, each with a site; `files`: the file names sites refer to.
    init(built: Set<PathValue>, files: [String]) {
        func location(_ site: Site) -> SourceLocation {
            SourceLocation(
                file: files[Int(site.file)], line: Int(site.position.line), column: Int(site.position.column))
        }
        let matchable = built.filter { $0.site != nil && StandardFolder.namesSomething($0.components) }
        locations = Set(matchable.map { location($0.site!) }).sorted {
            let (a, b) = (Self.isAside($0.file), Self.isAside($1.file))
            return a != b ? b : $0 < $1
        }
        let index = Dictionary(uniqueKeysWithValues: locations.enumerated().map { ($1, Int32($0)) })
        for p in matchable {
            let target = Target(location: index[location(p.site!)]!, folder: p.folder)
            let literal = p.components.prefix { !$0.contains(wildcard) }
            var node = root(p.base)
            for component in literal { node = child(node, component) }
            if literal.count == p.components.count {
                nodes[Int(node)].exact.append(target)
                continue
            }
            let rest = p.components[literal.count...]
            let pieces = rest.map { c in
                c.split(separator: wildcard, omittingEmptySubsequences: false).map { Array($0.utf8) }
            }
            let literalCount = pieces.reduce(literal.reduce(0) { $0 + $1.utf8.count }) { n, c in
                n + c.reduce(0) { $0 + $1.count }
            }
            nodes[Int(node)].patterns.append(Pattern(components: pieces, literalCount: literalCount, target: target))
        }
    }

    private mutating func root(_ base: SourceBase) -> Int32 {
        if let r = roots[base] { return r }
        nodes.append(Node())
        roots[base] = Int32(nodes.count - 1)
        return Int32(nodes.count - 1)
    }

    private mutating func child(_ node: Int32, _ name: String) -> Int32 {
        if let c = nodes[Int(node)].children[Substring(name)] { return c }
        nodes.append(Node())
        nodes[Int(node)].children[Substring(name)] = Int32(nodes.count - 1)
        return Int32(nodes.count - 1)
    }

    /// The locations that build `components`, best first (see `SourceIndex.candidates`).
    func candidates(_ components: [Substring], base: SourceBase, isDirectory: Bool) -> [Int32] {
        guard let root = roots[base] else { return [] }
        // The nodes of the entry's literal folders: walk[k] is the node of its first k components.
        var walk = [root]
        for c in components {
            guard let next = nodes[Int(walk[walk.count - 1])].children[c] else { break }
            walk.append(next)
        }
        let n = components.count
        var out: [Int32] = []
        func add(_ tier: [Int32]) {
            for l in tier where !out.contains(l) { out.append(l) }
        }
        if walk.count == n + 1 {
            add(nodes[Int(walk[n])].exact.filter { $0.fits(isDirectory: isDirectory) }.map(\.location).sorted())
        }
        // SQLite's companions: a database's -wal, -shm and -journal are named where the database is.
        if !isDirectory, walk.count >= n, let last = components.last, let suffix = Self.sqliteSuffix(last),
            let database = nodes[Int(walk[n - 1])].children[last.dropLast(suffix)]
        {
            add(nodes[Int(database)].exact.filter { $0.folder != true }.map(\.location).sorted())
        }
        add(matching(components, count: n, walk, isDirectory: isDirectory))
        // The nearest folder above that the code builds.
        var k = n - 1
        while k > 0 {
            var tier = k < walk.count ? nodes[Int(walk[k])].exact.filter { $0.folder != false }.map(\.location) : []
            tier += matching(components, count: k, walk, isDirectory: true)
            if !tier.isEmpty {
                add(tier.sorted())
                break
            }
            k -= 1
        }
        return out
    }

    /// Folders whose code an iOS app's container does not run: tests and other platforms'
    /// targets. Their lines come after every other line of a tier.
    static let asideFolders: Set<String> = ["macos", "watchos", "tvos", "visionos", "mac", "watch", "tests"]

    static func isAside(_ file: String) -> Bool {
        file.split(separator: "/").dropLast().contains { component in
            let c = component.lowercased()
            return asideFolders.contains(c) || c.hasSuffix("tests") || c.hasSuffix("watchos")
                || c.hasSuffix("macos") || c.hasSuffix("watch extension")
        }
    }

    static func sqliteSuffix(_ name: Substring) -> Int? {
        for suffix in ["-wal", "-shm", "-journal"] where name.hasSuffix(suffix) { return suffix.utf8.count }
        return nil
    }

    /// The patterns of `count` components that match the first `count` of `components`: more
    /// literal characters first, then by location.
    private func matching(_ components: [Substring], count: Int, _ walk: [Int32], isDirectory: Bool) -> [Int32] {
        var hits: [(literal: Int, location: Int32)] = []
        for k in 0..<min(count, walk.count) {
            for p in nodes[Int(walk[k])].patterns
            where p.components.count == count - k && p.target.fits(isDirectory: isDirectory) {
                var all = true
                for (i, pieces) in p.components.enumerated() where !Self.matches(pieces, components[k + i]) {
                    all = false
                    break
                }
                if all { hits.append((p.literalCount, p.target.location)) }
            }
        }
        if hits.count > 1 {
            hits.sort { $0.literal != $1.literal ? $0.literal > $1.literal : $0.location < $1.location }
        }
        return hits.map(\.location)
    }

    /// Whether `name` is the pieces with anything between them: the first at its start, the last
    /// at its end, the others in order between.
    static func matches(_ pieces: [[UInt8]], _ name: Substring) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard let first = pieces.first, let last = pieces.last, pieces.count > 1 else {
                return pieces.first.map { $0.elementsEqual(bytes) } ?? bytes.isEmpty
            }
            guard bytes.count >= first.count + last.count, bytes.starts(with: first),
                bytes[(bytes.count - last.count)...].elementsEqual(last)
            else { return false }
            var i = first.count
            let end = bytes.count - last.count
            for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
                guard let found = find(piece, in: bytes, from: i, to: end) else { return false }
                i = found + piece.count
            }
            return true
        }
    }

    private static func find(_ piece: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) -> Int? {
        guard end - from >= piece.count else { return nil }
        for start in from...(end - piece.count) where bytes[start..<start + piece.count].elementsEqual(piece) {
            return start
        }
        return nil
    }
}
