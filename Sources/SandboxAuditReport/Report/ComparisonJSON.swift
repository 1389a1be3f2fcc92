import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

extension ComparisonReport {
    /// Bumped on any change that could break a reader (docs/compare-format.md).
    static let schemaVersion: Int64 = 1
    /// How many of each path list the JSON carries (the counts are whole).
    static let jsonListLength = 100

    /// `compare --format json`; `reportURL` as in `text`.
    static func json(_ c: ReportComparison, reportURL: String? = nil) -> String {
        func side(_ s: ComparedReport) -> JSON {
            .object([
                ("file", .string(s.location)),
                ("kind", .string(s.kind == .scan ? "scan" : "baseline")),
                ("bundleIdentifier", .optional(s.bundleIdentifier)),
                ("version", .optional(s.version)),
                ("complete", .optional(s.complete)),
                ("missed", .array(s.missed.map { .string($0) })),
            ])
        }
        func pair(_ before: Int64?, _ after: Int64?, _ delta: Int64?) -> JSON {
            .object([("before", .optional(before)), ("after", .optional(after)), ("delta", .optional(delta))])
        }
        func figures(_ r: Row) -> [(String, JSON)] {
            [
                ("backupFootprint", pair(r.before?.backupFootprint, r.after?.backupFootprint, r.footprintDelta)),
                ("keptOnUpdate", pair(r.before?.keptOnUpdate, r.after?.keptOnUpdate, r.keptOnUpdateDelta)),
                ("files", pair(r.before?.files, r.after?.files, r.filesDelta)),
            ]
        }
        func rows(_ list: [Row], _ key: String) -> JSON {
            .array(list.map { .object([(key, .optional($0.id))] + figures($0)) })
        }
        func paths(_ list: [PathChange]) -> JSON {
            .array(
                list.prefix(jsonListLength).map { p in
                    .object(
                        [("domain", .string(p.key.domain))] + JSONReport.path(p.key.path) + [
                            ("zone", .string((p.after ?? p.before)?.zone.rawValue ?? "")),
                            ("before", .optional(p.before?.size)),
                            ("after", .optional(p.after?.size)),
                            ("delta", .int(p.delta)),
                            ("backedUp", .optional((p.after ?? p.before)?.backedUp)),
                            ("owner", .optional(p.owner)),
                        ] + (c.sources == nil ? [] : [("source", JSONReport.source(source(p, c)))]))
                })
        }
        func findings(_ list: [FindingRecord]) -> JSON {
            .array(
                list.map { f in
                    .object(
                        [
                            ("ruleId", .string(f.ruleId)), ("severity", .optional(f.severity)),
                            ("domain", .string(f.domain)),
                        ]
                            + (f.path.map(JSONReport.path) ?? [("path", .null)])
                            + [("message", .optional(f.message)), ("owner", .optional(f.owner))])
                })
        }
        return JSON.object([
            ("schemaVersion", .int(schemaVersion)),
            ("kind", .string("sandbox-audit-comparison")),
            ("tool", .object([("name", .string("sandbox-audit")), ("version", .string(Audit.toolVersion))])),
            ("base", side(c.base)),
            ("head", side(c.head)),
            ("complete", .bool(!c.incomplete)),
            ("notes", .array(c.notes.map { .string($0) })),
            (
                "growthCheck",
                c.verdict.map { v in
                    .object([
                        ("limit", .int(v.limit)), ("growth", .int(v.growth)),
                        ("verdict", .string(v.failed ? "failed" : "passed")),
                    ])
                } ?? .null
            ),
            ("reportURL", .optional(reportURL)),
            ("total", .object(figures(c.total))),
            ("domains", rows(c.domains, "domain")),
            ("zones", rows(c.zones, "zone")),
            ("owners", c.owners.map { rows($0, "owner") } ?? .null),
            ("ownersUnavailable", .optional(c.ownersUnavailable)),
            ("pathsUnavailable", .optional(c.pathsUnavailable)),
            ("grewCount", .int(Int64(c.grew.count))),
            ("addedCount", .int(Int64(c.added.count))),
            ("removedCount", .int(Int64(c.removed.count))),
            ("grew", paths(c.grew)),
            ("added", paths(c.added)),
            ("removed", paths(c.removed)),
            ("newlyBackedUpCount", .int(Int64(c.newlyBackedUp.count))),
            ("noLongerBackedUpCount", .int(Int64(c.noLongerBackedUp.count))),
            ("exclusionLostCount", .int(Int64(c.exclusionLost.count))),
            ("newlyBackedUp", paths(c.newlyBackedUp)),
            ("noLongerBackedUp", paths(c.noLongerBackedUp)),
            ("exclusionLost", paths(c.exclusionLost)),
            ("newFindings", findings(c.newFindings)),
            ("fixedFindings", findings(c.fixedFindings)),
        ]).prettyLine
    }
}
