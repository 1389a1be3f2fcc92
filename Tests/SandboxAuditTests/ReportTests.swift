import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Every report format, for every sample and for hostile names, checked by real readers: the
/// official SARIF schema (python jsonschema), Python's XML parser for JUnit, headless Chromium
/// for the HTML report.
final class ReportTests: XCTestCase {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures/sarif-schema-2.1.0.json"
    ).path

    static let validateSARIF = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        doc = json.load(open(sys.argv[2]))
        jsonschema.validators.validator_for(schema)(schema).validate(doc)
        run = doc["runs"][0]
        print(len(run["results"]), len(run["tool"]["driver"]["rules"]))
        """

    static let readJUnit = """
        import sys, xml.etree.ElementTree as ET
        root = ET.parse(sys.argv[1]).getroot()
        tests = failures = 0
        for suite in root.iter("testsuite"):
            cases = suite.findall("testcase")
            failed = [c for c in cases if c.find("failure") is not None]
            assert int(suite.get("tests")) == len(cases), suite.get("name")
            assert int(suite.get("failures")) == len(failed), suite.get("name")
            tests += len(cases); failures += len(failed)
        assert int(root.get("tests")) == tests and int(root.get("failures")) == failures
        print(tests, failures, len(list(root.iter("testsuite"))))
        """

    /// Writes every format from one scan, which exits with `exit`; returns the JSON report.
    func allFormats(_ args: [String], exit: Int32, into dir: TempDir) throws -> [String: Any] {
        var outputs: [String] = []
        for f in ReportFormat.allCases where f != .json {
            outputs += ["--output", "\(f.rawValue)=\(dir.sub("report.\(f.rawValue)"))"]
        }
        let r = try CLI.run(["scan", "--format", "json"] + outputs + args)
        XCTAssertEqual(r.status, exit, "\(args): \(r.stderr)")
        XCTAssertEqual(r.stderr, "")
        guard let json = try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any] else {
            throw CommandFailed(
                command: "scan --format json", status: r.status, stderr: "printed no JSON object: " + r.stderr)
        }
        return json
    }

    /// Each sample, its arguments, and its exit code: 1 where a finding reaches --fail-on.
    func samples() -> [(String, [String], exit: Int32)] {
        let s = Self.repo + "/sample-containers/"
        return [
            ("WellBehaved", [s + "WellBehaved", "--config", s + "WellBehaved.sandbox-audit.yml"], 0),
            (
                "Misbehaving",
                [s + "Misbehaving", "--config", s + "Misbehaving.sandbox-audit.yml", "--stale-tmp-age", "36500d"], 1
            ),
            ("Example.xcappdata", [s + "Example.xcappdata", "--stale-tmp-age", "36500d", "--fail-on", "warning"], 1),
        ]
    }

    func testEveryFormatForEverySample() throws {
        try Tool.requirePython("jsonschema", for: "the SARIF report is checked against the official schema")
        for (name, args, exit) in samples() {
            let dir = try TempDir("reports")
            let json = try allFormats(args, exit: exit, into: dir)
            let findings = json["findings"] as! [[String: Any]]
            let summary = json["summary"] as! [String: Any]
            let failOn = (json["settings"] as! [String: Any])["failOn"] as! String
            let budgets = json["budgets"] as! [[String: Any]]

            // SARIF: valid, one result per finding, rule metadata for every rule that ran.
            let sarif = try python(Self.validateSARIF, [Self.schema, dir.sub("report.sarif")]).split(separator: " ")
                .compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            XCTAssertEqual(sarif, [findings.count, RuleCatalogue.all.count], name)

            // JUnit: counts as a JUnit reader sees them.
            let junit = try python(Self.readJUnit, [dir.sub("report.junit")]).split(separator: " ").compactMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            let level = Severity(rawValue: failOn)!
            // An exceeded budget is one case, in the budgets suite, not a second in a budget-exceeded suite.
            let failing = findings.filter {
                Severity(rawValue: $0["severity"] as! String)! >= level && $0["ruleId"] as? String != "budget-exceeded"
            }.count
            let exceeded = budgets.filter { $0["exceeded"] as! Bool }.count
            XCTAssertEqual(junit.count, 3, name)
            let incomplete = json["complete"] as! Bool ? 0 : 1
            XCTAssertEqual(
                junit[1], failing + exceeded + incomplete,
                "\(name): JUnit failures (the scan's completeness among them)")
            XCTAssertEqual(
                junit[2], 1 + RuleCatalogue.all.count,
                "\(name): completeness, a suite per rule, budgets in place of budget-exceeded's")

            // GitHub: at most 10 of each kind, one command per line.
            let gh = try String(contentsOfFile: dir.sub("report.github"), encoding: .utf8).split(separator: "\n")
            for kind in ["error", "warning", "notice"] {
                XCTAssertLessThanOrEqual(gh.filter { $0.hasPrefix("::\(kind) ") }.count, 10, "\(name) \(kind)")
            }
            XCTAssertTrue(
                gh.allSatisfy { $0.hasPrefix("::error ") || $0.hasPrefix("::warning ") || $0.hasPrefix("::notice ") })
            XCTAssertEqual(gh.filter { $0.contains("title=incomplete scan (sandbox-audit)::") }.count, incomplete, name)
            // The rules not checked: one notice, always (no sample is scanned with a baseline).
            let notChecked = gh.filter { $0.hasPrefix("::notice title=not checked (sandbox-audit)::") }.count
            XCTAssertEqual(notChecked, 1, name)
            let annotations = gh.filter {
                !$0.contains("title=sandbox-audit::") && !$0.contains("title=incomplete scan")
                    && !$0.contains("title=not checked")
            }
            let summaries = gh.filter { $0.contains("title=sandbox-audit::") }.count
            XCTAssertEqual(annotations.count, min(findings.count, gh.count - incomplete - summaries - notChecked))
            XCTAssertEqual(summaries, annotations.count < findings.count ? 1 : 0, name)

            // Markdown and HTML.
            let md = try String(contentsOfFile: dir.sub("report.markdown"), encoding: .utf8)
            XCTAssertTrue(md.contains("Backup footprint"), name)
            XCTAssertEqual(md.contains("<details>"), findings.count > MarkdownReport.unfolded, name)
            let html = try String(contentsOfFile: dir.sub("report.html"), encoding: .utf8)
            // Self-contained: links are fine, loading anything is not; one inline script.
            for external in ["src=", "<link", "@import", "url(", "<script src", "<iframe", "<img"] {
                XCTAssertFalse(html.contains(external), "\(name): the HTML report must be self-contained (\(external))")
            }
            XCTAssertEqual(html.components(separatedBy: "<script>").count, 2, name)
            XCTAssertTrue(html.contains("<svg"), name)
            XCTAssertEqual((summary["failed"] as! Bool), md.contains("❌"), name)
        }
    }

    func testGitHubLimitsAndJobSummary() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        for i in 0..<14 { try Fixture.file(dir.sub("stray-\(i)"), size: 10) }  // 14 errors
        for i in 0..<12 { try Fixture.file(dir.sub("Documents/x\(i).part"), size: 10) }  // 12 warnings
        let step = try TempDir("step")
        XCTAssertTrue(
            FileManager.default.createFile(atPath: step.sub("summary.md"), contents: Data("# earlier step\n".utf8)))
        let r = try CLI.run(
            ["scan", "--format", "github", dir.path], environment: ["GITHUB_STEP_SUMMARY": step.sub("summary.md")])
        XCTAssertEqual(r.status, 1)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("::error ") }.count, 10)
        XCTAssertEqual(lines.filter { $0.hasPrefix("::warning ") }.count, 10)
        XCTAssertTrue(lines.last!.hasPrefix("::notice title=sandbox-audit::"))
        XCTAssertTrue(lines.last!.contains("4 more errors, 2 more warnings"), String(lines.last!))
        let summary = try String(contentsOfFile: step.sub("summary.md"), encoding: .utf8)
        XCTAssertTrue(summary.hasPrefix("# earlier step\n## sandbox-audit"), "appended, not replaced")
        XCTAssertTrue(summary.contains("<details><summary>6 more finding(s)</summary>"))
    }

    /// Quotes, <, &, newlines, commas, colons and a non-UTF-8 byte, in every format.
    func testEscapingInEveryFormat() throws {
        try Tool.requirePython("jsonschema", for: "the SARIF report is checked against the official schema")
        let dir = try TempDir()
        let root = dir.sub("App")
        try Fixture.container(at: root)
        let hostile = ["say \"hi\".part", "<b>&amp;.part", "line\nbreak.part", "a,b:c|d.part"]
        for name in hostile { try Fixture.file(root + "/Documents/" + name, size: 10) }
        try NonUTF8Names.require(in: root, for: "a Latin-1 name is among the hostile names every format must escape")
        let raw = Array((root + "/Documents/caf").utf8) + [0xE9] + Array(".part".utf8) + [0]
        close(
            raw.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) {
                    open($0, O_WRONLY | O_CREAT, 0o644)
                }
            })
        let out = try TempDir("reports")
        let json = try allFormats([root], exit: 0, into: out)  // the .part files are warnings
        let paths = (json["findings"] as! [[String: Any]]).map { $0["path"] as! String }
        XCTAssertEqual(paths.count, 5)
        XCTAssertTrue(paths.contains("Documents/caf\\xE9.part"))
        XCTAssertTrue(paths.contains("Documents/line\nbreak.part"))

        _ = try python(Self.validateSARIF, [Self.schema, out.sub("report.sarif")])
        let sarif = try String(contentsOfFile: out.sub("report.sarif"), encoding: .utf8)
        XCTAssertTrue(sarif.contains("\"uri\": \"Documents/caf%E9.part\""), "non-UTF-8 bytes percent-encoded")
        XCTAssertTrue(sarif.contains("Documents/%3Cb%3E%26amp%3B.part"))
        XCTAssertTrue(sarif.contains("Documents/line%0Abreak.part"))

        let names = try python(
            """
            import sys, xml.etree.ElementTree as ET
            for c in ET.parse(sys.argv[1]).getroot().iter("testcase"):
                print(repr(c.get("name")))
            """, [out.sub("report.junit")])
        XCTAssertTrue(names.contains("'Documents/<b>&amp;.part'"), names)
        XCTAssertTrue(names.contains("'Documents/say \"hi\".part'"), names)
        XCTAssertTrue(names.contains("'Documents/line\\nbreak.part'"), names)

        let gh = try String(contentsOfFile: out.sub("report.github"), encoding: .utf8)
        XCTAssertEqual(
            gh.split(separator: "\n").count, 6, "one line per annotation and the not-checked notice, newlines escaped")
        XCTAssertTrue(
            gh.contains("file=\(root.replacingOccurrences(of: ":", with: "%3A"))/Documents/a%2Cb%3Ac|d.part,"), gh)
        XCTAssertTrue(gh.contains("line%0Abreak.part"))

        let md = try String(contentsOfFile: out.sub("report.markdown"), encoding: .utf8)
        for row in md.split(separator: "\n") where row.hasPrefix("| ⚠️") {
            XCTAssertEqual(row.filter { $0 == "|" }.count, 5, "a pipe in a name must not add a column: \(row)")
        }
        XCTAssertTrue(md.contains("&lt;b&gt;&amp;amp;.part"))
        XCTAssertTrue(md.contains("line<br>break.part"))

        let html = try String(contentsOfFile: out.sub("report.html"), encoding: .utf8)
        XCTAssertFalse(html.contains("<b>&amp;"), "markup in a name is escaped")
        XCTAssertTrue(html.contains("&lt;b&gt;&amp;amp;.part"))
        XCTAssertTrue(html.contains("say &quot;hi&quot;.part"))
        XCTAssertTrue(html.contains("caf\\xE9.part"))
        _ = try python(
            "import sys, html.parser; html.parser.HTMLParser().feed(open(sys.argv[1]).read())", [out.sub("report.html")]
        )
    }

    func testFingerprintsAreStableAcrossRunsAndPlaces() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("a"))
        try Fixture.file(dir.sub("a/stray"), size: 10)
        try Fixture.file(dir.sub("a/Documents/x.part"), size: 10)
        let first = SARIFReport.render(ScanReport(try audit(dir.sub("a")), failOn: .error)).compact
        let p = try Process.run(URL(fileURLWithPath: "/bin/mv"), arguments: [dir.sub("a"), dir.sub("b")])
        p.waitUntilExit()
        try Fixture.file(dir.sub("b/Documents/x.part"), size: 99)  // the message changes, the finding does not
        let second = SARIFReport.render(ScanReport(try audit(dir.sub("b")), failOn: .error)).compact
        func prints(_ s: String) throws -> [String] {
            let doc = try JSONSerialization.jsonObject(with: Data(s.utf8)) as! [String: Any]
            let results = ((doc["runs"] as! [[String: Any]])[0]["results"] as! [[String: Any]])
            return results.map { ($0["partialFingerprints"] as! [String: String])[SARIFReport.fingerprintKey]! }
        }
        XCTAssertEqual(try prints(first), try prints(second))
        XCTAssertEqual(Set(try prints(first)).count, 2)
    }

    func testOutputsAreWrittenWholeOrNotAtAll() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("App"))
        let bad = try CLI.run(["scan", "--output", "html=\(dir.sub("missing/report.html"))", dir.sub("App")])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["App"])
        let unknown = try CLI.run(["scan", "--output", "pdf=\(dir.sub("r.pdf"))", dir.sub("App")])
        XCTAssertEqual(unknown.status, 2)
        // An existing report is replaced whole, and no temporary file is left behind.
        try "old".write(toFile: dir.sub("r.sarif"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["scan", "--output", "sarif=\(dir.sub("r.sarif"))", dir.sub("App")]).status, 0)
        XCTAssertTrue(try String(contentsOfFile: dir.sub("r.sarif"), encoding: .utf8).hasPrefix("{"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["App", "r.sarif"])
    }

    /// Headless Chromium loads the report with no console errors (`.ci/run` installs chromium).
    func testHTMLReportLoadsInChromium() throws {
        let chromium = try Tool.chromium(for: "the HTML report is loaded in headless Chromium")
        let dir = try TempDir("html")
        _ = try allFormats(samples()[1].1, exit: samples()[1].exit, into: dir)
        let run = try CLI.run(
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
                "--virtual-time-budget=2000", "--dump-dom", "file://" + dir.sub("report.html"),
            ], via: chromium)
        let dom = run.stdout
        let log = run.stderr
        XCTAssertEqual(run.status, 0, log)
        XCTAssertTrue(dom.contains("com.example.misbehaving"), "the page rendered")
        XCTAssertTrue(dom.contains("<th tabindex=\"0\" title=\"Sort\""), "the inline sorting script ran, offline")
        XCTAssertTrue(dom.contains("role=\"img\" aria-label=\"Treemap: bytes by folder"), "the treemap rendered")
        let consoleErrors = log.split(separator: "\n").filter {
            $0.contains("CONSOLE") || $0.contains("Failed to load") || $0.contains("ERR_")
        }
        XCTAssertEqual(consoleErrors, [], log)
    }
}
