import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// What every report states about the scan as a whole, decided once from the audit result so
/// that each format only lays it out: who the container belongs to, how many findings of each
/// severity, what was found but not reported, and which rules ran.
struct ReportSummary: Sendable, Equatable {
    /// The app's bundle identifier, when the container names it.
    let bundleIdentifier: String?
    /// The app's version, when the container names it.
    let version: String?
    /// The backup folder the container was read from, as one line (nil for a folder or an archive).
    let backup: String?
    let errors: Int
    let warnings: Int
    let notes: Int
    /// Findings on paths the policy ignores.
    let ignoredFindings: Int
    /// Findings the baseline already holds.
    let baselineFindings: Int
    /// Findings a `suppress:` entry of the policy file covers.
    let suppressedFindings: Int
    /// The ids of the rules that ran: the catalogue without the rules the policy turns off, in
    /// catalogue order.
    let rulesRun: [String]

    /// The bundle identifier and version ("unidentified app" without one): `com.example.app 2.3 (41)`.
    var identity: String {
        (bundleIdentifier ?? "unidentified app") + (version.map { " \($0)" } ?? "")
    }

    /// The app's name as a heading: the bundle identifier, or "Unidentified app".
    var heading: String { bundleIdentifier ?? "Unidentified app" }

    /// `2 error(s), 1 warning(s), 0 note(s)`.
    var counts: String { "\(errors) error(s), \(warnings) warning(s), \(notes) note(s)" }

    /// The findings left out, each as a phrase (`3 already in the baseline`, `1 on ignored
    /// paths`); empty when every finding is reported.
    var notReported: [String] {
        var parts: [String] = []
        if baselineFindings > 0 { parts.append("\(baselineFindings) already in the baseline") }
        if ignoredFindings > 0 { parts.append("\(ignoredFindings) on ignored paths") }
        if suppressedFindings > 0 { parts.append("\(suppressedFindings) suppressed by the policy file") }
        return parts
    }

    init(_ result: AuditResult) {
        let c = result.inventory.container
        bundleIdentifier = c.bundleIdentifier
        version = c.version
        backup = c.backup?.folder.identity.summary
        var counted = [Severity.error: 0, .warning: 0, .note: 0]
        for i in result.findings.indices { counted[result.findings[i].severity, default: 0] += 1 }
        errors = counted[.error] ?? 0
        warnings = counted[.warning] ?? 0
        notes = counted[.note] ?? 0
        ignoredFindings = result.ignoredFindings
        baselineFindings = result.baselineFindings
        suppressedFindings = result.suppressed.count
        let disabled = result.policy.disabledRules
        rulesRun = RuleCatalogue.all.map(\.id).filter { !disabled.contains($0) }
    }
}
