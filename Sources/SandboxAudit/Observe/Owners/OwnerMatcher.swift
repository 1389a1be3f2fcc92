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
    case catalogue(OwnerEntry, legacy: Bool)

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
    private let globs: [(glob: Glob, depth: Int?, target: Target)]
    private let ruleCount: Int

    init(rules: [OwnerRule] = [], catalogue: [OwnerEntry] = OwnerCatalogue.all) {
        self.rules = rules
        self.catalogue = catalogue
        var globs = rules.enumerated().map { (glob: $1.glob, depth: $1.glob.fixedDepth, target: Target.rule($0)) }
        for (i, entry) in catalogue.enumerated() {
            for (matches, legacy) in [(entry.matches, false), (entry.legacy, true)] {
                for m in matches {
                    // The catalogue's globs are fixed and tested: one that does not parse is a defect.
                    guard let pattern = m.glob, let glob = try? Glob(pattern) else { continue }
                    globs.append((glob: glob, depth: glob.fixedDepth, target: Target.entry(i, legacy: legacy)))
                }
            }
        }
        self.globs = globs
        self.ruleCount = rules.count
    }

    /// What code `code` stands for (nil for -1, no owner).
    func attribution(code: Int32) -> Attribution? {
        guard code >= 0 else { return nil }
        switch globs[Int(code)].target {
        case .rule(let r): return .team(rules[r].owner)
        case .entry(let e, let legacy): return .catalogue(catalogue[e], legacy: legacy)
        }
    }

    /// The owner of `path`.
    package func attribution(of path: ContainerPath) -> Attribution? { attribution(code: code(of: path)) }

    /// The owner of every entry of `inventory`, as codes (`attribution(code:)`), in entry order.
    /// A folder's owner passes to what is inside it: each path is matched once, by itself.
    func codes(_ inventory: Inventory) -> [Int32] {
        var folders: [ContainerPath: Best] = [:]
        var out: [Int32] = []
        out.reserveCapacity(inventory.entries.count)
        for e in inventory.entries {
            var best = Best()
            if let parent = e.path.parent, !parent.isRoot {
                if let known = folders[parent] { best = known } else { best = covering(parent) }
            }
            best.merge(own(e.path.components.map(Array.init)[...]))
            if e.entry.kind == .directory { folders[e.path] = best }
            out.append(best.code)
        }
        return out
    }

    /// The code of `path`: matched at each of its prefixes.
    func code(of path: ContainerPath) -> Int32 { covering(path).code }

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

    private func covering(_ path: ContainerPath) -> Best {
        let parts = path.components.map(Array.init)
        var best = Best()
        for n in stride(from: 1, through: parts.count, by: 1) { best.merge(own(parts[0..<n])) }
        return best
    }

    /// The last policy line and the last catalogue glob matching the path itself.
    private func own(_ parts: ArraySlice<[UInt8]>) -> Best {
        var best = Best()
        for i in globs.indices.reversed() {
            // Most globs have a fixed depth: a path of another depth is passed over unread.
            if let d = globs[i].depth, d != parts.count { continue }
            guard globs[i].glob.matches(components: parts) else { continue }
            if i < ruleCount {
                best.rule = Int32(i)
                break
            }
            if best.entry < 0 { best.entry = Int32(i) }
        }
        return best
    }
}
