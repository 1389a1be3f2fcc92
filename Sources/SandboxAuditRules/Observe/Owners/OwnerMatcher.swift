import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// A policy file's `owners:` line: the team or component that owns what a glob covers.
package struct OwnerRule: Sendable {
    let glob: Glob
    package let owner: String

    init(glob: Glob, owner: String) {
        self.glob = glob
        self.owner = owner
    }
}

/// Who owns a path: a team or component the policy file names, or a catalogue entry (at its
/// current location, or at one it wrote before it moved).
package enum Attribution: Sendable {
    case team(String)
    /// Boxed: an attribution is a word or two, not the entry's dozen strings, in the reports'
    /// one attribution per finding; every attribution of one glob shares its box.
    indirect case catalogue(OwnerEntry, legacy: Bool)

    package var name: String {
        switch self {
        case .team(let name): return name
        case .catalogue(let entry, _): return entry.owner
        }
    }

    /// `team`, `sdk` or `framework`.
    package var kind: String {
        switch self {
        case .team: return "team"
        case .catalogue(let entry, _): return entry.kind.rawValue
        }
    }

    package var entry: OwnerEntry? {
        if case .catalogue(let entry, _) = self { return entry }
        return nil
    }
}

/// Attributes paths to owners, CODEOWNERS-style: the policy file's `owners:` first, the last of
/// its lines that covers the path (matches it or a folder above it) winning; then the catalogue,
/// likewise the last entry that covers it (`OwnerCatalogue.all` is in order of precedence).
/// The same globs in every container of the app: paths are relative to each container's root.
package struct OwnerMatcher: Sendable {
    /// What a match leads to: a policy line, or a catalogue entry's glob (current or legacy).
    enum Target: Sendable {
        case rule(Int)
        case entry(Int, legacy: Bool)
    }

    let rules: [OwnerRule]
    let catalogue: [OwnerEntry]
    /// Every glob, the policy's first: a match's code is its index here.
    private let globs: [(shape: GlobShape, target: Target)]
    private let ruleCount: Int
    /// The most leading and trailing components any shape reads.
    private let leading: Int
    private let trailing: Int
    /// Whether a glob needs the whole path (several `**`).
    private let needsAll: Bool
    /// The globs a path may match, last first, by its depth and first component: a glob without
    /// `**` only at its depth, and only with that first component when it names one; a glob
    /// with `**` at any depth. Most paths are tried against a handful of the catalogue's globs.
    private let candidates: [CandidateKey: [Int]]
    private let candidatesByDepth: [Int: [Int]]
    private let anyDepth: [Int]
    /// Each glob's last component's literal head and tail, in one buffer.
    private let lastAffixes: LastAffixes
    /// What each glob's code stands for, made once (`attribution(code:)`).
    private let attributions: [Attribution]

    struct CandidateKey: Hashable {
        let depth: Int
        let first: [UInt8]
    }

    init(rules: [OwnerRule] = [], catalogue: [OwnerEntry] = OwnerCatalogue.all) {
        self.rules = rules
        self.catalogue = catalogue
        var globs = rules.enumerated().map { (shape: GlobShape($1.glob), target: Target.rule($0)) }
        for (i, entry) in catalogue.enumerated() {
            for (matches, legacy) in [(entry.matches, false), (entry.legacy, true)] {
                for m in matches {
                    // The catalogue's globs are fixed and tested: one that does not parse is a defect.
                    guard let pattern = m.glob, let glob = try? Glob(pattern) else { continue }
                    globs.append((shape: GlobShape(glob), target: Target.entry(i, legacy: legacy)))
                }
            }
        }
        self.globs = globs
        self.ruleCount = rules.count
        self.leading = globs.map(\.shape.leading).max() ?? 0
        self.trailing = globs.map(\.shape.trailing).max() ?? 0
        self.needsAll = globs.contains { $0.shape.kind == .general }
        var keyed: [CandidateKey: [Int]] = [:]
        var byDepth: [Int: [Int]] = [:]
        var anyDepth: [Int] = []
        for (i, g) in globs.enumerated() {
            guard g.shape.kind == .fixed else {
                anyDepth.append(i)
                continue
            }
            let p = g.shape.before
            if let first = p.first, !first.contains(where: { "*?[".utf8.contains($0) }) {
                keyed[CandidateKey(depth: p.count, first: first), default: []].append(i)
            } else {
                byDepth[p.count, default: []].append(i)
            }
        }
        var merged: [CandidateKey: [Int]] = [:]
        for (k, v) in keyed { merged[k] = (v + (byDepth[k.depth] ?? []) + anyDepth).sorted(by: >) }
        self.candidates = merged
        self.candidatesByDepth = byDepth.mapValues { ($0 + anyDepth).sorted(by: >) }
        self.anyDepth = anyDepth.sorted(by: >)
        self.lastAffixes = LastAffixes(globs.map(\.shape.lastAffix))
        self.attributions = globs.map { g in
            switch g.target {
            case .rule(let r): .team(rules[r].owner)
            case .entry(let e, let legacy): .catalogue(catalogue[e], legacy: legacy)
            }
        }
    }

    /// What code `code` stands for (nil for -1, no owner).
    func attribution(code: Int32) -> Attribution? {
        code >= 0 ? attributions[Int(code)] : nil
    }

    /// The index in `catalogue` of the entry code `code` stands for (nil for a policy line or none).
    func entryIndex(code: Int32) -> Int? {
        guard code >= 0, case .entry(let e, _) = globs[Int(code)].target else { return nil }
        return e
    }

    /// The owner of `path`.
    package func attribution(of path: ContainerPath) -> Attribution? { attribution(code: code(of: path)) }

    /// The owner of every entry of `inventory`, as codes (`attribution(code:)`), in entry order.
    /// A folder's owner passes to what is inside it: each path is matched once, by itself, and
    /// reading a path costs its bytes plus the few components the globs look at (a `**` glob
    /// with one `**` reads the components before and after it), so a deep tree costs what its
    /// paths hold.
    func codes(_ inventory: Inventory) -> [Int32] {
        codes(inventory, chunks: Parallel.parts(inventory.entries.count, atLeast: 100_000))
    }

    /// The same in `chunks` runs on every core: a run starts knowing no folder, and matches the
    /// parent of its first entries afresh (`covering`), as it does a folder the input does not list.
    /// The globs of entries that `inventory` does not confirm (`OwnerEntry.confirmedBy`) are
    /// left out: one lookup of each confirming path in the inventory.
    func codes(_ inventory: Inventory, chunks: Int) -> [Int32] {
        let entries = inventory.entries
        let chunks = max(1, min(chunks, entries.count))
        let size = (entries.count + chunks - 1) / chunks
        let skipping = unconfirmed(in: inventory)
        let matcher = self
        return Parallel.map(chunks) { c in
            matcher.codes(
                entries[min(c * size, entries.count)..<min((c + 1) * size, entries.count)], skipping: skipping)
        }.flatMap { $0 }
    }

    /// The globs of the catalogue entries whose names an app may choose and that `inventory`
    /// holds none of the confirming paths of.
    func unconfirmed(in inventory: Inventory) -> Set<Int> {
        var skipping = Set<Int>()
        var confirmed: [Int: Bool] = [:]
        for (i, g) in globs.enumerated() {
            guard case .entry(let e, _) = g.target, !catalogue[e].confirmedBy.isEmpty else { continue }
            let holds =
                confirmed[e] ?? catalogue[e].confirmedBy.contains { inventory.index(of: ContainerPath($0)) != nil }
            confirmed[e] = holds
            if !holds { skipping.insert(i) }
        }
        return skipping
    }

    /// The codes of a run of entries in path order. Folders are known by number
    /// (`InventoryEntry.folder`): a path is made only for a name some glob may match.
    private func codes(_ entries: Slice<InventoryEntries>, skipping: Set<Int>) -> [Int32] {
        let all = entries.base
        var folders: [Int32: Best] = [:]
        var out: [Int32] = []
        out.reserveCapacity(entries.count)
        var i = entries.startIndex
        while i < entries.endIndex {
            let folder = all.folder(i)
            guard folder > 0 else {
                // The data root and its own items: each tried by its own name.
                let tried = candidates(depth: folder < 0 ? 0 : 1, first: folder < 0 ? [] : Array(all.name(i)))
                out.append(code(i, in: all, tried: tried, inherited: Best(), folders: &folders, skipping: skipping))
                i += 1
                continue
            }
            // Siblings come together (path order): a run of them shares its folder's owner and
            // the globs its entries may match (the same depth and first component for all),
            // found once for the run.
            var end = i + 1
            while end < entries.endIndex && all.folder(end) == folder { end += 1 }
            let parent = all.folderPath(folder)
            let tried = candidates(
                depth: parent.depth + 1, first: parent.leadingComponents(1).first.map(Array.init) ?? [])
            let inherited: Best
            if let known = folders[folder] {
                inherited = known
            } else {
                // A folder the input does not list (a backup without its row): matched once.
                inherited = covering(parent, skipping: skipping)
                folders[folder] = inherited
            }
            for j in i..<end {
                out.append(code(j, in: all, tried: tried, inherited: inherited, folders: &folders, skipping: skipping))
            }
            i = end
        }
        return out
    }

    /// Entry `i`'s code: its folder's (`inherited`), or a glob among `tried` that matches its
    /// path. A directory passes its code on to what is inside it (`folders`).
    private func code(
        _ i: Int, in all: InventoryEntries, tried: [Int], inherited: Best, folders: inout [Int32: Best],
        skipping: Set<Int>
    ) -> Int32 {
        var best = inherited
        // Most names are turned away by the globs' last component alone, read in place.
        if lastAffixes.admitsAny(tried, all.name(i)) {
            let path = all[i].path
            let lead = path.leadingComponents(max(leading, 1))
            let components = needsAll ? path.components : []
            let parts = PathParts(
                depth: path.depth, leading: lead, trailing: PathParts.trailing(path, trailing), all: components[...])
            best.merge(own(parts, tried, skipping: skipping))
        }
        if all.kind(i) == .directory, let own = all[i].ownFolder { folders[own] = best }
        return best.code
    }

    /// The code of `path`: matched at each of its prefixes.
    func code(of path: ContainerPath) -> Int32 { covering(path, skipping: []).code }

    /// The owner of a top-level key of the app's preferences plist, by its prefix: the last
    /// catalogue entry whose prefix it has.
    package func keyOwner(_ key: String) -> OwnerEntry? {
        catalogue.last(where: { entry in entry.keyPrefixes.contains { key.hasPrefix($0) } })
    }

    /// The last policy line and the last catalogue glob matching a path or an ancestor.
    private struct Best {
        var rule: Int32 = -1
        var entry: Int32 = -1
        mutating func merge(_ other: Best) {
            rule = max(rule, other.rule)
            entry = max(entry, other.entry)
        }
        var code: Int32 { rule >= 0 ? rule : entry }
    }

    private func covering(_ path: ContainerPath, skipping: Set<Int>) -> Best {
        let components = path.components
        let all = needsAll ? components : []
        var best = Best()
        for n in stride(from: 1, through: components.count, by: 1) {
            let parts = PathParts(
                depth: n, leading: Array(components[0..<min(n, leading)]),
                trailing: Array(components[max(0, n - trailing)..<n]),
                all: needsAll ? all[0..<n] : [])
            best.merge(own(parts, candidates(depth: n, first: Array(components[0])), skipping: skipping))
        }
        return best
    }

    /// The globs a path of this depth and first component may match, last first.
    private func candidates(depth: Int, first: [UInt8]) -> [Int] {
        candidates[CandidateKey(depth: depth, first: first)] ?? candidatesByDepth[depth] ?? anyDepth
    }

    /// The last policy line and the last catalogue glob among `tried` matching the path itself.
    private func own(_ parts: PathParts, _ tried: [Int], skipping: Set<Int>) -> Best {
        var best = Best()
        for i in tried where (skipping.isEmpty || !skipping.contains(i)) && globs[i].shape.matches(parts) {
            if i < ruleCount {
                best.rule = Int32(i)
                break
            }
            if best.entry < 0 { best.entry = Int32(i) }
        }
        return best
    }
}
