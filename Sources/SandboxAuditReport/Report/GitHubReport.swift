import Foundation
import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// GitHub Actions workflow commands: one annotation per finding, most severe first. GitHub shows
/// at most 10 errors, 10 warnings and 10 notices per step, so the rest of each kind is summed up
/// in one notice. The rules not checked are one notice.
enum GitHubReport {
    static let perKind = 10

    /// `pathPrefix` gives, for a container's data root, what is prepended to its paths so
    /// annotations point at files in the repository when the container lies inside it.
    static func render(
        _ report: ScanReport, pathPrefix: (String) -> String,
        relativeTo directory: String = FileManager.default.currentDirectoryPath
    ) -> String {
        let (result, allowIncomplete) = (report.result, report.allowIncomplete)
        var lines: [String] = []
        // First, so GitHub's per-step limit never hides it.
        if !result.complete {
            let shown = result.missed.prefix(5).map(result.place)
            let more = result.missed.count > shown.count ? "; … \(result.missed.count - shown.count) more" : ""
            lines.append(
                "::\(allowIncomplete ? "warning" : "error") "
                    + "title=\(property("incomplete scan (sandbox-audit)"))::"
                    + "\(data(result.incompleteSummary + ": " + shown.joined(separator: "; ") + more))"
            )
        }
        // What was not checked, one notice (it shares the notices' 10 with the findings).
        let notChecked = report.notChecked
        if !notChecked.isEmpty {
            let text =
                "Not checked (what this scan could not "
                + "observe):\n" + notChecked.map(\.text).joined(separator: "\n")
            lines.append("::notice title=\(property("not checked (sandbox-audit)"))::\(data(text))")
        }
        var left: [String] = []
        let ordered = report.findings.enumerated().sorted { a, b in
            let (fa, fb) = (a.element.finding, b.element.finding)
            if fa.severity != fb.severity { return fa.severity > fb.severity }
            if (fa.size ?? 0) != (fb.size ?? 0) { return (fa.size ?? 0) > (fb.size ?? 0) }
            return a.offset < b.offset
        }.map(\.element)
        for severity in [Severity.error, .warning, .note] {
            let group = ordered.filter { $0.finding.severity == severity }
            let command = severity == .note ? "notice" : severity.rawValue
            // Notices share their 10 with the summary notice; errors (warnings when accepted)
            // with the incomplete-scan annotation.
            let shared = !result.complete && severity == (allowIncomplete ? .warning : .error)
            let room =
                (severity == .note || shared ? perKind - 1 : perKind)
                - (severity == .note && !notChecked.isEmpty ? 1 : 0)
            for item in group.prefix(room) {
                let f = item.finding
                // A finding about no entry (a budget) is annotated on no file.
                let prefix = pathPrefix(result.inventories[item.container].container.dataRoot)
                var file = f.path.map { "file=" + property($0.isRoot ? prefix : prefix + "/" + $0.display) + "," } ?? ""
                var message = f.message
                // On the app's line that builds the path, when the sources name one: annotated
                // on the pull request's diff, the container's path in the message.
                if let source = item.source.first {
                    let path = report.repositoryPath(source, relativeTo: directory)
                    file = "file=\(property(path)),line=\(source.line),col=\(source.column),"
                    message = (item.subject ?? "") + ": " + message
                }
                // The owner on a line of its own: who wrote it, its source, what to do.
                let owner = item.owner.map { "\n" + OwnerReport.line($0) } ?? ""
                lines.append(
                    "::\(command) \(file)title=\(property("\(f.ruleId) (sandbox-audit)"))::\(data(message + owner))")
            }
            if group.count > room {
                left.append("\(group.count - room) more \(severity.rawValue)\(group.count - room == 1 ? "" : "s")")
            }
        }
        if !left.isEmpty {
            let text =
                "Not annotated (GitHub shows 10 of each per step): " + left.joined(separator: ", ")
                + ". See the job summary or the full report."
            lines.append("::notice title=sandbox-audit::\(data(text))")
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Workflow-command escaping: data escapes %, CR and LF; properties also `:` and `,`. Other
    /// control characters and bidi overrides (from file names) first become visible escapes
    /// (`TerminalText`): the log shows annotations raw, and an ESC would reach the reader's terminal.
    static func data(_ s: String) -> String {
        TerminalText.escapedKeepingLines(s).replacingOccurrences(of: "%", with: "%25").replacingOccurrences(
            of: "\n", with: "%0A")
    }

    static func property(_ s: String) -> String {
        data(s).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }
}
