import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSources
import SandboxAuditSystem

/// The sections a scan report can hold. Every format prints each one or declares, with its
/// reason, that it leaves it out (`ReportFormat.leavesOut`); `ReportSectionTests` renders a
/// scan that fills every section in every format and checks each section is there.
public enum ReportSection: String, CaseIterable, Sendable {
    // What each holds: `summary`, below (docs/report-formats.md's table).
    case scan, incomplete, census, headline, protection, owners, budgets, growth, backupComparison, findings,
        suppressions
    case notChecked, verdict
}

extension ReportSection {
    /// What the section holds, as docs/report-formats.md lists it.
    public var summary: String {
        switch self {
        case .scan: return "the app and its containers"
        case .incomplete: return "when the scan missed something: the banner, and what was not read"
        case .census: return "per container, files and bytes by zone"
        case .headline: return "backup footprint, kept on update, kept on restore, and the scan's notes"
        case .protection: return "data protection classes of the files, where the input records them"
        case .owners: return "who owns the bytes: each container's owners"
        case .budgets: return "each budget's use against its limit"
        case .growth: return "what changed since the baseline: growth and churn"
        case .backupComparison: return "the prediction held against a real backup (`--against-backup`)"
        case .findings: return "the findings, each with its place, owner and fix"
        case .suppressions: return "the findings a `suppress:` entry covers, with its reason"
        case .notChecked: return "the rules the scan could not check, and what they need"
        case .verdict: return "passed or failed, and why"
        }
    }
}

extension ReportFormat {
    /// docs/report-formats.md's table: each section, and the formats that print it (✓) or leave
    /// it out (–); then, per format, why it leaves out what it does.
    public static func sectionsTable() -> String {
        var rows = [
            "| section | what it holds | " + allCases.map { "`\($0.rawValue)`" }.joined(separator: " | ") + " |",
            "|---|---|" + String(repeating: ":-:|", count: allCases.count),
        ]
        for section in ReportSection.allCases {
            let marks = allCases.map { $0.leavesOut[section] == nil ? "✓" : "–" }
            rows.append("| `\(section.rawValue)` | \(section.summary) | " + marks.joined(separator: " | ") + " |")
        }
        rows.append("")
        for format in allCases where !format.leavesOut.isEmpty {
            var byReason: [(reason: String, sections: [String])] = []
            for section in ReportSection.allCases {
                guard let why = format.leavesOut[section] else { continue }
                if let i = byReason.firstIndex(where: { $0.reason == why }) {
                    byReason[i].sections.append("`\(section.rawValue)`")
                } else {
                    byReason.append((why, ["`\(section.rawValue)`"]))
                }
            }
            rows.append(
                "- `\(format.rawValue)` leaves out "
                    + byReason.map { "\($0.sections.joined(separator: ", ")): \($0.reason)" }.joined(separator: "; ")
                    + ".")
        }
        return rows.joined(separator: "\n") + "\n"
    }
}

/// One finding as every format shows it, resolved once: where it is, and who owns it.
struct ReportFinding: Sendable {
    let finding: Finding
    /// Its container's place among the result's inventories (the app's data container, 0, for
    /// a finding about no container).
    let container: Int
    /// Where reports show it (after its domain when the app was scanned as several
    /// containers); nil for a finding about no entry.
    let subject: String?
    /// Its entry's owner, as the audit located the entry; nil for none.
    let owner: Attribution?
    /// The `suppress:` entry that covers it, for a suppressed finding.
    let suppression: Suppression?
    /// The lines of the app that build its path (`--sources`), best first; empty without
    /// sources, for a path no line of the app names, and for what a framework or an SDK writes.
    let source: [SourceLocation]
}

/// A budget as every format shows it: its measure, and the severity an excess has (that of
/// `budget-exceeded` under the policy; nil when the policy turns the rule off).
struct ReportBudget: Sendable {
    let result: BudgetResult
    let severity: Severity?
}

/// Everything a scan report shows, built once after the audit. Printers lay it out and
/// decide nothing: the findings come with their places and owners, the verdict with its
/// reason, each section's figures computed here once.
struct ScanReport: Sendable {
    /// The audit the report is of: its inventories, for the printers that draw them entry by entry.
    let result: AuditResult
    let summary: ReportSummary
    /// The level at or above which a finding fails the run, and whether an incomplete scan passes.
    let failOn: Severity
    let allowIncomplete: Bool
    /// In report order.
    let findings: [ReportFinding]
    /// The findings `suppress:` entries cover, in report order.
    let suppressed: [ReportFinding]
    /// The policy's budgets, measured.
    let budgets: [ReportBudget]
    /// Per container, in scan order: its owners, most backed-up bytes first.
    let owners: [[OwnerMap.Total]]
    /// SDK owners whose files are backed up or grew since the baseline: what to tell their maintainers.
    let maintainerNotes: [MaintainerNote]
    /// The app's sources (`--sources`): the folder the findings' source files are relative to.
    var sourceRoot: String? { result.context.sources?.root }
    /// The rules not checked, grouped by reason.
    let notChecked: [NotCheckedLine]
    /// The run fails: a finding at or above `failOn`, or an incomplete scan not allowed.
    let failed: Bool
    /// A finding at or above `failOn`.
    let failedByFindings: Bool

    init(_ result: AuditResult, failOn: Severity, allowIncomplete: Bool = false) {
        self.result = result
        self.summary = ReportSummary(result)
        self.failOn = failOn
        self.allowIncomplete = allowIncomplete
        let owners = result.context.owners
        let sources = result.context.sources
        let item = { (f: Finding, suppression: Suppression?) -> ReportFinding in
            let container = f.site?.container ?? f.domain.flatMap { result.domainIndex[$0] } ?? 0
            let owner = owners?.attribution(of: f)
            let source =
                sources.flatMap { s in
                    f.path.map {
                        s.candidates($0, entry: f.site?.entry, in: result.inventories[container], owner: owner)
                    }
                } ?? []
            return ReportFinding(
                finding: f, container: container, subject: result.subject(f), owner: owner, suppression: suppression,
                source: source)
        }
        self.findings = result.findings.map { item($0, nil) }
        self.suppressed = result.suppressed.map { item($0.finding, $0.suppression) }
        let id = RuleCatalogue.budgetExceededID
        let severity =
            result.policy.disabledRules.contains(id)
            ? nil : result.policy.severities[id] ?? RuleCatalogue.rule(id: id)?.description.defaultSeverity
        self.budgets = result.budgets.map { ReportBudget(result: $0, severity: severity) }
        self.owners =
            owners.map { map in result.inventories.enumerated().map { map.totals($1, container: $0) } }
            ?? result.inventories.map { _ in [] }
        self.maintainerNotes = OwnerReport.maintainerNotes(result)
        self.notChecked = result.notCheckedLines
        self.failedByFindings = result.fails(at: failOn)
        self.failed = failedByFindings || (!result.complete && !allowIncomplete)
    }

    /// The findings, most severe first; within a severity, in report order (stable).
    var findingsBySeverity: [ReportFinding] {
        findings.enumerated().sorted { a, b in
            let (sa, sb) = (a.element.finding.severity, b.element.finding.severity)
            return sa != sb ? sa > sb : a.offset < b.offset
        }.map(\.element)
    }
}

extension ScanReport {
    /// `Feed/VideoStore.swift:42`: a source line as the human reports show it, its file relative
    /// to the sources folder; `(and 2 more)` after it when other lines build the same path.
    static func writtenBy(_ lines: [SourceLocation]) -> String? {
        guard let best = lines.first else { return nil }
        return "written by \(best.file):\(best.line)" + (lines.count > 1 ? " (and \(lines.count - 1) more)" : "")
    }

    /// The absolute path of a source line's file (the sources folder made absolute from
    /// `directory`), for the formats that name a file on disk.
    func sourceFile(_ line: SourceLocation, relativeTo directory: String) -> String {
        FindingLocation.absolute((sourceRoot ?? ".") + "/" + line.file, relativeTo: directory)
    }

    /// A source line's file as a repository path: relative to `directory`, the working folder,
    /// which a CI job runs in at the repository's root (absolute when the sources lie outside it).
    func repositoryPath(_ line: SourceLocation, relativeTo directory: String) -> String {
        FindingLocation.relative(sourceFile(line, relativeTo: directory), to: directory)
    }
}
