import SandboxAuditSystem
import SandboxAuditCore

/// Many globs matched against an inventory in one pass (the policy's `paths:` and budget
/// globs; `owners:` has `OwnerMatcher`), so that the policy's cost is the entries plus the
/// matches, not lines × entries:
///
/// - a folder's matches pass to what is inside it: a glob that covers a folder is not tried
///   again on anything beneath it;
/// - the globs are indexed by their first component: a path is tried only against the globs
///   whose first component is its own (or a wildcard), the same for all its siblings;
/// - a glob without `**` is tried only on paths of its depth, and any glob only on names with
///   its last component's literal head and tail (`GlobShape.Affix`).
///
/// Each glob is matched in time linear in the path's components times its own (`Glob.match`).
struct GlobSet {
    let globs: [Glob]
    private let shapes: [GlobShape]
    private let affixes: LastAffixes
    /// Globs by their literal first component; those whose first component is a wildcard or
    /// `**` in `wild`.
    private let byFirst: [[UInt8]: [Int]]
    private let wild: [Int]

    init(_ globs: [Glob]) {
        self.globs = globs
        shapes = globs.map(GlobShape.init)
        affixes = LastAffixes(shapes.map(\.lastAffix))
        var byFirst: [[UInt8]: [Int]] = [:], wild: [Int] = []
        for (i, g) in globs.enumerated() {
            let first = g.patterns[0]
            if first == Glob.anyDepth || first.contains(where: { "*?[".utf8.contains($0) }) {
                wild.append(i)
            } else {
                byFirst[first, default: []].append(i)
            }
        }
        self.byFirst = byFirst.mapValues { ($0 + wild).sorted() }
        self.wild = wild
    }

    /// What covers each entry: for each glob covering it (matching it or an ancestor), the
    /// index of the topmost entry it matches, by glob, in glob order.
    struct Coverage {
        /// Per entry, an index into `sets`; 0 is the empty set.
        let setOfEntry: [Int32]
        /// Each set: (glob, topmost matched entry) pairs, by glob.
        let sets: [[(glob: Int32, top: Int32)]]

        func covering(_ entry: Int) -> [(glob: Int32, top: Int32)] { sets[Int(setOfEntry[entry])] }
    }

    /// One pass over `entries` (in path order: a folder before what is inside it). A folder
    /// the entries do not list (a backup without its row) passes nothing on: its contents are
    /// matched on their own, and a glob naming the folder still covers them through `**` or
    /// their own paths.
    func coverage(_ entries: [InventoryEntry]) -> Coverage {
        var sets: [[(glob: Int32, top: Int32)]] = [[]]
        var setOfEntry = [Int32](repeating: 0, count: entries.count)
        visit(entries) { index, covering in
            guard !covering.isEmpty else { return }
            if let last = sets.last, last.elementsEqual(covering, by: { $0.glob == $1.glob && $0.top == $1.top }) {
                setOfEntry[index] = Int32(sets.count - 1)
            } else {
                setOfEntry[index] = Int32(sets.count)
                sets.append(covering)
            }
        }
        return Coverage(setOfEntry: setOfEntry, sets: sets)
    }

    /// Calls `body` with each entry's index and what covers it ((glob, topmost matched entry)
    /// pairs, by glob), in entry order. Only folders keep what covers them; a file's is built
    /// in a buffer used again for the next.
    func visit(_ entries: [InventoryEntry], _ body: (Int, [(glob: Int32, top: Int32)]) -> Void) {
        var sets: [[(glob: Int32, top: Int32)]] = [[]]
        var folders: [ContainerPath: Int32] = [:]
        var last: (parent: ContainerPath, set: Int32, tried: [Int])?
        var own: [(glob: Int32, top: Int32)] = []
        var scratch: [(glob: Int32, top: Int32)] = []
        let anyFixed = shapes.contains { $0.kind == .fixed }
        for (index, e) in entries.enumerated() {
            let inherited: Int32
            let tried: [Int]
            if let last, e.path.isChild(of: last.parent) {
                inherited = last.set
                tried = last.tried
            } else {
                let first = e.path.leadingComponents(1).first.map(Array.init) ?? []
                tried = byFirst[first] ?? wild
                let parent = e.path.parent ?? .root
                inherited = parent.isRoot ? 0 : (folders[parent] ?? 0)
                // Top-level items each have their own first component: nothing to share.
                last = parent.isRoot ? nil : (parent, inherited, tried)
            }
            own.removeAll(keepingCapacity: true)
            if !tried.isEmpty {
                let name = e.path.name
                let depth = anyFixed ? e.path.depth : 0
                var parts: [ArraySlice<UInt8>]?
                for i in tried {
                    let shape = shapes[i]
                    if shape.kind == .fixed, depth != shape.before.count { continue }
                    guard affixes.admits(i, name) else { continue }
                    if inherited != 0, sets[Int(inherited)].contains(where: { $0.glob == Int32(i) }) { continue }
                    if parts == nil { parts = e.path.components }
                    if Glob.matches(globs[i].patterns[...], parts![...]) { own.append((Int32(i), Int32(index))) }
                }
            }
            if own.isEmpty {
                if e.entry.kind == .directory, inherited != 0 { folders[e.path] = inherited }
                body(index, sets[Int(inherited)])
                continue
            }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: sets[Int(inherited)])
            scratch.append(contentsOf: own)
            scratch.sort { $0.glob < $1.glob }
            if e.entry.kind == .directory {
                folders[e.path] = Int32(sets.count)
                sets.append(scratch)
            }
            body(index, scratch)
        }
    }
}

extension GlobSet {
    /// For each glob, in glob order: the topmost entries it matches (each with everything
    /// beneath it), in path order, with the sum of `value` over the entries each covers for
    /// which `value` is not nil. One pass for all the globs.
    func totals(_ inventory: Inventory, _ value: (InventoryEntry) -> Int64?) -> [[(path: ContainerPath, size: Int64)]] {
        let entries = inventory.entries
        var sums = [[Int32: Int64]](repeating: [:], count: globs.count)
        visit(entries) { i, covering in
            guard !covering.isEmpty, let v = value(entries[i]) else { return }
            for c in covering { sums[Int(c.glob)][c.top, default: 0] += v }
        }
        return sums.map { s in
            s.map { (path: entries[Int($0.key)].path, size: $0.value) }.sorted { $0.path < $1.path }
        }
    }

    /// Whether any glob covers `path` (matches it or an ancestor): only the globs its first
    /// component may start.
    func anyCovers(_ path: ContainerPath) -> Bool {
        guard let first = path.leadingComponents(1).first else { return false }
        let tried = byFirst[Array(first)] ?? wild
        guard !tried.isEmpty else { return false }
        let parts = path.components
        return tried.contains { globs[$0].covers(parts[...]) }
    }
}
