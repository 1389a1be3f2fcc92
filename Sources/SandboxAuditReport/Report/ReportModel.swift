import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// Figures the reports share, computed once from the audit result so that printers only lay
/// them out.
struct RuleTally: Sendable, Equatable {
    let ruleId: String
    var errors = 0, warnings = 0, notes = 0
    var total: Int { errors + warnings + notes }
    /// The most severe level among the rule's findings.
    var severity: Severity { errors > 0 ? .error : (warnings > 0 ? .warning : .note) }

    init(ruleId: String) { self.ruleId = ruleId }
}

extension AuditResult {
    /// The findings per rule that reported any, most severe rules first, then catalogue order.
    var tallies: [RuleTally] {
        var byRule: [String: RuleTally] = [:]
        for i in findings.indices {
            let f = findings[i]
            var t = byRule[f.ruleId] ?? RuleTally(ruleId: f.ruleId)
            switch f.severity {
            case .error: t.errors += 1
            case .warning: t.warnings += 1
            case .note: t.notes += 1
            }
            byRule[f.ruleId] = t
        }
        let order = Dictionary(uniqueKeysWithValues: RuleCatalogue.all.enumerated().map { ($1.id, $0) })
        return byRule.values.sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            let oa = order[a.ruleId] ?? Int.max
            let ob = order[b.ruleId] ?? Int.max
            return oa != ob ? oa < ob : a.ruleId < b.ruleId
        }
    }

    /// Where reports show a finding: its path (after its domain when the app was scanned as
    /// several containers), or nil for a finding about no entry: a budget (measured over every
    /// container of the app; its message names it) or a backup domain the backup lacks.
    func subject(_ f: Finding) -> String? { f.path == nil ? nil : place(f) }
}

/// A budget's use as the reports print it: a whole percentage with its thousands grouped
/// (`2,087,950%`: a 20.9 MB footprint against a 1.00 kB limit), or `∞` against a limit of 0.
enum BudgetText {
    static func percent(_ p: Double) -> String {
        guard p.isFinite else { return "∞" }
        let n = Int(p.rounded())
        return (n < 0 ? "-" : "") + FootprintNode.grouped(Int(n.magnitude)) + "%"
    }
}

/// The bytes of a folder (or a file) of a container, by backup state: what the HTML report's
/// treemap draws. Built from the inventory, to a limited depth.
struct FootprintNode: Sendable, Equatable {
    let path: ContainerPath
    /// True for a folder (or a deeper subtree summed up), false for a single file.
    let isFolder: Bool
    /// For the treemap's tile that sums up a folder's smaller children: how many it holds
    /// (its name then reads "2,977 smaller items", and it is neither a file nor a folder).
    var summedItems: Int? = nil
    var backedUp: Int64 = 0
    var excluded: Int64 = 0
    /// In a place backup skips (Caches, tmp, the data root …), not excluded.
    var notBackedUp: Int64 = 0
    /// Largest first, then by path.
    var children: [FootprintNode] = []

    var size: Int64 { backedUp.addingSaturated(excluded).addingSaturated(notBackedUp) }
    var name: String {
        if let n = summedItems { return "\(Self.grouped(n)) smaller items" }
        return path.isRoot ? "." : ByteText.display(path.name)
    }

    /// `2977` as `2,977`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return out
    }

    init(path: ContainerPath, isFolder: Bool) {
        self.path = path
        self.isFolder = isFolder
    }
}

extension Inventory {
    /// The container's file bytes as a tree of folders down to `depth` levels below the data
    /// root (deeper content is summed into its ancestor at that depth), by backup state. The
    /// same bytes as the zone totals: files and symlinks that count in totals, system paths left out.
    func footprintTree(depth: Int = 3) -> FootprintNode {
        struct Sums { var backed: Int64 = 0, excluded: Int64 = 0, skipped: Int64 = 0, folder = false }
        var sums: [ContainerPath: Sums] = [:]
        var root = FootprintNode(path: .root, isFolder: true)
        for item in entries where item.countsInTotals && !item.isSystem {
            let e = item.entry
            // What the totals count: a symlink's target length is not backed-up content.
            let size = item.countedSize
            guard e.holdsContent, size > 0 else { continue }
            let parts = e.path.leadingComponents(depth + 1)
            guard !parts.isEmpty else { continue }
            var prefix: [UInt8] = []
            for (d, part) in parts.prefix(depth).enumerated() {
                if d > 0 { prefix.append(UInt8(ascii: "/")) }
                prefix += part
                let key = ContainerPath(bytes: prefix)
                var s = sums[key] ?? Sums()
                if item.backedUp == true {
                    s.backed +|= size
                } else if item.excludedBy != nil {
                    s.excluded +|= size
                } else {
                    s.skipped +|= size
                }
                if d + 1 < parts.count { s.folder = true }
                sums[key] = s
            }
            if item.backedUp == true {
                root.backedUp +|= size
            } else if item.excludedBy != nil {
                root.excluded +|= size
            } else {
                root.notBackedUp +|= size
            }
        }
        var byParent: [ContainerPath: [FootprintNode]] = [:]
        for (path, s) in sums {
            var node = FootprintNode(path: path, isFolder: s.folder)
            node.backedUp = s.backed
            node.excluded = s.excluded
            node.notBackedUp = s.skipped
            byParent[path.parent ?? .root, default: []].append(node)
        }
        func attach(_ node: inout FootprintNode) {
            var kids = byParent[node.path] ?? []
            for i in kids.indices { attach(&kids[i]) }
            node.children = kids.sorted { $0.size != $1.size ? $0.size > $1.size : $0.path < $1.path }
        }
        attach(&root)
        return root
    }
}
