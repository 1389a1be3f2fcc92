import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// What the reports and the command line say at their edges: hostile names in `simulate`'s
/// text, the value of the legacy attribute under the exclude attribute's name, the SARIF base
/// URI of a relative input, budget findings (no path, one JUnit case), the starter policy and
/// `config show`, output folders checked before the scan, `-` as standard output, and the exit
/// code of `--write-baseline`. Every check runs the built binary on real files.
final class OutputEdgeTests: XCTestCase {
    static let hostile = "com.evil\u{1B}[2J\u{1B}]0;pwned\u{07}\u{202E}app"

    static func assertNoRawEscapes(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.contains("\u{1B}"), "raw ESC in \(text)", file: file, line: line)
        XCTAssertFalse(text.contains("\u{07}"), "raw BEL in \(text)", file: file, line: line)
        XCTAssertFalse(text.contains("\u{202E}"), "raw bidi override in \(text)", file: file, line: line)
    }

    /// A container whose metadata names a hostile bundle id.
    func hostileContainer(_ dir: TempDir) throws -> String {
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/a.bin", size: 3000)
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["MCMMetadataIdentifier": Self.hostile], format: .binary, options: 0)
        try Fixture.bytes(root + "/" + Container.simulatorMetadata, [UInt8](plist))
        return root
    }

    func testSimulateEscapesBundleIdsDomainsAndDeviceNames() throws {
        let dir = try TempDir()
        let root = try hostileContainer(dir)
        for event in ["restore", "all"] {
            let r = try CLI.run(["simulate", event, root])
            XCTAssertEqual(r.status, 0, r.stderr)
            Self.assertNoRawEscapes(r.stdout)
            XCTAssertTrue(
                r.stdout.hasPrefix(
                    "sandbox-audit \(Audit.toolVersion): AppDomain-com.evil\\x1B[2J\\x1B]0;pwned\\x07\\u{202E}app"),
                r.stdout)
        }
        // A backup folder: the device name is in the first line too.
        var backup = BackupBuilder()
        backup.deviceName = "Evil\u{1B}[31m\u{202E}Phone"
        backup.file("AppDomain-com.example.app", "Documents/a.txt", size: 10)
        try backup.write(to: dir.sub("Backup"))
        let r = try CLI.run(["simulate", "restore", dir.sub("Backup"), "--app", "com.example.app"])
        XCTAssertEqual(r.status, 0, r.stderr)
        Self.assertNoRawEscapes(r.stdout)
        XCTAssertTrue(r.stdout.split(separator: "\n").first?.contains("Evil\\x1B[31m\\u{202E}Phone") == true, r.stdout)
    }

    /// QA1719's byte 1 written under the exclude attribute's name: Apple software writes it (for
    /// the legacy attribute), so the finding must not say that no API does.
    func testLegacyValueUnderTheExcludeNameIsNamed() throws {
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Application Support/blob", size: 10)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.legacyValue, on: root + "/Library/Application Support/blob",
            carrier: .native)
        let (json, r) = try CLI.scanJSON([root])
        XCTAssertEqual(r.status, 0, r.stderr)  // unrecognised-exclusion-value is a warning
        let finding = try XCTUnwrap(
            (json["findings"] as? [[String: Any]])?.first { $0["ruleId"] as? String == "unrecognised-exclusion-value" })
        let message = try XCTUnwrap(finding["message"] as? String)
        XCTAssertFalse(message.contains("no API"), message)
        XCTAssertTrue(message.contains("com.apple.MobileBackup") && message.contains("QA1719"), message)
        let rule = try CLI.run(["rules", "unrecognised-exclusion-value"])
        XCTAssertFalse(rule.stdout.contains("no API writes"), rule.stdout)
        XCTAssertTrue(rule.stdout.contains("qa1719"), rule.stdout)
    }

    /// An archive given by a relative path: the base URI is `file:///` and the absolute path,
    /// percent-encoded, and the report still validates against the SARIF schema.
    func testSARIFBaseURIOfARelativeArchiveIsAbsolute() throws {
        try Tool.require("tar", for: "the archive is made with tar")
        try Tool.requirePython("jsonschema", for: "the SARIF report is checked against the official schema")
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("in dir/App"))
        try Fixture.file(dir.sub("in dir/App/Documents/a.bin"), size: 10)
        try sh("tar -czf 'in dir/c ü.tgz' -C 'in dir' App", in: dir.path)
        let r = try CLI.run(["scan", "--format", "sarif", "in dir/c ü.tgz"], cwd: dir.path)
        XCTAssertEqual(r.status, 0, r.stderr)
        try Fixture.bytes(dir.sub("report.sarif"), [UInt8](r.stdoutBytes))
        _ = try python(ReportTests.validateSARIF, [ReportTests.schema, dir.sub("report.sarif")])
        let real = URL(fileURLWithPath: dir.path).resolvingSymlinksInPath().path
        let parsed = try python(
            """
            import json, sys, urllib.parse
            doc = json.load(open(sys.argv[1]))
            uri = doc["runs"][0]["originalUriBaseIds"]["DATAROOT"]["uri"]
            u = urllib.parse.urlparse(uri)
            print(u.scheme, repr(u.netloc), urllib.parse.unquote(u.path), sep="\\n")
            """, [dir.sub("report.sarif")]
        ).split(separator: "\n").map(String.init)
        XCTAssertEqual(parsed[0], "file")
        XCTAssertEqual(parsed[1], "''", "no host")
        XCTAssertTrue(
            parsed[2].hasPrefix(real + "/in dir/c ü.tgz") || parsed[2].hasPrefix(dir.path + "/in dir/c ü.tgz"),
            parsed[2])
        XCTAssertEqual(SARIFReport.fileURI("a b/./c/../d", relativeTo: "/w"), "file:///w/a%20b/d/")
    }

    /// One policy with a budget of each kind exceeded, and the rule at warning: every format
    /// gives the budget findings no path, and JUnit reports each budget once.
    func testBudgetFindingsHaveNoPathAndOneJUnitCase() throws {
        try Tool.requirePython("jsonschema", for: "the SARIF report is checked against the official schema")
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/a.bin", size: 3000)
        try Fixture.file(root + "/Library/Caches/c.bin", size: 5000)
        try Fixture.bytes(
            dir.sub("policy.yml"),
            Array(
                """
                budgets:
                  backup: 1kB
                  zones:
                    caches: {max: 1kB, measure: size}
                  paths:
                    - path: "Documents/**"
                      max: 1kB

                """.utf8))
        var outputs: [String] = []
        for f in ReportFormat.allCases { outputs += ["--output", "\(f.rawValue)=\(dir.sub("report.\(f.rawValue)"))"] }
        let r = try CLI.run(["scan", "--config", dir.sub("policy.yml"), root] + outputs)
        XCTAssertEqual(r.status, 1, r.stderr)
        func read(_ f: String) throws -> String { try String(contentsOfFile: dir.sub("report.\(f)"), encoding: .utf8) }

        let json = try JSONSerialization.jsonObject(with: Data(try read("json").utf8)) as! [String: Any]
        XCTAssertEqual(json["schemaVersion"] as? Int, 2)
        let budgetFindings = (json["findings"] as! [[String: Any]]).filter {
            $0["ruleId"] as? String == "budget-exceeded"
        }
        XCTAssertEqual(budgetFindings.count, 3)
        for f in budgetFindings { XCTAssertTrue(f["path"] is NSNull, "\(f)") }

        let text = try read("text").split(separator: "\n").filter { $0.contains("budget-exceeded") }
        XCTAssertEqual(text.count, 3)
        for line in text { XCTAssertTrue(line.hasSuffix("budget-exceeded"), "no path after the rule: \(line)") }

        let markdown = try read("markdown").split(separator: "\n").filter { $0.contains("| budget-exceeded |") }
        XCTAssertEqual(markdown.count, 3)
        for line in markdown { XCTAssertTrue(line.contains("| budget-exceeded |  |"), String(line)) }

        let github = try read("github").split(separator: "\n").filter { $0.contains("budget-exceeded") }
        XCTAssertEqual(github.count, 3)
        for line in github { XCTAssertFalse(line.contains("file="), String(line)) }

        let html = try read("html")
        XCTAssertFalse(html.contains("<code>.</code>"), "no `.` path cell")

        _ = try python(ReportTests.validateSARIF, [ReportTests.schema, dir.sub("report.sarif")])
        let sarif = try JSONSerialization.jsonObject(with: Data(try read("sarif").utf8)) as! [String: Any]
        let results = ((sarif["runs"] as! [[String: Any]])[0]["results"] as! [[String: Any]]).filter {
            $0["ruleId"] as? String == "budget-exceeded"
        }
        XCTAssertEqual(results.count, 3)
        let fingerprints = Set(
            results.map { ($0["partialFingerprints"] as? [String: String])?[SARIFReport.fingerprintKey] })
        XCTAssertEqual(fingerprints.count, 3, "one alert per budget: \(fingerprints)")

        // JUnit: each budget once, in the budgets suite; no case named `.`.
        let junit = try python(
            """
            import sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.argv[1]).getroot()
            failed = [(s.get("name"), c.get("name")) for s in root.iter("testsuite") for c in s.findall("testcase") if \
            c.find("failure") is not None]
            print(sum(1 for s, c in failed if s == "budgets"), sum(1 for s, c in failed if s == "budget-exceeded"), \
            sum(1 for s, c in failed if c == "."))
            """, [dir.sub("report.junit")]
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(junit, "3 0 0")

        // The rule at warning, below --fail-on error: the budgets are skipped cases, not failures.
        try Fixture.bytes(
            dir.sub("warn.yml"), Array("rules:\n  budget-exceeded: warning\nbudgets:\n  backup: 1kB\n".utf8))
        let warn = try CLI.run(["scan", "--config", dir.sub("warn.yml"), "--format", "junit", root])
        XCTAssertEqual(warn.status, 0, warn.stderr)
        XCTAssertTrue(
            warn.stdout.contains("<testsuite name=\"budgets\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\">"),
            warn.stdout)
    }

    /// `config init` writes no active budget: a first scan of a large container is not failed by
    /// a number nobody chose. `config show` prints a policy file that loads to the same policy.
    func testStarterHasNoActiveBudgetAndConfigShowRoundTrips() throws {
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/big.bin", size: 30_000_000)
        let initialised = try CLI.run(["config", "init"], cwd: dir.path)
        XCTAssertEqual(initialised.status, 0, initialised.stderr)
        let first = try CLI.scanJSON(["--config", dir.sub(".sandbox-audit.yml"), root])
        XCTAssertEqual(
            first.result.status, 0, "a first scan fails only on findings: \(first.result.stdout.prefix(300))")
        XCTAssertEqual((first.json["budgets"] as? [Any])?.count, 0)

        let policies = [
            dir.sub(".sandbox-audit.yml"),
            ReportTests.repo + "/sample-containers/Misbehaving.sandbox-audit.yml",
            ReportTests.repo + "/sample-containers/WellBehaved.sandbox-audit.yml",
        ]
        try Fixture.bytes(
            dir.sub("rich.yml"),
            Array(
                """
                failOn: warning
                rules:
                  redundant-exclusion: off
                  misplaced-at-root: warning
                  stale-temporary-file: {age: 12h}
                  many-backed-up-files: {count: 500}
                ignore: ["Library/WebKit/**", "Documents/[!a]*"]
                paths:
                  - {path: "tmp/**", forbidden: true}
                  - {path: "Documents/**/*.sqlite", backup: included, maxSize: 50MB}
                budgets:
                  backup: 25MB
                  churn: 5MiB
                  zones: {documents: 20MB, caches: {max: 200MB, measure: size}}
                  domains: {AppDomainGroup-group.com.example.shared: 3MB}
                  paths: [{path: "Library/Application Support/**", max: 5MB, measure: size}]
                growth: {backup: "12.5%", min: 1MB}
                appGroups: [group.com.example.shared]

                """.utf8))
        for policy in policies + [dir.sub("rich.yml")] {
            let shown = try CLI.run(["config", "show", "--config", policy])
            XCTAssertEqual(shown.status, 0, shown.stderr)
            try Fixture.bytes(dir.sub("shown.yml"), [UInt8](shown.stdoutBytes))
            let again = try CLI.run(["config", "show", "--config", dir.sub("shown.yml")])
            XCTAssertEqual(again.status, 0, "\(policy): config show's output does not load: \(again.stderr)")
            func body(_ s: String) -> String {
                s.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().joined(separator: "\n")
            }
            XCTAssertEqual(body(again.stdout), body(shown.stdout), policy)
            // And the same policy: the library's view of both files agrees.
            let a = try PolicyFile.resolve(config: policy)
            let b = try PolicyFile.resolve(config: dir.sub("shown.yml"))
            XCTAssertEqual(a.ignore.map(\.pattern), b.ignore.map(\.pattern))
            XCTAssertEqual(a.budgets.map(\.name), b.budgets.map(\.name))
            XCTAssertEqual(a.budgets.map(\.limit), b.budgets.map(\.limit))
            XCTAssertEqual(a.disabledRules, b.disabledRules)
            XCTAssertEqual(a.appGroups, b.appGroups)
            XCTAssertEqual(a.growth?.percent, b.growth?.percent)
            XCTAssertEqual(a.settings.staleTemporaryAge, b.settings.staleTemporaryAge)
            XCTAssertEqual(a.settings.manyFilesThreshold, b.settings.manyFilesThreshold)
        }
    }

    /// A missing or unwritable output folder, or a baseline that exists, stops the run before
    /// the scan: one line, exit 2, nothing written (the first output is not left behind).
    func testOutputsAreCheckedBeforeTheScan() throws {
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.bytes(dir.sub("old.json"), Array("{}".utf8))
        let cases: [([String], String)] = [
            (
                ["--output", "json=\(dir.sub("first.json"))", "--output", "sarif=\(dir.sub("missing/x.sarif"))"],
                "the folder \(dir.sub("missing")) does not exist"
            ),
            (
                ["--output", "json=\(dir.sub("first.json"))", "--write-baseline", dir.sub("missing/b.json")],
                "the folder \(dir.sub("missing")) does not exist"
            ),
            (
                ["--output", "json=\(dir.sub("first.json"))", "--write-baseline", dir.sub("old.json")],
                "old.json exists; refusing to overwrite it (--force replaces it)"
            ),
            (
                ["--output", "json=\(dir.sub("first.json"))", "--output", "html=\(dir.sub("old.json/x.html"))"],
                "is not a folder"
            ),
        ]
        for (options, expected) in cases {
            // The input does not exist either: the outputs are checked first.
            let r = try CLI.run(["scan", dir.sub("no-such-container")] + options)
            XCTAssertEqual(r.status, 2, "\(options)")
            XCTAssertTrue(r.stderr.hasPrefix("sandbox-audit: error: ") && r.stderr.contains(expected), r.stderr)
            XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, r.stderr)
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: dir.sub("first.json")), "\(options): an output was written")
        }
        XCTAssertEqual(try String(contentsOfFile: dir.sub("old.json"), encoding: .utf8), "{}")
        let initialised = try CLI.run(["config", "init", dir.sub("missing/.sandbox-audit.yml")])
        XCTAssertEqual(initialised.status, 2)
        XCTAssertTrue(initialised.stderr.contains("does not exist"), initialised.stderr)

        try Tool.require("setpriv", for: "the unwritable folder is tested as an unprivileged user")
        try Fixture.mkdirs(dir.sub("locked"))
        chmod(dir.sub("locked"), 0o555)
        let locked = try CLI.run(["scan", root, "--output", "json=\(dir.sub("locked/r.json"))"], asNobody: true)
        XCTAssertEqual(locked.status, 2, locked.stderr)
        XCTAssertTrue(locked.stderr.contains("cannot write in \(dir.sub("locked"))"), locked.stderr)
    }

    /// `-` is standard output for `--write-baseline` and `config init` too, as for `--output`.
    func testDashIsStandardOutputForBaselineAndConfigInit() throws {
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        let baseline = try CLI.run(["scan", root, "--write-baseline", "-"], cwd: dir.path)
        XCTAssertEqual(baseline.status, 0, baseline.stderr)
        let object = try JSONSerialization.jsonObject(with: baseline.stdoutBytes) as? [String: Any]
        XCTAssertEqual(object?["kind"] as? String, "sandbox-audit-baseline", "standard output is the baseline alone")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("-")))
        let both = try CLI.run(["scan", root, "--write-baseline", "-", "--output", "json=-"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("only one output can go to standard output"), both.stderr)

        let starter = try CLI.run(["config", "init", "-"], cwd: dir.path)
        XCTAssertEqual(starter.status, 0, starter.stderr)
        XCTAssertEqual(starter.stdout, PolicyFile.starter)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("-")))
    }

    /// `--write-baseline` succeeds (0) when the baseline is written, findings or not; a bad
    /// input or a failed write is 2. Without it, findings are exit 1.
    func testWriteBaselineExitCode() throws {
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Downloads/x", size: 10)  // misplaced-at-root: an error
        XCTAssertEqual(try CLI.run(["scan", root]).status, 1)
        let written = try CLI.run(["scan", root, "--write-baseline", dir.sub("b.json")])
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.sub("b.json")))
        XCTAssertEqual(
            try CLI.run(["scan", root, "--write-baseline", dir.sub("b.json")]).status, 2, "exists, no --force")
        XCTAssertEqual(try CLI.run(["scan", root, "--write-baseline", dir.sub("b.json"), "--force"]).status, 0)
        XCTAssertEqual(try CLI.run(["scan", dir.sub("nothing"), "--write-baseline", dir.sub("c.json")]).status, 2)
        let help = try CLI.run(["scan", "--help"])
        XCTAssertTrue(help.stdout.contains("0 when it was written, whatever the findings"), help.stdout)
    }
}
