import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The formats other tools read: Xcode's issue lines (`xcode`), GitLab Code Quality
/// (`codeclimate`), and input errors as GitHub workflow commands under `--format github`; each
/// through the built binary.
final class ToolFormatTests: XCTestCase {
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/gitlab-code-quality.schema.json"
    ).path
    /// `PATH:LINE: error|warning|note: MESSAGE`, the form Xcode's issue parser reads.
    static let xcodeLine = try! NSRegularExpression(pattern: #"^(/[^\n]*?):(\d+): (error|warning|note): (.+)$"#)

    struct XcodeIssue { let path: String, line: Int, severity: String, message: String }

    static func xcodeIssues(_ output: String, file: StaticString = #filePath, line: UInt = #line) -> [XcodeIssue] {
        output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { l in
            let s = String(l)
            guard let m = xcodeLine.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) else {
                XCTFail("not an Xcode issue line: \(s)", file: file, line: line)
                return nil
            }
            func g(_ i: Int) -> String { String(s[Range(m.range(at: i), in: s)!]) }
            return XcodeIssue(path: g(1), line: Int(g(2))!, severity: g(3), message: g(4))
        }
    }

    /// A container with an error, a warning and a note-level finding, given by a relative path:
    /// one line per finding, each naming the audited file by its absolute path (which exists),
    /// line 1, the finding's severity and its message and rule; the rules not checked are notes
    /// on the data root; exit 1 as for every format.
    func testXcodeLinesNameTheAuditedFilesAbsolutely() throws {
        let dir = try TempDir("xcode")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/stray", size: 10)  // misplaced-at-root: error
        try Fixture.file(root + "/Documents/movie.part", size: 10)  // a partial download: warning
        try Fixture.file(root + "/Library/Application Support/big.db", size: 3000)
        let json = try CLI.run(["scan", "App", "--format", "json", "--support-data-size", "1kB"], cwd: dir.path)
        let findings = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: json.stdoutBytes) as? [String: Any])?["findings"]
                as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(findings.count, 3)
        let r = try CLI.run(["scan", "App", "--format", "xcode", "--support-data-size", "1kB"], cwd: dir.path)
        XCTAssertEqual(r.status, json.status, r.stderr)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "")
        let issues = Self.xcodeIssues(r.stdout)
        let notes = issues.filter { $0.message.hasPrefix("not checked (sandbox-audit): ") }
        let found = issues.filter { !$0.message.hasPrefix("not checked (sandbox-audit): ") }
        XCTAssertEqual(found.count, findings.count, r.stdout)
        XCTAssertEqual(notes.count, 1, "the rules not checked are one note")
        for n in notes {
            XCTAssertEqual(n.path, root)
            XCTAssertEqual(n.severity, "note")
        }
        // Most severe first, as the other formats list them; each one's path and severity.
        let ordered = findings.sorted {
            Severity(rawValue: $0["severity"] as! String)! > Severity(rawValue: $1["severity"] as! String)!
        }
        for (issue, f) in zip(found, ordered) {
            XCTAssertEqual(issue.line, 1)
            XCTAssertEqual(issue.severity, f["severity"] as? String)
            XCTAssertEqual(issue.path, root + "/" + (f["path"] as! String), issue.message)
            XCTAssertTrue(FileManager.default.fileExists(atPath: issue.path), issue.path)
            XCTAssertTrue(issue.message.hasSuffix("[\(f["ruleId"] as! String)]"), issue.message)
            XCTAssertTrue(issue.message.hasPrefix(f["message"] as! String), issue.message)
        }
        XCTAssertEqual(Set(found.map(\.severity)), ["error", "warning"], "error and warning, as the findings are")
    }

    /// A budget's finding (about no entry) names the policy file that declares the budget; an
    /// archive's findings name the archive, the member first in the message; a backup's name
    /// the file holding the entry's bytes in the backup folder (XX/FILEID), the domain and path
    /// first in the message.
    func testXcodeLinesOfABudgetAnArchiveAndABackup() throws {
        let dir = try TempDir("xcode")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/a.bin", size: 3000)
        try Fixture.file(root + "/Documents/movie.part", size: 10)
        try Fixture.bytes(dir.sub("policy.yml"), Array("budgets:\n  backup: 1kB\n".utf8))
        let budget = Self.xcodeIssues(
            try CLI.run(["scan", "App", "--config", "policy.yml", "--format", "xcode"], cwd: dir.path).stdout)
        let over = try XCTUnwrap(budget.first { $0.message.hasSuffix("[budget-exceeded]") })
        XCTAssertEqual(over.path, dir.sub("policy.yml"))
        XCTAssertTrue(over.message.hasPrefix("backup footprint: "), over.message)

        try sh("tar -C App -czf app.tgz .", in: dir.path)
        let archive = Self.xcodeIssues(try CLI.run(["scan", "app.tgz", "--format", "xcode"], cwd: dir.path).stdout)
        let part = try XCTUnwrap(
            archive.first { $0.message.hasSuffix("[recreatable-in-documents]") }, "\(archive.map(\.message))")
        XCTAssertEqual(part.path, dir.sub("app.tgz"))
        XCTAssertTrue(part.message.hasPrefix("Documents/movie.part: "), part.message)

        typealias T = BackupFolderTests
        var b = BackupBuilder()
        b.file(T.appDomain, "Documents/movie.part", size: 10)
        try b.write(to: dir.sub("B"))
        let backup = Self.xcodeIssues(
            try CLI.run(["scan", "B", "--app", T.app, "--format", "xcode"], cwd: dir.path).stdout)
        let stored = try XCTUnwrap(
            backup.first { $0.message.hasSuffix("[recreatable-in-documents]") }, "\(backup.map(\.message))")
        let id = BackupBuilder.fileID(T.appDomain, "Documents/movie.part")
        XCTAssertEqual(stored.path, dir.sub("B/\(id.prefix(2))/\(id)"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: stored.path))
        XCTAssertTrue(stored.message.hasPrefix("\(T.appDomain)/Documents/movie.part: "), stored.message)
    }

    /// A line break in a file name cannot split an issue: every finding stays one line.
    func testXcodeLinesStayOneLinePerFinding() throws {
        let dir = try TempDir("xcode")
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Documents/line\nbreak.part"), size: 10)
        let r = try CLI.run(["scan", dir.path, "--format", "xcode"])
        let issues = Self.xcodeIssues(r.stdout)
        let part = try XCTUnwrap(issues.first { $0.message.hasSuffix("[recreatable-in-documents]") })
        XCTAssertEqual(part.path, dir.sub("Documents/line\\x0Abreak.part"))
    }

    /// The Code Quality report has the shape GitLab documents (checked by check-jsonschema
    /// against Fixtures/gitlab-code-quality.schema.json, and field by field here): one issue per
    /// finding, paths relative to the working directory (the repository) without `./`,
    /// fingerprints that differ between findings and stay the same when the container moves and
    /// a message changes.
    func testCodeClimateHasGitLabsShape() throws {
        let dir = try TempDir("codeclimate")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/stray", size: 10)
        try Fixture.file(root + "/Documents/movie.part", size: 10)
        try Fixture.file(root + "/Documents/other.part", size: 10)
        try Fixture.bytes(dir.sub("policy.yml"), Array("budgets:\n  backup: 1kB\n".utf8))
        func run(_ container: String) throws -> (issues: [[String: Any]], text: String, findings: [[String: Any]]) {
            let r = try CLI.run(
                ["scan", container, "--config", "policy.yml", "--format", "codeclimate"], cwd: dir.path)
            XCTAssertEqual(r.status, 1, r.stderr)
            let j = try CLI.run(["scan", container, "--config", "policy.yml", "--format", "json"], cwd: dir.path)
            let findings = try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: j.stdoutBytes) as? [String: Any])?["findings"]
                    as? [[String: Any]])
            return (
                try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [[String: Any]]), r.stdout,
                findings
            )
        }
        let first = try run("App")
        let issues = first.issues.filter { $0["check_name"] as? String != CodeClimateReport.notCheckedCheck }
        XCTAssertEqual(issues.count, first.findings.count)
        let severities: [String: String] = ["error": "critical", "warning": "major", "note": "info"]
        for issue in first.issues {
            XCTAssertFalse((issue["description"] as? String ?? "").isEmpty, "\(issue)")
            XCTAssertFalse((issue["check_name"] as? String ?? "").isEmpty, "\(issue)")
            XCTAssertEqual((issue["fingerprint"] as? String)?.count, 32, "\(issue)")
            XCTAssertTrue(
                ["info", "minor", "major", "critical", "blocker"].contains(issue["severity"] as? String ?? ""),
                "\(issue)")
            let location = try XCTUnwrap(issue["location"] as? [String: Any])
            let path = try XCTUnwrap(location["path"] as? String)
            XCTAssertFalse(path.hasPrefix("./") || path.hasPrefix("/"), path)
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.sub(path)), path)
            XCTAssertEqual((location["lines"] as? [String: Any])?["begin"] as? Int, 1)
        }
        for (issue, f) in zip(
            issues,
            first.findings.sorted {
                Severity(rawValue: $0["severity"] as! String)! > Severity(rawValue: $1["severity"] as! String)!
            })
        {
            XCTAssertEqual(issue["check_name"] as? String, f["ruleId"] as? String)
            XCTAssertEqual(issue["severity"] as? String, severities[f["severity"] as! String])
            let path = (issue["location"] as! [String: Any])["path"] as! String
            XCTAssertEqual(path, (f["path"] as? String).map { "App/" + $0 } ?? "policy.yml")
        }
        let prints = first.issues.map { $0["fingerprint"] as! String }
        XCTAssertEqual(
            Set(prints).count, prints.count, "one fingerprint per issue: GitLab shows one issue per fingerprint")

        // Moved, with a message that changes (the file's size): the same fingerprints.
        try FileManager.default.moveItem(atPath: root, toPath: dir.sub("Moved"))
        try Fixture.file(dir.sub("Moved/Documents/movie.part"), size: 99)
        XCTAssertEqual(try run("Moved").issues.map { $0["fingerprint"] as! String }, prints)

        let checker = try Tool.path(
            "check-jsonschema", for: "the report's shape was checked field by field only, not against GitLab's schema")
        try first.text.write(toFile: dir.sub("gl-code-quality-report.json"), atomically: true, encoding: .utf8)
        let check = try CLI.run(["--schemafile", Self.schema, dir.sub("gl-code-quality-report.json")], via: checker)
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        // The schema refuses what GitLab's documented shape does not allow.
        try
            ("[{\"description\": \"x\", \"check_name\": \"y\", \"fingerprint\": \"z\", \"severity\": \"error\", "
            + "\"location\": {\"path\": \"./a\", \"lines\": {\"begin\": 0}}}]")
            .write(toFile: dir.sub("bad.json"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["--schemafile", Self.schema, dir.sub("bad.json")], via: checker).status, 1)
    }

    /// Under `--format github` (or `--output github=-`), an input or usage error is also an
    /// `::error` workflow command on standard output, so the checks UI says why; the stderr line
    /// and exit 2 are as for every format. Other formats print nothing on standard output.
    func testInputErrorsAreWorkflowCommandsUnderGitHub() throws {
        let dir = try TempDir("gh-error")
        let missing = dir.sub("no such, folder")
        for args in [
            ["scan", missing, "--format", "github"], ["scan", "--format=github", missing],
            ["scan", missing, "--output", "github=-"],
        ] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.hasPrefix("sandbox-audit: error: "), r.stderr)
            let message = String(r.stderr.dropFirst("sandbox-audit: error: ".count).dropLast())
            XCTAssertEqual(
                r.stdout, "::error title=sandbox-audit%3A input error::" + GitHubReport.data(message) + "\n", "\(args)")
        }
        // A usage error found while parsing, with a % in the value that must be escaped.
        let usage = try CLI.run(["scan", dir.path, "--format", "github", "--fail-on", "100%"])
        XCTAssertEqual(usage.status, 2)
        XCTAssertTrue(usage.stdout.hasPrefix("::error title=sandbox-audit%3A input error::"), usage.stdout)
        XCTAssertEqual(usage.stdout.split(separator: "\n").count, 1, usage.stdout)
        XCTAssertTrue(usage.stdout.contains("'100%25'"), usage.stdout)
        for args in [
            ["scan", missing], ["scan", missing, "--format", "json"], ["scan", missing, "--", "--format", "github"],
        ] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
    }

    /// Quiet where developers look: a clean app gives one xcode line (how many rules could not
    /// run, and where they are listed) and one codeclimate issue, at every build alike.
    func testACleanAppIsOneLine() throws {
        let app = PluginTests.repository + "/sample-containers/WellBehaved"
        let xcode = try CLI.run(["scan", app, "--format", "xcode"])
        XCTAssertEqual(xcode.status, 0, xcode.stderr)
        let lines = xcode.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, xcode.stdout)
        XCTAssertTrue(lines.first?.hasPrefix(app + ":1: note: not checked (sandbox-audit): ") == true, xcode.stdout)
        XCTAssertTrue(
            lines.first?.contains(
                " rules could not run on this input; the text, JSON, SARIF, JUnit and HTML reports list each with "
                    + "its reason"
            ) == true, xcode.stdout)
        let quality = try CLI.run(["scan", app, "--format", "codeclimate"])
        XCTAssertEqual(quality.status, 0, quality.stderr)
        let issues = try XCTUnwrap(try JSONSerialization.jsonObject(with: quality.stdoutBytes) as? [[String: Any]])
        XCTAssertEqual(issues.map { $0["check_name"] as? String }, ["sandbox-audit/not-checked"])
        XCTAssertEqual(issues.first?["severity"] as? String, "info")
    }
}
