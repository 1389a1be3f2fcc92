import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// `compare BASE HEAD`: two scans of an app (a pull request's base and head, two releases),
/// each read from a scan report or a baseline, and what changed between them: the backup
/// footprint, kept-on-update bytes and file counts per domain, zone and owner; the paths that
/// grew, appeared and went; the findings new in HEAD and those fixed since BASE. Everything a
/// printer shows is decided here. Format: docs/compare-format.md.
public struct ReportComparison: Sendable {
    package typealias Figures = ComparedReport.Figures

    /// One line of a table: a domain, a zone, an owner, or the whole app, before and after.
    package struct Row: Sendable {
        /// The domain, zone title or owner; nil for the owner row of paths that name none.
        package let name: String?
        /// What machine formats name it by: the domain, the zone's id, the owner.
        package var id: String? = nil
        package let before: Figures?
        package let after: Figures?

        package var footprintDelta: Int64 { (after?.backupFootprint ?? 0) - (before?.backupFootprint ?? 0) }
        package var filesDelta: Int64 { (after?.files ?? 0) - (before?.files ?? 0) }
        /// Nil when either side does not record kept-on-update bytes (a baseline).
        package var keptOnUpdateDelta: Int64? {
            guard let a = after?.keptOnUpdate ?? (after == nil ? 0 : nil),
                let b = before?.keptOnUpdate ?? (before == nil ? 0 : nil)
            else { return nil }
            return a - b
        }
    }

    /// A path in either side, with its record in each (nil where it does not exist).
    package struct PathChange: Sendable {
        package let key: ComparedReport.PathKey
        package let before: ComparedReport.PathRecord?
        package let after: ComparedReport.PathRecord?
        package var delta: Int64 { (after?.size ?? 0) - (before?.size ?? 0) }
        package var owner: String? { after?.owner ?? before?.owner }
    }

    package let base: ComparedReport
    package let head: ComparedReport
    /// The app's sources (`compare --sources`): each path listed names the lines that build it.
    package var sources: AppSources?
    package let total: Row
    package let domains: [Row]
    package let zones: [Row]
    /// Per owner, largest HEAD footprint first; nil with the reason in `ownersUnavailable`.
    package let owners: [Row]?
    package let ownersUnavailable: String?
    /// Files in both that grew, most first; files only in HEAD and only in BASE, largest first.
    /// Empty with the reason in `pathsUnavailable` when a side has no per-path sizes.
    package let grew: [PathChange]
    package let added: [PathChange]
    package let removed: [PathChange]
    package let pathsUnavailable: String?
    /// Files in both not backed up in BASE and backed up in HEAD, and the other way, largest
    /// first (baselines only).
    package let newlyBackedUp: [PathChange]
    package let noLongerBackedUp: [PathChange]
    /// Files excluded from backup in BASE (they carried or inherited the exclude attribute) and
    /// backed up in HEAD: what `scan --baseline` reports as `exclusion-lost`. Largest first.
    package let exclusionLost: [PathChange]
    package let newFindings: [ComparedReport.FindingRecord]
    package let fixedFindings: [ComparedReport.FindingRecord]
    /// What the reader should know of the inputs themselves (an incomplete scan: the banner
    /// the scan's own reports print and what it missed, one note a side).
    package let notes: [String]

    /// A side's scan could not read everything (its `complete` is false): `compare` then exits 1
    /// unless `--allow-incomplete` is given, as `scan` does.
    public var incomplete: Bool { base.complete == false || head.complete == false }

    /// Reads both files; an `InputError` names the one that cannot be read. Two sides naming
    /// different bundle identifiers are refused (`InputError`, naming both) unless
    /// `allowDifferentApps`, which makes it a note.
    public static func load(base: String, head: String, allowDifferentApps: Bool = false) throws -> ReportComparison {
        let b = try ComparedReport.load(base, as: "BASE")
        let h = try ComparedReport.load(head, as: "HEAD")
        if !allowDifferentApps, let different = differentApps(base: b, head: h) {
            throw InputError(different + "; --allow-different-apps compares them anyway")
        }
        return ReportComparison(base: b, head: h)
    }

    /// "BASE FILE is APP and HEAD FILE is OTHER: two different apps", or nil when they are one
    /// app (or a side does not name its bundle identifier).
    package static func differentApps(base: ComparedReport, head: ComparedReport) -> String? {
        guard let a = base.bundleIdentifier, let b = head.bundleIdentifier, a != b else { return nil }
        func e(_ s: String) -> String { TerminalText.escaped(s) }
        return "BASE \(e(base.location)) is \(e(a)) and HEAD \(e(head.location)) is \(e(b)): two different apps"
    }

    /// The change in bytes backup carries, HEAD less BASE, over the domains both sides audited:
    /// a group or extension one side did not audit is neither growth nor a saving.
    public var footprintGrowth: Int64 {
        guard !domainsOnlyInBase.isEmpty || !domainsOnlyInHead.isEmpty else { return total.footprintDelta }
        return domains.filter { $0.before != nil && $0.after != nil }.reduce(Int64(0)) {
            $0.addingSaturated($1.footprintDelta)
        }
    }

    /// Domains one side audited and the other did not (a PR whose scan lost its `--app-group`):
    /// their paths are neither added nor removed, and the verdict leaves them out; a note names them.
    package let domainsOnlyInBase: [String]
    package let domainsOnlyInHead: [String]

    /// `--fail-on-growth`: the footprint grew by more than `limit` bytes.
    public func grew(moreThan limit: Int64) -> Bool { footprintGrowth > limit }

    /// `--fail-on-growth SIZE`, when given: every format then states the verdict (`verdict`).
    public var growthLimit: Int64? = nil

    /// The limit, the growth and whether it failed (more than the limit); nil without a limit.
    package struct Verdict: Sendable {
        package let limit: Int64
        package let growth: Int64
        package var failed: Bool { growth > limit }
    }

    package var verdict: Verdict? { growthLimit.map { Verdict(limit: $0, growth: footprintGrowth) } }

    /// The footprint grew by more than `growthLimit`: `compare` exits 1.
    public var failed: Bool { verdict?.failed ?? false }

    package init(base: ComparedReport, head: ComparedReport) {
        self.base = base
        self.head = head
        total = Row(name: nil, before: base.total, after: head.total)
        let inHead = Set(head.domains)
        let domainNames = head.domains + base.domains.filter { !inHead.contains($0) }
        // Only where both sides record the domains they audited (an older baseline names the
        // domains its files are in, and an empty one is not among them).
        let baseAudited = base.auditedDomains ?? []
        let headAudited = head.auditedDomains ?? []
        let recorded = base.auditedDomains != nil && head.auditedDomains != nil
        let onlyInBase = recorded ? baseAudited.filter { !Set(headAudited).contains($0) } : []
        let onlyInHead = recorded ? headAudited.filter { !Set(baseAudited).contains($0) } : []
        domainsOnlyInBase = onlyInBase
        domainsOnlyInHead = onlyInHead
        let oneSided = Set(onlyInBase + onlyInHead)
        domains = domainNames.map { Row(name: $0, id: $0, before: base.perDomain[$0], after: head.perDomain[$0]) }
        zones = Zone.allCases.filter { $0 != .system }.compactMap { z in
            let b = base.perZone[z]
            let a = head.perZone[z]
            let empty = [b, a].allSatisfy { ($0 ?? Figures()) == Figures() }
            return empty ? nil : Row(name: z.title, id: z.rawValue, before: b, after: a)
        }

        if let basePaths = base.paths, let headPaths = head.paths {
            pathsUnavailable = nil
            var grew: [PathChange] = []
            var added: [PathChange] = []
            var removed: [PathChange] = []
            var newly: [PathChange] = []
            var noLonger: [PathChange] = []
            var lost: [PathChange] = []
            func both(_ b: Int, _ h: Int) {
                let before = basePaths.record(b)
                let after = headPaths.record(h)
                let key = headPaths.key(h)
                if after.size > before.size { grew.append(PathChange(key: key, before: before, after: after)) }
                guard before.backedUp != after.backedUp else { return }
                let change = PathChange(key: key, before: before, after: after)
                if after.backedUp {
                    newly.append(change)
                    if before.excluded == true { lost.append(change) }
                } else {
                    noLonger.append(change)
                }
            }
            var onlyBase: [Int] = []
            var onlyHead: [Int] = []
            // One pass over both sides in (domain, path) order: a merge join.
            Self.join(basePaths, headPaths) { b, h in
                // A domain only one side audited: its paths say nothing of what changed.
                if !oneSided.isEmpty, let key = b.map(basePaths.key) ?? h.map(headPaths.key),
                    oneSided.contains(key.domain)
                {
                    return
                }
                switch (b, h) {
                case (let b?, let h?): both(b, h)
                case (nil, let h?): onlyHead.append(h)
                case (let b?, nil): onlyBase.append(b)
                case (nil, nil): break
                }
            }
            // A hard-linked file recorded under one name in BASE and another in HEAD is the same
            // file when the two share a name (`links`).
            if basePaths.files.hasLinks || headPaths.files.hasLinks {
                var byName: [ContainerPath: Int] = [:]
                for b in onlyBase { for n in [basePaths.files.path(b)] + basePaths.files.links(b) { byName[n] = b } }
                var matched = Set<Int>()
                onlyHead = onlyHead.filter { h in
                    let names = [headPaths.files.path(h)] + headPaths.files.links(h)
                    guard let b = names.lazy.compactMap({ byName[$0] }).first(where: { !matched.contains($0) }) else {
                        return true
                    }
                    matched.insert(b)
                    both(b, h)
                    return false
                }
                onlyBase.removeAll { matched.contains($0) }
            }
            added = onlyHead.map { PathChange(key: headPaths.key($0), before: nil, after: headPaths.record($0)) }
            removed = onlyBase.map { PathChange(key: basePaths.key($0), before: basePaths.record($0), after: nil) }
            func largestFirst(_ size: @escaping (PathChange) -> Int64) -> (PathChange, PathChange) -> Bool {
                { (size($0), $1.key) > (size($1), $0.key) }
            }
            self.grew = grew.sorted(by: largestFirst(\.delta))
            self.added = added.sorted(by: largestFirst { $0.after?.size ?? 0 })
            self.removed = removed.sorted(by: largestFirst { $0.before?.size ?? 0 })
            newlyBackedUp = newly.sorted(by: largestFirst { $0.after?.size ?? 0 })
            noLongerBackedUp = noLonger.sorted(by: largestFirst { $0.before?.size ?? 0 })
            exclusionLost = lost.sorted(by: largestFirst { $0.after?.size ?? 0 })
        } else {
            grew = []
            added = []
            removed = []
            newlyBackedUp = []
            noLongerBackedUp = []
            exclusionLost = []
            let which = [(base, "BASE"), (head, "HEAD")].filter { $0.0.paths == nil }.map(\.1)
            pathsUnavailable =
                (which.count == 2
                    ? "BASE and HEAD are scan reports, which record" : "\(which[0]) is a scan report, which records")
                + " no per-path sizes; compare baselines (scan --write-baseline) to see paths"
        }

        // Owners: a baseline's summed from its files, a scan report's from its owner totals.
        if let b = base.perOwner, let a = head.perOwner {
            let names = Set(b.keys).union(a.keys)
            owners = names.map { Row(name: $0, id: $0, before: b[$0], after: a[$0]) }.sorted {
                ($0.after?.backupFootprint ?? 0, $1.name ?? "") > ($1.after?.backupFootprint ?? 0, $0.name ?? "")
            }
            ownersUnavailable = nil
        } else {
            owners = nil
            let lacking = [(base, "BASE"), (head, "HEAD")].filter { $0.0.perOwner == nil }
            ownersUnavailable = lacking.map { side, name in
                side.kind == .scan
                    ? "\(name) is a scan report without owner totals (domains[].owners, written by sandbox-audit "
                        + "versions that attribute paths to owners)"
                    : "\(name) names no owner for its files (a baseline records one for each file when sandbox-audit "
                        + "attributes paths to owners)"
            }.joined(separator: "; ")
        }

        (newFindings, fixedFindings) = Self.findingChanges(base: base, head: head, order: domainNames)
        let apps: [String] = Self.differentApps(base: base, head: head).map { [$0 + " (--allow-different-apps)"] } ?? []
        let e = TerminalText.escaped
        var sided: [String] = []
        if !onlyInBase.isEmpty {
            sided.append(
                "only BASE audited \(onlyInBase.map(e).joined(separator: ", ")): HEAD did not (a container left out "
                    + "of its scan: --app-group, appGroups: or an extension), so its bytes count neither as removed "
                    + "nor in the growth verdict"
            )
        }
        if !onlyInHead.isEmpty {
            sided.append(
                "only HEAD audited \(onlyInHead.map(e).joined(separator: ", ")): BASE did not, so its bytes count "
                    + "neither as added nor in the growth verdict"
            )
        }
        notes =
            apps + sided
            + [(base, "BASE"), (head, "HEAD")].flatMap { side, name -> [String] in
                guard side.complete == false else { return [] }
                let n = side.missed.count
                let banner =
                    n == 0
                    ? "INCOMPLETE SCAN (\(name)): part of it could not be read; its figures and findings leave that "
                        + "out (see unreadable-entry)"
                    : "INCOMPLETE SCAN (\(name)): \(n) \(n == 1 ? "item" : "items") could not be read; its figures "
                        + "and findings leave \(n == 1 ? "it" : "them") out (see unreadable-entry)"
                // One note a side: what it missed follows its banner, not as banners of its own.
                guard n > 0 else { return [banner] }
                return [
                    banner + "; missed: " + side.missed.prefix(10).joined(separator: "; ")
                        + (n > 10 ? "; and \(n - 10) more" : "")
                ]
            }
    }

    /// Calls `body` for every key of either side, in (domain, path) order, with its row in each
    /// (nil where the side does not hold it).
    static func join(_ base: PathTable, _ head: PathTable, _ body: (Int?, Int?) -> Void) {
        var i = 0
        var j = 0
        let b = base.order
        let h = head.order
        // Domains compared once per pair of domains, not per row.
        var domainOrder: [Int: Int] = [:]
        func compareDomains(_ x: Int, _ y: Int) -> Int {
            let k = x * (head.domainNames.count + 1) + y
            if let c = domainOrder[k] { return c }
            let a = base.domainNames[x]
            let z = head.domainNames[y]
            let c = a == z ? 0 : (a < z ? -1 : 1)
            domainOrder[k] = c
            return c
        }
        while i < b.count || j < h.count {
            guard i < b.count else {
                body(nil, Int(h[j]))
                j += 1
                continue
            }
            guard j < h.count else {
                body(Int(b[i]), nil)
                i += 1
                continue
            }
            let x = Int(b[i])
            let y = Int(h[j])
            var c = compareDomains(base.domainIndex(x), head.domainIndex(y))
            if c == 0 {
                c = Bytes.compare(base.pathSlice(x), head.pathSlice(y))
            }
            if c == 0 {
                body(x, y)
                i += 1
                j += 1
            } else if c < 0 {
                body(x, nil)
                i += 1
            } else {
                body(nil, y)
                j += 1
            }
        }
    }

    /// Findings in HEAD and not in BASE, and the other way, by rule, domain and path (several
    /// findings of one rule about no entry are counted, not matched by message).
    package static func findingChanges(base: ComparedReport, head: ComparedReport, order: [String])
        -> ([ComparedReport.FindingRecord], [ComparedReport.FindingRecord])
    {
        struct Key: Hashable { let rule: String, domain: String, path: ContainerPath? }
        func key(_ f: ComparedReport.FindingRecord) -> Key { Key(rule: f.ruleId, domain: f.domain, path: f.path) }
        func extra(_ a: [ComparedReport.FindingRecord], over b: [ComparedReport.FindingRecord]) -> [ComparedReport
            .FindingRecord]
        {
            var left: [Key: Int] = [:]
            for f in b { left[key(f), default: 0] += 1 }
            return a.filter { f in
                guard let n = left[key(f)], n > 0 else { return true }
                left[key(f)] = n - 1
                return false
            }
        }
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        func sorted(_ list: [ComparedReport.FindingRecord]) -> [ComparedReport.FindingRecord] {
            list.sorted { a, b in
                (rank[a.domain] ?? .max, a.path ?? .root, a.ruleId) < (
                    rank[b.domain] ?? .max, b.path ?? .root, b.ruleId
                )
            }
        }
        return (sorted(extra(head.findings, over: base.findings)), sorted(extra(base.findings, over: head.findings)))
    }
}
