/// Figures the reports share, computed once from the audit result so that printers only lay
/// them out.
public struct RuleTally: Sendable, Equatable {
    public let ruleId: String
    public var errors = 0, warnings = 0, notes = 0
    public var total: Int { errors + warnings + notes }
    /// The most severe level among the rule's findings.
    public var severity: Severity { errors > 0 ? .error : (warnings > 0 ? .warning : .note) }

    public init(ruleId: String) { self.ruleId = ruleId }
}

extension AuditResult {
    /// The findings per rule that reported any, most severe rules first, then catalogue order.
    public var tallies: [RuleTally] {
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
            let oa = order[a.ruleId] ?? Int.max, ob = order[b.ruleId] ?? Int.max
            return oa != ob ? oa < ob : a.ruleId < b.ruleId
        }
    }

    /// The findings, most severe first; within a severity, in report order (stable).
    public var findingsBySeverity: [Finding] {
        findings.enumerated().sorted { a, b in
            a.element.severity != b.element.severity ? a.element.severity > b.element.severity : a.offset < b.offset
        }.map(\.element)
    }
}
