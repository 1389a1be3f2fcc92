import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// Many globs matched against an inventory in one pass (the policy's `paths:` and budget
/// globs; `owners:` has `OwnerMatcher`), so that the policy's cost is the entries plus the
/// matches, not lines × entries:
///
/// - a folder's matches pass to what is inside it: a glob that covers a folder is not tried
///   again on anything beneath it;
/// - the globs are indexed by their first component: a path is tried only against the globs
///   whose first component is its own (or a wildcard), the same for all its siblings;
/// - what a glob asks of a folder's children is worked out once per folder (`Plan`): the
///   components before its last matched against the folder's path, so that each entry costs
///   its name against the last component of the few globs left (its literal head and tail
///   first, `GlobShape.Affix`), with no path split or built;
/// - the entries are cut into runs, one per core, each starting from what covers the folders
///   above its first entries (issue 35: 20 `budgets.paths:` lines on 1,000,000 files).
///
/// Each glob is matched in time linear in the path's components times its own (`Glob.match`).
struct GlobSet {
    let globs: [Glob]
    fileprivate let shapes: [GlobShape]
    fileprivate let affixes: LastAffixes
    /// Globs by their literal first component; those whose first component is a wildcard or
    /// `**` in `wild`.
    fileprivate let byFirst: [[UInt8]: [Int]]
    fileprivate let wild: [Int]

    init(_ globs: [Glob]) {
        self.globs = globs
        shapes = globs.map(GlobShape.init)
        affixes = LastAffixes(shapes.map(\.lastAffix))
        var byFirst: [[UInt8]: [Int]] = [:]
        var wild: [Int] = []
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

    private static let star: [UInt8] = [UInt8(ascii: "*")]
    private static let aName: [UInt8] = [UInt8(ascii: "x")]

    /// What covers an entry: (glob, topmost matched entry) pairs, by glob.
    typealias Covering = [(glob: Int32, top: Int32)]

    /// What covers each entry: for each glob covering it (matching it or an ancestor), the
    /// index of the topmost entry it matches, by glob, in glob order.
    struct Coverage {
        /// Per entry, an index into `sets`; 0 is the empty set.
        let setOfEntry: [Int32]
        /// Each set: (glob, topmost matched entry) pairs, by glob.
        let sets: [Covering]

        func covering(_ entry: Int) -> Covering { sets[Int(setOfEntry[entry])] }
    }

    /// One pass over `entries` (in path order: a folder before what is inside it). A folder
    /// the entries do not list (a backup without its row) passes nothing on: its contents are
    /// matched on their own, and a glob naming the folder still covers them through `**` or
    /// their own paths.
    func coverage(_ entries: InventoryEntries, chunks: Int? = nil) -> Coverage {
        guard !globs.isEmpty else {
            return Coverage(setOfEntry: [Int32](repeating: 0, count: entries.count), sets: [[]])
        }
        let parts = visit(entries, chunks: chunks, initial: (setOf: [Int32](), sets: [Covering()])) {
            state, _, covering in
            guard !covering.isEmpty else {
                state.setOf.append(0)
                return
            }
            if let last = state.sets.last, last.elementsEqual(covering, by: { $0.glob == $1.glob && $0.top == $1.top })
            {
                state.setOf.append(Int32(state.sets.count - 1))
            } else {
                state.setOf.append(Int32(state.sets.count))
                state.sets.append(covering)
            }
        }
        var setOfEntry: [Int32] = []
        var sets: [Covering] = [[]]
        setOfEntry.reserveCapacity(entries.count)
        for part in parts {
            let offset = Int32(sets.count - 1)
            setOfEntry += part.setOf.map { $0 == 0 ? 0 : $0 + offset }
            sets += part.sets.dropFirst()
        }
        return Coverage(setOfEntry: setOfEntry, sets: sets)
    }

    /// Calls `body` with each entry's index and what covers it ((glob, topmost matched entry)
    /// pairs, by glob), in entry order, in `chunks` runs of consecutive entries on every core
    /// (one run below 100,000 entries): each run has its own `State`, starting from `initial`,
    /// and the states come back in entry order. A run that starts inside a folder first matches
    /// the folders above its entries that lie before it (found by binary search: the entries
    /// are in path order), as the one pass would have met them, so what a run finds does not
    /// depend on where it starts.
    func visit<State: Sendable>(
        _ entries: InventoryEntries, chunks: Int? = nil, initial: State,
        _ body: @Sendable (inout State, Int, Covering) -> Void
    ) -> [State] {
        guard !globs.isEmpty else { return [initial] }
        let n = entries.count
        let count = max(1, min(chunks ?? Parallel.parts(n, atLeast: 100_000), n))
        if count == 1 {
            var state = initial
            var walker = Walker(set: self, entries: entries, start: 0)
            for i in 0..<n { walker.step(i) { body(&state, $0, $1) } }
            return [state]
        }
        let size = (n + count - 1) / count
        let set = self
        return Parallel.map(count) { c in
            let lo = min(c * size, n)
            let hi = min(lo + size, n)
            var state = initial
            var walker = Walker(set: set, entries: entries, start: lo)
            for i in lo..<hi { walker.step(i) { body(&state, $0, $1) } }
            return state
        }
    }

    /// Calls `body` with each entry's index and what covers it, in entry order, on one core.
    func visit(_ entries: InventoryEntries, _ body: (Int, Covering) -> Void) {
        guard !globs.isEmpty else { return }
        var walker = Walker(set: self, entries: entries, start: 0)
        for i in 0..<entries.count { walker.step(i) { body($0, $1) } }
    }

    /// What the globs ask of the children of one folder, worked out once for all of them: the
    /// globs that match a child when its name matches their last component (nil: any name),
    /// those that cover the folder already left out.
    private struct Plan {
        let parent: ContainerPath
        /// What covers the folder (an index into the walker's sets).
        let inherited: Int32
        let byName: [(glob: Int, last: [UInt8]?)]
    }

    /// One run over consecutive entries: only folders keep what covers them; a file's is built
    /// in a buffer used again for the next.
    private struct Walker {
        let set: GlobSet
        let entries: InventoryEntries
        /// Where the run starts: folders above its entries before this are looked up.
        let start: Int
        var sets: [Covering] = [[]]
        /// What covers each folder met (or looked up), as an index into `sets`.
        var folders: [ContainerPath: Int32] = [:]
        var plan: Plan?
        var own: Covering = []
        var scratch: Covering = []

        init(set: GlobSet, entries: InventoryEntries, start: Int) {
            self.set = set
            self.entries = entries
            self.start = start
        }

        mutating func step(_ index: Int, _ body: (Int, Covering) -> Void) {
            let e = entries[index]
            if plan == nil || !e.path.isChild(of: plan!.parent) {
                let parent = e.path.parent ?? .root
                // Looked up first: looking up may step entries before the run (and add sets).
                let covering = inherited(parent)
                plan = makePlan(parent, inherited: covering)
            }
            let p = plan!
            own.removeAll(keepingCapacity: true)
            if !p.byName.isEmpty {
                let name = e.path.name
                for (g, last) in p.byName {
                    if let last {
                        guard set.affixes.admits(g, name), Glob.component(last, name) else { continue }
                    }
                    own.append((Int32(g), Int32(index)))
                }
            }
            let isFolder = e.entry.kind == .directory
            if own.isEmpty {
                if isFolder { folders[e.path] = p.inherited }
                body(index, sets[Int(p.inherited)])
                return
            }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: sets[Int(p.inherited)])
            scratch.append(contentsOf: own)
            scratch.sort { $0.glob < $1.glob }
            if isFolder {
                folders[e.path] = Int32(sets.count)
                sets.append(scratch)
            }
            body(index, scratch)
        }

        /// What covers `folder`: what the run met, or for a folder listed before the run, what
        /// the one pass would have found (its own folders above first, top down); nothing for
        /// a folder the entries do not list.
        private mutating func inherited(_ folder: ContainerPath) -> Int32 {
            if folder.isRoot { return 0 }
            if let known = folders[folder] { return known }
            guard start > 0 else { return 0 }
            // The folders above not yet met, nearest first; then each stepped, top down.
            var missing: [ContainerPath] = [folder]
            var up = folder.parent ?? .root
            while !up.isRoot, folders[up] == nil {
                missing.append(up)
                up = up.parent ?? .root
            }
            let saved = plan
            for f in missing.reversed() {
                var i = lowerBound(f)
                while i < start, entries[i].path == f {
                    plan = nil
                    step(i) { _, _ in }
                    i += 1
                }
                if folders[f] == nil { folders[f] = 0 }
            }
            plan = saved
            return folders[folder] ?? 0
        }

        /// The first position before `start` whose path is not below `path` in path order.
        private func lowerBound(_ path: ContainerPath) -> Int {
            var low = 0
            var high = start
            while low < high {
                let mid = (low + high) / 2
                if entries[mid].path < path { low = mid + 1 } else { high = mid }
            }
            return low
        }

        private func makePlan(_ parent: ContainerPath, inherited: Int32) -> Plan {
            let pc = parent.components
            let n = pc.count
            let depth = n + 1
            let covered = sets[Int(inherited)]
            var byName: [(glob: Int, last: [UInt8]?)] = []
            let tried = n == 0 ? Array(set.globs.indices) : (set.byFirst[Array(pc[0])] ?? set.wild)
            for g in tried where !covered.contains(where: { $0.glob == Int32(g) }) {
                let shape = set.shapes[g]
                switch shape.kind {
                case .fixed:
                    guard shape.before.count == depth, Glob.matches(shape.before[0..<n], pc[...]) else { continue }
                    byName.append((g, shape.before[n]))
                case .around:
                    let b = shape.before.count
                    let a = shape.after.count
                    guard depth >= b + max(a, 1), Glob.matches(shape.before[...], pc[0..<b]) else { continue }
                    if a >= 2, !Glob.matches(shape.after[0..<(a - 1)], pc[(n - (a - 1))...]) { continue }
                    byName.append((g, shape.after.last))
                case .general:
                    // Several `**`: the last component, when it is not `**`, takes the child's
                    // name whatever the rest does; with it read as `*`, whether the glob takes
                    // the folder's path and a name depends on the folder alone (a trailing `**`
                    // takes any name).
                    let all = shape.all
                    let last = all[all.count - 1]
                    let anyName = last == Glob.anyDepth
                    let head = anyName ? all : Array(all.dropLast()) + [GlobSet.star]
                    guard Glob.matches(head[...], (pc + [GlobSet.aName[...]])[...]) else { continue }
                    byName.append((g, anyName ? nil : last))
                }
            }
            return Plan(parent: parent, inherited: inherited, byName: byName)
        }
    }
}

extension GlobSet {
    /// For each glob, in glob order: the topmost entries it matches (each with everything
    /// beneath it), in path order, with the sum of `value` over the entries each covers for
    /// which `value` is not nil. One pass for all the globs.
    func totals(_ inventory: Inventory, chunks: Int? = nil, _ value: @Sendable (InventoryEntry) -> Int64?) -> [[(
        path: ContainerPath, size: Int64
    )]] {
        let entries = inventory.entries
        let parts = visit(entries, chunks: chunks, initial: [[Int32: Int64]](repeating: [:], count: globs.count)) {
            sums, i, covering in
            guard !covering.isEmpty, let v = value(entries[i]) else { return }
            for c in covering { sums[Int(c.glob)][c.top, default: 0] += v }
        }
        var sums = parts[0]
        for part in parts.dropFirst() {
            for (g, s) in part.enumerated() { sums[g].merge(s, uniquingKeysWith: +) }
        }
        return sums.map { s in
            s.map { (path: entries[Int($0.key)].path, size: $0.value) }.sorted { $0.path < $1.path }
        }
    }

    /// Whether any glob covers `path` (matches it or an ancestor): only the globs its first
    /// component may start.
    /// The first glob, in the order given, that covers `path`; nil when none does. Only the
    /// globs whose first component can match are tried.
    func firstCovering(_ path: ContainerPath) -> Int? {
        guard let first = path.leadingComponents(1).first else { return nil }
        let tried = byFirst[Array(first)] ?? wild
        guard !tried.isEmpty else { return nil }
        let parts = path.components
        return tried.first { globs[$0].covers(parts[...]) }
    }

    func anyCovers(_ path: ContainerPath) -> Bool {
        guard let first = path.leadingComponents(1).first else { return false }
        let tried = byFirst[Array(first)] ?? wild
        guard !tried.isEmpty else { return false }
        let parts = path.components
        return tried.contains { globs[$0].covers(parts[...]) }
    }
}
