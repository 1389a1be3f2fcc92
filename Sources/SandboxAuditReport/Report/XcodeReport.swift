import Foundation
import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSources
import SandboxAuditSystem

/// Where a finding is on disk, for the formats that name a file (`xcode`, `codeclimate`): the
/// audited file itself when the input is a folder (a container folder, an `.xcappdata`, a
/// Simulator device), the file holding its bytes in a backup folder (`XX/FILEID`), the archive
/// for an archive member, and the policy file for a finding about no entry (a budget, declared
/// there), else the app's data root. Always an absolute path with `.` and `..` removed.
struct FindingLocation: Equatable {
    /// The absolute path of the file (or folder) the finding points at.
    let file: String
    /// What `file` does not say by itself: the member of an archive, the path in a backup
    /// domain (`Library/x.db`); nil when `file` is the audited entry itself.
    let entry: String?

    static func of(
        _ item: ReportFinding, in result: AuditResult,
        relativeTo directory: String = FileManager.default.currentDirectoryPath
    ) -> FindingLocation {
        let f = item.finding
        let container = result.inventories[item.container].container
        guard let path = f.path else {
            let file = result.policy.source ?? result.inventories.first?.container.dataRoot ?? container.dataRoot
            return FindingLocation(file: absolute(file, relativeTo: directory), entry: nil)
        }
        return of(path, in: container, relativeTo: directory)
    }

    static func of(
        _ path: ContainerPath, in container: Container,
        relativeTo directory: String = FileManager.default.currentDirectoryPath
    ) -> FindingLocation {
        if let backup = container.backup {
            // The file holding its bytes, where the backup holds it; else the Manifest.db that lists it.
            let stored = backup.lacksBytes(path) ? nil : backup.storedFile(path)
            return FindingLocation(
                file: absolute(stored ?? backup.folder.path + "/Manifest.db", relativeTo: directory),
                entry: "\(container.domain)/\(path.display)")
        }
        // An archive read from standard input is no file: the lines point at the working folder,
        // the member named in the message.
        if container.root == nil, container.input == Container.standardInputLocation {
            return FindingLocation(
                file: absolute(".", relativeTo: directory),
                entry: "standard input: " + (path.isRoot ? "." : path.display))
        }
        // An archive's container holds no descriptor of a folder (`Container.root`): its
        // entries are members of the archive file.
        if container.root == nil {
            // A container below a folder of the archive has the data root `ARCHIVE!/PREFIX`.
            let prefix =
                container.dataRoot.hasPrefix(container.input + "!/")
                ? String(container.dataRoot.dropFirst(container.input.count + 2)) + "/" : ""
            return FindingLocation(
                file: absolute(container.input, relativeTo: directory),
                entry: prefix + (path.isRoot ? "" : path.display))
        }
        let root = absolute(container.dataRoot, relativeTo: directory)
        return FindingLocation(file: path.isRoot ? root : root + "/" + path.display, entry: nil)
    }

    /// `path` made absolute from `directory`, `.` and `..` segments removed (RFC 3986 §5.2.4's
    /// rule, as `SARIFReport.fileURI` does), no trailing slash.
    static func absolute(_ path: String, relativeTo directory: String) -> String {
        var segments: [Substring] = []
        let full = path.hasPrefix("/") ? path : directory + "/" + path
        for segment in full.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        return segments.isEmpty ? "/" : segments.map { "/" + $0 }.joined()
    }

    /// `file` relative to `directory` when it lies inside it (as a repository path: no `./`),
    /// else `file` itself.
    static func relative(_ file: String, to directory: String) -> String {
        let base = absolute(directory, relativeTo: "/")
        if file == base { return "." }
        let prefix = base == "/" ? "/" : base + "/"
        return file.hasPrefix(prefix) ? String(file.dropFirst(prefix.count)) : file
    }
}

/// Xcode's issue format, one line per finding: `PATH:LINE: error|warning|note: MESSAGE`, as a
/// Run Script build phase writes it for the issue navigator (Apple, "Write a build phase
/// script", https://help.apple.com/xcode/mac/10.0/en.lproj/devba4d69b42.html, "Log errors and
/// warnings"), and as SwiftLint's `xcode` reporter (realm/SwiftLint,
/// Source/SwiftLintCore/Reporters/XcodeReporter.swift) and Periphery's `xcode` format
/// (peripheryapp/periphery, Sources/Frontend/Formatters/XcodeFormatter.swift) print theirs.
/// No line of a container file is meaningful, so LINE is 1.
enum XcodeReport {
    /// What an incomplete scan's first line says after its severity (ReportFormat's marker):
    /// the banner every report shows, `INCOMPLETE SCAN: N items could not be read; …`.
    static let incompleteTitle = "INCOMPLETE SCAN:"

    static func render(_ report: ScanReport, relativeTo directory: String = FileManager.default.currentDirectoryPath)
        -> String
    {
        let (result, allowIncomplete) = (report.result, report.allowIncomplete)
        var lines: [String] = []
        let top = FindingLocation.absolute(
            result.policy.source ?? result.inventories.first?.container.dataRoot ?? ".", relativeTo: directory)
        let dataRoot =
            result.inventories.first.map { FindingLocation.absolute($0.container.input, relativeTo: directory) } ?? top
        if !result.complete {
            let shown = result.missed.prefix(5).map(result.place)
            let more = result.missed.count > shown.count ? "; … \(result.missed.count - shown.count) more" : ""
            lines.append(
                line(
                    dataRoot, allowIncomplete ? "warning" : "error",
                    result.incompleteSummary + ": " + shown.joined(separator: "; ") + more))
        }
        for item in report.findingsBySeverity {
            let f = item.finding
            let at = FindingLocation.of(item, in: result, relativeTo: directory)
            var message = f.message
            if let entry = at.entry { message = entry + ": " + message }
            if let owner = item.owner { message += " — " + OwnerReport.line(owner) }
            // At the line of the app that builds the path, when the sources name one; the
            // container's file is then in the message.
            if let source = item.source.first {
                let place = at.entry ?? FindingLocation.relative(at.file, to: directory)
                lines.append(
                    line(
                        report.sourceFile(source, relativeTo: directory), f.severity.rawValue,
                        place + ": " + f.message + " [\(f.ruleId)]", at: source))
                continue
            }
            lines.append(line(at.file, f.severity.rawValue, message + " [\(f.ruleId)]"))
        }
        if let summary = notCheckedSummary(report) { lines.append(line(dataRoot, "note", summary)) }
        return lines.map { $0 + "\n" }.joined()
    }

    /// The one line the formats shown where developers work (`xcode`, `codeclimate`) give the
    /// rules not checked, which stay the same at every build (a Simulator never shows data
    /// protection): how many, and where each is listed with its reason. Nil when every rule ran.
    static func notCheckedSummary(_ report: ScanReport) -> String? {
        let rules = Set(report.notChecked.flatMap(\.rules))
        guard !rules.isEmpty else { return nil }
        return
            "not checked (sandbox-audit): \(rules.count) \(rules.count == 1 ? "rule" : "rules") could not run on "
            + "this input; "
            + "the text, JSON, SARIF, JUnit and HTML reports list each with its reason"
    }

    /// Why these formats leave the list of rules not checked out (`ReportFormat.leavesOut`).
    static let notCheckedLeftOut =
        "one line counts the rules not checked, the same at every build; the other reports list each with its reason"

    /// One issue line. Xcode reads one issue a line: line breaks and other control characters
    /// in a path or message are written as visible escapes (`\n`). Xcode takes the path up to
    /// the first `:LINE:`, so a path with a colon (a name such as `a:1: error: b`, which would
    /// make another file and severity) points at the deepest folder above it without one, and
    /// the rest of the path begins the message.
    /// At a source line (`--sources`): `FILE:LINE:COLUMN:`, where Xcode opens the code.
    static func line(_ file: String, _ severity: String, _ message: String, at source: SourceLocation? = nil) -> String
    {
        let position = source.map { "\($0.line):\($0.column)" } ?? "1"
        guard let colon = file.firstIndex(of: ":") else {
            return "\(oneLine(file)):\(position): \(severity): \(oneLine(message))"
        }
        let slash = file[..<colon].lastIndex(of: "/")
        let folder = slash.map { $0 == file.startIndex ? "/" : String(file[..<$0]) } ?? "."
        let rest = slash.map { String(file[file.index(after: $0)...]) } ?? file
        return "\(oneLine(folder)):1: \(severity): \(oneLine(rest + ": " + message))"
    }

    static func oneLine(_ s: String) -> String { TerminalText.escaped(s) }
}
