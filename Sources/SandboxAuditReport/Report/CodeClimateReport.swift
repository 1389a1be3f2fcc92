import Foundation
import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// GitLab Code Quality: a JSON array of issues in the subset of the Code Climate issue format
/// GitLab reads (GitLab Docs, "Code Quality", "Code Quality report format",
/// https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format): `description`,
/// `check_name`, `fingerprint`, `severity` and `location.path` with `location.lines.begin`.
/// Periphery's `codeclimate` format (peripheryapp/periphery,
/// Sources/Frontend/Formatters/CodeClimateFormatter.swift) is the same shape.
enum CodeClimateReport {
    /// The check name of the issue an incomplete scan adds (ReportFormat's marker names it).
    static let incompleteCheck = "sandbox-audit/incomplete-scan"
    static let notCheckedCheck = "sandbox-audit/not-checked"

    /// GitLab's severities are info, minor, major, critical and blocker.
    static func severity(_ s: Severity) -> String {
        switch s {
        case .error: return "critical"
        case .warning: return "major"
        case .note: return "info"
        }
    }

    static func render(_ report: ScanReport, relativeTo directory: String = FileManager.default.currentDirectoryPath)
        -> JSON
    {
        let (result, allowIncomplete) = (report.result, report.allowIncomplete)
        var issues: [JSON] = []
        let first =
            result.inventories.first.map { FindingLocation.absolute($0.container.input, relativeTo: directory) }
            ?? directory
        if !result.complete {
            let shown = result.missed.prefix(5).map(result.place)
            let more = result.missed.count > shown.count ? "; … \(result.missed.count - shown.count) more" : ""
            issues.append(
                issue(
                    description: result.incompleteSummary + ": " + shown.joined(separator: "; ") + more,
                    check: incompleteCheck,
                    fingerprint: StableHash.hex(
                        Array(
                            (incompleteCheck + "\u{0}" + result.missed.map(result.place).joined(separator: "\u{0}"))
                                .utf8)),
                    severity: allowIncomplete ? "major" : "blocker",
                    path: FindingLocation.relative(first, to: directory)))
        }
        for item in report.findingsBySeverity {
            let f = item.finding
            let at = FindingLocation.of(item, in: result, relativeTo: directory)
            var description = f.message
            if let entry = at.entry { description = entry + ": " + description }
            if let owner = item.owner { description += " — " + OwnerReport.line(owner) }
            // GitLab places an issue on a repository file: the app's line that builds the path,
            // when the sources name one (the container's path is in the description).
            var path = FindingLocation.relative(at.file, to: directory)
            if let source = item.source.first {
                if at.entry == nil { description = path + ": " + description }
                path = report.repositoryPath(source, relativeTo: directory)
            }
            issues.append(
                issue(
                    description: description, check: f.ruleId, fingerprint: SARIFReport.fingerprint(f),
                    severity: severity(f.severity), path: path, line: item.source.first?.line ?? 1))
        }
        if let summary = XcodeReport.notCheckedSummary(report) {
            issues.append(
                issue(
                    description: summary, check: notCheckedCheck,
                    fingerprint: StableHash.hex(Array((notCheckedCheck + "\u{0}" + summary).utf8)),
                    severity: "info", path: FindingLocation.relative(first, to: directory)))
        }
        return .array(issues)
    }

    static func issue(
        description: String, check: String, fingerprint: String, severity: String, path: String, line: Int = 1
    ) -> JSON {
        .object([
            ("description", .string(TerminalText.escaped(description))),
            ("check_name", .string(check)),
            ("fingerprint", .string(fingerprint)),
            ("severity", .string(severity)),
            (
                "location",
                .object([
                    ("path", .string(TerminalText.escaped(path))),
                    ("lines", .object([("begin", .int(Int64(line)))])),
                ])
            ),
        ])
    }
}
