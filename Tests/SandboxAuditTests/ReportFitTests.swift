import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Reports that fit where they land.
final class ReportFitTests: XCTestCase {
    /// 3,000 findings: the Markdown stays within GitHub's comment limit, counts every rule, and
    /// says how many findings it left out and where to find them.
    func testMarkdownOfThousandsOfFindingsFitsAComment() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        for i in 0..<2_000 {
            try Fixture.file(
                dir.sub(
                    "stray-file-with-a-rather-long-name-"
                        + "\(i).bin"), size: 10)
        }  // errors
        for i in 0..<1_000 { try Fixture.file(dir.sub("Documents/download-\(i).part"), size: 10) }  // warnings
        let r = try CLI.run(["scan", "--format", "markdown", dir.path])
        XCTAssertEqual(r.status, 1, r.stderr)
        let md = r.stdout
        XCTAssertLessThanOrEqual(md.utf8.count, MarkdownReport.maxLength)
        XCTAssertLessThanOrEqual(md.count, 65_536)
        XCTAssertTrue(
            md.contains("| [`misplaced-at-root`](\(References.ruleHelp("misplaced-at-root"))) | 2000 | 0 | 0 |"), md)
        XCTAssertTrue(
            md.contains(
                "| [`recreatable-in-documents`](\(References.ruleHelp("recreatable-in-documents"))) | 0 | 1000 | 0 |"),
            md)
        let shown = md.split(separator: "\n").filter { $0.hasPrefix("| 🛑") || $0.hasPrefix("| ⚠️") }.count
        XCTAssertGreaterThan(shown, 100)
        XCTAssertTrue(
            md.contains(
                "… \(3_000 - shown) more finding(s) — see the HTML "
                    + "report / SARIF"), md.suffix(600).description)
        XCTAssertTrue(md.hasSuffix("</sub>\n"))
    }
}

extension ReportFitTests {
    /// Findings below --fail-on are skipped cases by default (Jenkins and GitLab list them), and
    /// --junit-warnings makes them failures or passing cases.
    func testJUnitWarningsAreVisible() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("stray"), size: 10)  // error
        try Fixture.file(dir.sub("Documents/a.part"), size: 10)  // warning
        let count = """
            import sys, xml.etree.ElementTree as ET
            root = ET.parse(sys.stdin).getroot()
            cases = list(root.iter("testcase"))
            f = sum(1 for c in cases if c.find("failure") is not None)
            s = sum(1 for c in cases if c.find("skipped") is not None)
            assert int(root.get("failures")) == f and int(root.get("skipped")) == s
            for suite in root.iter("testsuite"):
                assert int(suite.get("skipped")) == sum(1 for c in suite.findall("testcase") if c.find("skipped") is \
            not None)
            # The findings skipped below the fail level, not the rules that could not run ("needs …").
            notrun = sum(1 for c in cases if c.find("skipped") is not None and \
            c.find("skipped").get("message").startswith(("needs ", "not run: ")))
            assert notrun > 0
            print(f, s - notrun)
            """
        for (mode, expected) in [(nil, "1 1"), ("skipped", "1 1"), ("failure", "2 0"), ("pass", "1 0")] {
            let r = try CLI.run(
                ["scan", "--format", "junit", dir.path] + (mode.map { ["--junit-warnings", $0] } ?? []))
            XCTAssertEqual(r.status, 1, r.stderr)
            let script = try TempDir("py")
            try count.write(toFile: script.sub("c.py"), atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["python3", script.sub("c.py")]
            let input = Pipe()
            let output = Pipe()
            p.standardInput = input
            p.standardOutput = output
            try p.run()
            input.fileHandleForWriting.write(Data(r.stdout.utf8))
            try input.fileHandleForWriting.close()
            let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(out.trimmingCharacters(in: .whitespacesAndNewlines), expected, mode ?? "default")
        }
        let bad = try CLI.run(["scan", "--format", "junit", "--junit-warnings", "loud", dir.path])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(
            bad.stderr.contains("'loud' is not a value of --junit-warnings (it takes failure, skipped, pass)"),
            bad.stderr)
    }
}

extension ReportFitTests {
    /// A missing GITHUB_STEP_SUMMARY file is created; one that cannot be written is warned about
    /// on stderr; neither changes the exit code.
    func testJobSummaryNeverChangesTheExitCode() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("stray"), size: 10)
        let step = try TempDir("step")
        let created = try CLI.run(
            ["scan", "--format", "github", dir.path], environment: ["GITHUB_STEP_SUMMARY": step.sub("missing.md")])
        XCTAssertEqual(created.status, 1, created.stderr)
        XCTAssertEqual(created.stderr, "")
        XCTAssertTrue(try String(contentsOfFile: step.sub("missing.md"), encoding: .utf8).hasPrefix("## sandbox-audit"))

        let unwritable = step.sub("no/such/folder/summary.md")
        let warned = try CLI.run(
            ["scan", "--format", "github", dir.path], environment: ["GITHUB_STEP_SUMMARY": unwritable])
        XCTAssertEqual(warned.status, 1)
        XCTAssertTrue(
            warned.stderr.hasPrefix("sandbox-audit: warning: cannot write the job summary \(unwritable)"), warned.stderr
        )
        XCTAssertEqual(warned.stderr.split(separator: "\n").count, 1)

        try FileManager.default.removeItem(atPath: dir.sub("stray"))
        let clean = try CLI.run(
            ["scan", "--format", "github", dir.path], environment: ["GITHUB_STEP_SUMMARY": unwritable])
        XCTAssertEqual(clean.status, 0, clean.stderr)
    }
}

extension ReportFitTests {
    /// The HTML report: a treemap of the footprint by folder (per domain), the version (and a
    /// date only when one is given), findings grouped by rule and folded, rules linked to docs/rules.md; the same
    /// bytes for the same scan time.
    func testHTMLReportTreemapAndFoldedFindings() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Documents/Big/movie.mp4"), size: 12_000_000)
        try Fixture.file(dir.sub("Library/Caches/blob"), size: 3_000_000)
        try Fixture.file(dir.sub("Library/Application Support/Models/m.bin"), size: 2_000_000)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Library/Application Support/Models"),
            carrier: .native)
        for i in 0..<30 { try Fixture.file(dir.sub("stray-\(i)"), size: 10) }
        let time = 1_790_000_000.0  // 2026-09-21 14:13:20 UTC
        let result = try Audit.run(dir.path, scanTime: time)
        let html = HTMLReport.render(ScanReport(result, failOn: .error))
        XCTAssertEqual(
            html, HTMLReport.render(ScanReport(try Audit.run(dir.path, scanTime: time), failOn: .error)),
            "deterministic")
        // No date unless one is given (SOURCE_DATE_EPOCH, through the options).
        XCTAssertFalse(html.contains("2026-09-21"), String(html.prefix(2000)))
        XCTAssertTrue(
            HTMLReport.render(ScanReport(result, failOn: .error), date: time).contains(
                "report · 2026-09-21 14:13 UTC</p>"))
        XCTAssertTrue(html.contains("sandbox-audit \(Audit.toolVersion)"))
        XCTAssertTrue(html.contains("<svg class=\"treemap\""))
        XCTAssertTrue(
            html.contains(
                "role=\"img\" aria-label=\"Treemap: bytes by folder of the container, coloured by backup state\""))
        XCTAssertTrue(html.contains(">movie.mp4<"), "the largest file is labelled")
        XCTAssertTrue(html.contains(">Documents/ 12.0 MB<"), "the largest folder is labelled")
        for color in [HTMLReport.colors.backed, HTMLReport.colors.excluded, HTMLReport.colors.skipped] {
            XCTAssertTrue(html.contains("fill=\"\(color)\""), color)
        }
        XCTAssertTrue(
            html.contains(
                "<a class=\"rule\" href=\"\(References.ruleHelp("misplaced-at-root"))\">misplaced-at-root</a>"))
        XCTAssertTrue(html.contains("<summary>25 more misplaced-at-root finding(s)</summary>"))
        XCTAssertTrue(html.contains("id=\"rule-misplaced-at-root\""))

        // The tree the treemap draws holds the container's bytes, by state.
        let tree = result.inventory.footprintTree()
        XCTAssertEqual(tree.size, result.inventory.total.size)
        XCTAssertEqual(tree.backedUp, result.inventory.backupFootprint)
        XCTAssertEqual(tree.excluded, result.inventory.total.excludedSize)
        XCTAssertEqual(tree.children.first?.name, "Documents")

        // Squarified tiles fill the area without overlap.
        let rects = Treemap.squarify([6, 6, 4, 3, 2, 2, 1], in: .init(x: 0, y: 0, w: 600, h: 400))
        XCTAssertEqual(rects.map { $0.w * $0.h }.reduce(0, +), 240_000, accuracy: 0.01)
        for (i, a) in rects.enumerated() {
            for b in rects[(i + 1)...] {
                let overlap =
                    max(0, min(a.x + a.w, b.x + b.w) - max(a.x, b.x))
                    * max(0, min(a.y + a.h, b.y + b.h) - max(a.y, b.y))
                XCTAssertLessThan(overlap, 0.01)
            }
        }
    }
}
