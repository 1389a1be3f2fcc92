import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSources
import SandboxAuditSystem

/// The machine formats of `scan` and `inventory`; documented in docs/json-format.md and
/// docs/inventory-format.md. Printers decide nothing: every figure comes from the model.
public enum JSONReport {
    /// Bumped on any change that could break a reader.
    /// New fields appear within a version (docs/json-format.md): `notChecked` (scan), `complete`
    /// and `missed` (simulate) came within 2.
    static let schemaVersion: Int64 = 2

    static func path(_ p: ContainerPath) -> [(String, JSON)] {
        var fields: [(String, JSON)] = [("path", .string(p.display))]
        if let b = p.base64 { fields.append(("pathBase64", .string(b))) }
        return fields
    }

    static func container(_ c: Container) -> JSON {
        var fields: [(String, JSON)] = [
            ("input", .string(c.input)),
            ("dataRoot", .string(c.dataRoot)),
            ("kind", .string(c.kind.rawValue)),
            ("role", .string(c.role.rawValue)),
            ("roleSource", .string(c.roleSource)),
            ("domain", .string(c.domain)),
            ("bundleIdentifier", .optional(c.bundleIdentifier)),
            ("version", .optional(c.version)),
            ("identitySource", .optional(c.identitySource)),
        ]
        if let b = c.backup {
            let i = b.folder.identity
            fields.append(
                (
                    "backup",
                    .object([
                        ("folder", .string(b.folder.path)),
                        ("deviceName", .optional(i.deviceName)),
                        ("productVersion", .optional(i.productVersion)),
                        ("date", .optional(i.date)),
                        ("encrypted", .bool(i.isEncrypted)),
                    ])
                ))
        }
        return .object(fields)
    }

    static func zoneTotals(_ t: ZoneTotals) -> [(String, JSON)] {
        [
            ("files", .int(Int64(t.files))), ("directories", .int(Int64(t.directories))),
            ("symlinks", .int(Int64(t.symlinks))), ("others", .int(Int64(t.others))),
            ("size", .int(t.size)), ("allocated", .int(t.allocated)),
            ("backedUpSize", .int(t.backedUpSize)), ("excludedSize", .int(t.excludedSize)),
            ("survivesUpdateSize", .int(t.survivesUpdateSize)),
            ("survivesRestoreSize", .int(t.survivesRestoreSize)),
        ]
    }

    /// One finding, written straight into `out` where the report is, at `level`.
    /// A path's source lines (`--sources`), best first: `[{"file", "line", "column"}]`.
    static func source(_ lines: [SourceLocation]) -> JSON {
        .array(
            lines.map {
                .object([
                    ("file", .string($0.file)), ("line", .int(Int64($0.line))), ("column", .int(Int64($0.column))),
                ])
            })
    }

    /// `sources`: the scan read the app's sources, so every finding has its `source` list.
    static func finding(
        _ item: ReportFinding, into out: inout [UInt8], indent: Int?, level: Int, sources: Bool = false
    ) {
        let (f, owner) = (item.finding, item.owner)
        var o = JSONObjectWriter(&out, indent: indent, level: level)
        defer { o.end(&out) }
        o.string("ruleId", f.ruleId, &out)
        o.string("severity", f.severity.rawValue, &out)
        o.string("domain", f.domain, &out)
        // Null for a finding about no entry (a budget): see docs/json-format.md.
        o.path("path", "pathBase64", f.path, &out)
        o.string("message", f.message, &out)
        o.int("size", f.size, &out)
        o.string("fix", f.fixText, &out)
        o.string("owner", owner?.name, &out)
        o.string("ownerKind", owner?.kind, &out)
        o.value("ownerDetail", OwnerReport.json(owner), &out)
        if let suppression = item.suppression { o.value("suppression", SuppressionReport.json(suppression), &out) }
        if sources { o.value("source", source(item.source), &out) }
    }

    /// One container of the scan: its backup domain, totals and zones.
    static func domain(_ inv: Inventory, owners: [OwnerMap.Total] = []) -> JSON {
        let zones: [JSON] = Zone.allCases.filter { $0 != .system }.map { zone in
            .object(
                [("zone", .string(zone.rawValue)), ("title", .string(zone.title))]
                    + zoneTotals(inv.zoneTotals[zone] ?? ZoneTotals()))
        }
        return .object([
            ("domain", .string(inv.domain)),
            ("container", container(inv.container)),
            (
                "totals",
                .object(
                    [
                        ("backupFootprint", .int(inv.backupFootprint)),
                        ("keptOnUpdate", .int(inv.keptOnUpdate)),
                        ("keptOnRestore", .int(inv.keptOnRestore)),
                    ] + zoneTotals(inv.total) + [
                        ("systemEntries", .int(Int64(inv.systemEntries))),
                        ("sidecarsRead", .int(Int64(inv.sidecarCount))),
                        ("unreadable", .int(Int64(inv.problems.count))),
                    ])
            ),
            ("zones", .array(zones)),
            ("protection", ProtectionReport.json(ProtectionCensus(inv))),
            ("owners", OwnerReport.json(owners)),
        ])
    }

    /// A rule option's value in `settings`: bytes, seconds or a count.
    static func setting(_ value: RuleOption.Value) -> JSON {
        switch value {
        case .size(let b): return .int(b)
        case .age(let a): return .double(a)
        case .count(let n): return .int(Int64(n))
        }
    }

    /// The `scan --format json` document. `totals` and `zones` are the app's, over every
    /// container; `domains` has each container's own.
    static func scan(_ report: ScanReport) -> JSON {
        let result = report.result
        let inventories = result.inventories
        let s = result.context.settings
        let summary = report.summary
        let zones: [JSON] = Zone.allCases.filter { $0 != .system }.map { zone in
            let t = inventories.reduce(ZoneTotals()) { $0 + ($1.zoneTotals[zone] ?? ZoneTotals()) }
            return .object([("zone", .string(zone.rawValue)), ("title", .string(zone.title))] + zoneTotals(t))
        }
        let systemCount = inventories.reduce(0) { $0 + $1.systemEntries }
        let domains: [JSON] = inventories.indices.map { domain(inventories[$0], owners: report.owners[$0]) }
        return .object([
            ("schemaVersion", .int(schemaVersion)),
            ("tool", .object([("name", .string("sandbox-audit")), ("version", .string(Audit.toolVersion))])),
            ("container", container(result.inventory.container)),
            ("domains", .array(domains)),
            (
                "settings",
                .object(
                    RuleCatalogue.options.map { ($0.option.json, setting(s[$0.option])) } + [
                        ("failOn", .string(report.failOn.rawValue))
                    ])
            ),
            (
                "totals",
                .object(
                    [
                        ("backupFootprint", .int(result.backupFootprint)),
                        ("keptOnUpdate", .int(result.keptOnUpdate)),
                        ("keptOnRestore", .int(result.keptOnRestore)),
                    ] + zoneTotals(result.total) + [
                        ("systemEntries", .int(Int64(systemCount))),
                        ("sidecarsRead", .int(Int64(inventories.reduce(0) { $0 + $1.sidecarCount }))),
                        ("unreadable", .int(Int64(inventories.reduce(0) { $0 + $1.problems.count }))),
                    ])
            ),
            ("zones", .array(zones)),
            ("complete", .bool(result.complete)),
            ("missed", .array(result.missed.map(missed))),
            ("notChecked", .array(result.notChecked.map(notChecked))),
            ("notes", .array(result.notes.map { .string($0) })),
            ("protection", ProtectionReport.json(result)),
            ("policy", .object([("source", .optional(result.policy.source))])),
            ("budgets", .array(result.budgets.map { budget($0, owners: result.context.owners) })),
            (
                "baseline",
                result.comparison.map {
                    comparison($0, suppressed: summary.baselineFindings, owners: result.context.owners)
                } ?? .null
            ),
            ("backupComparison", result.backupComparison.map(BackupComparisonReport.json) ?? .null),
            (
                "findings",
                .written(count: report.findings.count) { i, out, indent, level in
                    finding(
                        report.findings[i], into: &out, indent: indent, level: level, sources: report.sourceRoot != nil)
                }
            ),
            (
                "suppressed",
                .written(count: report.suppressed.count) { i, out, indent, level in
                    finding(
                        report.suppressed[i], into: &out, indent: indent, level: level,
                        sources: report.sourceRoot != nil)
                }
            ),
            (
                "summary",
                .object([
                    ("error", .int(Int64(summary.errors))),
                    ("warning", .int(Int64(summary.warnings))),
                    ("note", .int(Int64(summary.notes))),
                    ("ignoredFindings", .int(Int64(summary.ignoredFindings))),
                    ("baselineFindings", .int(Int64(summary.baselineFindings))),
                    ("suppressedFindings", .int(Int64(report.suppressed.count))),
                    ("failed", .bool(report.failed)),
                ])
            ),
        ])
    }

    /// One thing the scan could not read.
    static func missed(_ m: MissedItem) -> JSON {
        .object(path(m.path) + [("domain", .string(m.domain)), ("what", .string(m.what)), ("why", .string(m.why))])
    }

    /// A rule not run on a container, or run in part, and what it needs.
    static func notChecked(_ n: NotChecked) -> JSON {
        .object([
            ("ruleId", .string(n.ruleId)), ("domain", .string(n.domain)),
            ("needs", .array(n.needs.map { .string($0.rawValue) })),
            ("checkedInPart", .bool(n.partly != nil)), ("reason", .string(n.reason)),
        ])
    }

    /// A listed path's owner (`owner`, null when none covers it).
    static func owner(_ path: ContainerPath, _ owners: OwnerMap?) -> (String, JSON) {
        ("owner", .optional(path.isRoot ? nil : owners?.attribution(of: path)?.name))
    }

    static func budget(_ r: BudgetResult, owners: OwnerMap? = nil) -> JSON {
        var scope: [(String, JSON)]
        switch r.budget.scope {
        case .backup: scope = [("scope", .string("backup"))]
        case .churn: scope = [("scope", .string("churn"))]
        case .growth: scope = [("scope", .string("growth"))]
        case .zone(let z): scope = [("scope", .string("zone")), ("zone", .string(z.rawValue))]
        case .glob(let g): scope = [("scope", .string("glob")), ("glob", .string(g.pattern))]
        case .domain(let d): scope = [("scope", .string("domain")), ("domain", .string(d))]
        case .owner(let o): scope = [("scope", .string("owner")), ("owner", .string(o))]
        }
        return .object(
            [("name", .string(r.budget.name))] + scope + [
                ("measure", .string(r.budget.measure.rawValue)),
                ("limit", .int(r.limit)),
                ("measured", .optional(r.measured)),
                ("percent", r.percent.map { $0.isFinite ? .double(($0 * 10).rounded() / 10) : .null } ?? .null),
                ("exceeded", .bool(r.exceeded)),
                ("overshoot", .int(r.overshoot)),
                (
                    "contributors",
                    .array(
                        r.contributors.map {
                            .object(path($0.path) + [("size", .int($0.size)), owner($0.path, owners)])
                        })
                ),
            ])
    }

    /// How many of each list the reports carry.
    static let changeListLength = 10

    static func comparison(_ c: BaselineComparison, suppressed: Int, owners: OwnerMap? = nil) -> JSON {
        func changes(_ list: [BaselineComparison.Change]) -> JSON {
            .array(
                list.prefix(changeListLength).map { ch in
                    .object(
                        path(ch.path) + [
                            ("before", .optional(ch.before)), ("after", .optional(ch.after)), ("delta", .int(ch.delta)),
                            owner(ch.path, owners),
                        ])
                })
        }
        return .object([
            ("suppressedFindings", .int(Int64(suppressed))),
            ("backupFootprintBefore", .int(c.footprintBefore)),
            ("backupFootprintAfter", .int(c.footprintAfter)),
            ("backupFootprintDelta", .int(c.footprintDelta)),
            (
                "zones",
                .array(
                    c.zones.map {
                        .object([
                            ("zone", .string($0.zone.rawValue)), ("before", .int($0.before)), ("after", .int($0.after)),
                            ("delta", .int($0.after - $0.before)),
                        ])
                    })
            ),
            ("addedCount", .int(Int64(c.added.count))),
            ("removedCount", .int(Int64(c.removed.count))),
            ("grewCount", .int(Int64(c.grew.count))),
            ("added", changes(c.added)),
            ("removed", changes(c.removed)),
            ("grew", changes(c.grew)),
            ("churn", .int(c.churn)),
            ("churnContributors", changes(c.churnContributors)),
        ])
    }

    /// The `inventory` output, JSON Lines: every entry of each inventory in turn, handed to
    /// `write` in chunks of about 64 KiB so that a large container streams.
    /// Each line names the entry's owner: the policy's `owners:` first, then the catalogue.
    /// An entry the walk could not read in full (a folder it could not list, a sidecar it could
    /// not read for it) carries `notRead`: what was not done and why.
    public static func inventoryLines(_ inventories: [Inventory], policy: Policy = Policy(), write: ([UInt8]) -> Void) {
        inventoryLines(inventories, policy: policy, sources: nil, write: write)
    }

    /// With the app's sources (`inventory --sources`), each line also has `source`: the lines of
    /// the app that build its path, best first.
    package static func inventoryLines(
        _ inventories: [Inventory], policy: Policy = Policy(), sources: AppSources?, write: ([UInt8]) -> Void
    ) {
        let owners = OwnerMap(inventories, rules: policy.owners)
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 17)
        for (c, inventory) in inventories.enumerated() {
            let notRead = notRead(inventory)
            for (i, entry) in inventory.entries.enumerated() {
                let owner = owners.attribution(container: c, entry: i)
                self.entry(
                    entry, domain: inventory.domain, owner: owner, notRead: notRead.isEmpty ? nil : notRead[entry.path],
                    source: sources.map { $0.candidates(entry.path, entry: i, in: inventory, owner: owner) },
                    into: &chunk)
                chunk.append(UInt8(ascii: "\n"))
                if chunk.count >= 1 << 16 {
                    write(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
        }
        write(chunk)
    }

    /// What the walk could not read of each entry: its own problems, and those of the `._`
    /// sidecar that carries its attributes ("what (why)", several joined by "; ").
    static func notRead(_ inventory: Inventory) -> [ContainerPath: String] {
        var out: [ContainerPath: String] = [:]
        let sidecarPrefix = Array("._".utf8)
        for p in inventory.problems {
            var path = p.path
            if inventory.entry(at: path) == nil, p.path.name.starts(with: sidecarPrefix) {
                let described = Array(p.path.name.dropFirst(2))
                path =
                    p.path.parent.map {
                        $0.isRoot
                            ? ContainerPath(bytes: described)
                            : ContainerPath(bytes: $0.bytes + [UInt8(ascii: "/")] + described)
                    } ?? p.path
            }
            guard inventory.entry(at: path) != nil else { continue }
            let text = "\(p.operation) (\(p.reason))"
            out[path] = out[path].map { $0 + "; " + text } ?? text
        }
        return out
    }
}

extension JSONObjectWriter {
    /// A path's field (null for none) and, where `base64` gives its bytes, the `…Base64` field
    /// after it: the fields `JSONReport.path` makes.
    mutating func path(_ key: StaticString, _ base64Key: StaticString, _ p: ContainerPath?, _ out: inout [UInt8]) {
        // An ASCII path is its own display text, written from its bytes; its `…Base64` field only
        // when it holds a backslash (as `ContainerPath.base64` says).
        if let p, !p.isRoot, asciiString(key, p.bytes, &out) {
            if p.bytes.contains(UInt8(ascii: "\\")) { string(base64Key, ByteText.base64(p.bytes), &out) }
            return
        }
        string(key, p?.display, &out)
        if let b = p?.base64 { string(base64Key, b, &out) }
    }
}
