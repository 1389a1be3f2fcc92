import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// What readers of the reports met: the HTML report's layout at 1400 px, its summed-up treemap
/// tile, its date; the Markdown report's fixes; the text report's budget column.
final class ReportRoughEdgeTests: XCTestCase {
    static let repo = ReportTests.repo

    static func chromium() throws -> String {
        try Tool.chromium(for: "the HTML report is laid out in headless Chromium")
    }

    /// Lays the page out in headless Chromium, `width` pixels wide, and returns what the
    /// measuring script found: the tables wider than their card, the columns cut at its edge,
    /// and the chart texts running past their chart's right edge.
    static func layoutProblems(_ html: String, width: Int, in dir: TempDir) throws -> [String] {
        let probe = """
            <script>
            (function(){
            var out=[];
            document.querySelectorAll("details").forEach(function(d){d.open=true;});
            document.querySelectorAll(".tw").forEach(function(tw,i){
              var box=tw.getBoundingClientRect();
              if(tw.scrollWidth>tw.clientWidth+1){out.push("table "+i+" is "+tw.scrollWidth+" px wide in a card of \
            "+tw.clientWidth);}
              tw.querySelectorAll("th,td").forEach(function(c){var r=c.getBoundingClientRect();
                if(r.width>0&&r.right>box.right+1){out.push("table "+i+": a cell ends at "+Math.round(r.right)+", the \
            card at "+Math.round(box.right));}});
            });
            document.querySelectorAll("svg.chart").forEach(function(svg,i){
              var w=svg.viewBox.baseVal.width;
              svg.querySelectorAll("text").forEach(function(t){var b=t.getBBox();
                if(b.x+b.width>w+0.5){out.push("chart "+i+": text '"+t.textContent.slice(0,40)+"' ends at \
            "+Math.round(b.x+b.width)+" of "+w);}});
            });
            document.body.setAttribute("data-layout",JSON.stringify(out));
            })();
            </script>
            """
        let page = dir.sub("layout-\(width).html")
        try html.replacingOccurrences(of: "</body>", with: probe + "</body>").write(
            toFile: page, atomically: true, encoding: .utf8)
        let dom = try CLI.run(
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=\(width),1000",
                "--virtual-time-budget=2000", "--dump-dom", "file://" + page,
            ], via: try chromium()
        ).stdout
        guard let start = dom.range(of: "data-layout=\""), let end = dom[start.upperBound...].firstIndex(of: "\"")
        else {
            XCTFail("the measuring script did not run:\n\(dom.prefix(500))")
            return []
        }
        let json = String(dom[start.upperBound..<end]).replacingOccurrences(of: "&quot;", with: "\"")
            .replacingOccurrences(of: "&amp;", with: "&")
        return try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String] ?? []
    }

    /// A container whose findings carry long unbroken words (a file name of 120 characters, a
    /// long owner-less path in a message) and a state caption with all three states: at 1400 px
    /// (and at a phone's 390) no table is wider than its card, no cell ends past it, and the
    /// caption of the state chart is not cut.
    func testHTMLFitsItsCardsAt1400Pixels() throws {
        _ = try Self.chromium()
        let dir = try TempDir("html-layout")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        let long = String(repeating: "VeryLongUnbrokenName", count: 6)
        try Fixture.file(root + "/Documents/\(long).part", size: 2_000_000)
        try Fixture.file(root + "/Documents/\(long)/\(long).sqlite-wal", size: 10_000)
        try Fixture.file(root + "/\(long)", size: 10)
        try Fixture.file(root + "/Library/Caches/\(long).bin", size: 3_000_000)
        try Fixture.file(root + "/Library/Application Support/\(long).db", size: 5_000_000)
        try Fixture.bytes(
            dir.sub("policy.yml"),
            Array("budgets:\n  backup: 1kB\n  paths:\n    - path: \"Documents/\(long)/**\"\n      max: 1kB\n".utf8))
        let r = try CLI.run([
            "scan", root, "--config", dir.sub("policy.yml"), "--format", "html", "--support-data-size", "1kB",
        ])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(try Self.layoutProblems(r.stdout, width: 1400, in: dir), [])
        XCTAssertEqual(try Self.layoutProblems(r.stdout, width: 390, in: dir), [])
        // The sample the screenshot shows, too.
        let s = Self.repo + "/sample-containers/"
        let sample = try CLI.run([
            "scan", s + "Misbehaving", "--config", s + "Misbehaving.sandbox-audit.yml", "--format", "html",
        ])
        XCTAssertEqual(try Self.layoutProblems(sample.stdout, width: 1400, in: dir), [])
    }

    /// The tile that sums up a folder's smaller children is no folder: "7 smaller items", never
    /// "7 smaller items/", on the tile and in its tooltip.
    func testTheSummedUpTreemapTileIsNoFolder() throws {
        let dir = try TempDir("treemap")
        try Fixture.container(at: dir.path)
        for i in 0..<30 { try Fixture.file(dir.sub("Documents/f\(i).bin"), size: 10_000) }
        let html = try CLI.run(["scan", dir.path, "--format", "html"]).stdout
        XCTAssertTrue(html.contains(">7 smaller items<"), "the tile's label")
        XCTAssertTrue(html.contains("<title>7 smaller items in Documents/: 70.0 kB"), "the tile's tooltip")
        XCTAssertFalse(html.contains("smaller items/"))
        let summed = Treemap.visibleChildren(
            FootprintNode(path: .root, isFolder: true).with(
                children: (0..<3000).map { i in
                    var n = FootprintNode(path: ContainerPath("f\(i)"), isFolder: false)
                    n.backedUp = 1
                    return n
                }))
        XCTAssertEqual(summed.last?.name, "2,977 smaller items")
    }

    /// Two runs over the same container give the same bytes: the report carries no scan time
    /// unless SOURCE_DATE_EPOCH gives one (reproducible-builds.org), which it then shows.
    func testHTMLIsTheSameBytesAtEveryRunAndHonoursSourceDateEpoch() throws {
        let s = Self.repo + "/sample-containers/"
        let args = [
            "scan", s + "Misbehaving", "--config", s + "Misbehaving.sandbox-audit.yml", "--stale-tmp-age", "36500d",
            "--format", "html",
        ]
        let first = try CLI.run(args, environment: ["SOURCE_DATE_EPOCH": ""])
        Thread.sleep(forTimeInterval: 1.1)
        let second = try CLI.run(args, environment: ["SOURCE_DATE_EPOCH": ""])
        XCTAssertEqual(first.stdoutBytes, second.stdoutBytes)
        let date = try NSRegularExpression(pattern: #"\d{4}-\d\d-\d\d \d\d:\d\d UTC"#)
        XCTAssertNil(
            date.firstMatch(in: first.stdout, range: NSRange(first.stdout.startIndex..., in: first.stdout)),
            "no scan time")
        let dated = try CLI.run(args, environment: ["SOURCE_DATE_EPOCH": "1700000000"])
        XCTAssertTrue(
            dated.stdout.contains("backup and storage report · 2023-11-14 22:13 UTC</p>"),
            String(dated.stdout.prefix(2000)))
        XCTAssertEqual(
            dated.stdoutBytes, try CLI.run(args, environment: ["SOURCE_DATE_EPOCH": "1700000000"]).stdoutBytes)
        // Malformed or out of range: one line, exit 2, for every command (one parser, SourceDateEpoch).
        for bad in ["17e8", "-5", "-9223372036854775808", "9223372036854775807", "253402300800", " 1"] {
            let r = try CLI.run(args, environment: ["SOURCE_DATE_EPOCH": bad])
            XCTAssertEqual(r.status, 2, bad)
            XCTAssertTrue(
                r.stderr.hasPrefix("sandbox-audit: error: SOURCE_DATE_EPOCH=")
                    && r.stderr.split(separator: "\n").count == 1, r.stderr)
        }
        XCTAssertEqual(ReportFormat.sourceDateEpoch(["SOURCE_DATE_EPOCH": "-5"]), nil)
        XCTAssertEqual(ReportFormat.sourceDateEpoch(["SOURCE_DATE_EPOCH": "0"]), 0)
        XCTAssertEqual(try SourceDateEpoch.seconds(["SOURCE_DATE_EPOCH": "253402300799"]), 253_402_300_799)
    }

    /// The Markdown report says how to fix what it finds: each rule's fix in the table of rules,
    /// and a finding's own fix (here a command naming its file) after its message.
    func testMarkdownFindingsCarryTheirFix() throws {
        let dir = try TempDir("md-fix")
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("stray"), size: 10)
        try Fixture.file(dir.sub("Library/Application Support/big.db"), size: 3000)
        let r = try CLI.run(["scan", dir.path, "--format", "markdown", "--support-data-size", "1kB"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("| rule | errors | warnings | notes | fix |"), r.stdout)
        for id in ["misplaced-at-root", "unexcluded-support-data"] {
            let fix = try XCTUnwrap(RuleCatalogue.rule(id: id)?.description.fix)
            let row = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix("| [`\(id)`]") })
            XCTAssertTrue(row.hasSuffix(" | \(MarkdownReport.cell(fix)) |"), String(row))
        }
        let finding = try XCTUnwrap(
            audit(
                dir.path,
                settings: {
                    var s = RuleSettings()
                    s.supportDataSize = 1000
                    return s
                }()
            ).findings.first { $0.ruleId == "unexcluded-support-data" })
        let own = try XCTUnwrap(finding.fix, "the rule gives this finding a fix of its own")
        let row = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.contains("| unexcluded-support-data |") })
        XCTAssertTrue(row.hasSuffix("<br>**Fix:** \(MarkdownReport.cell(own)) |"), String(row))
    }

    /// A budget far over its limit: the text report's use and verdict stay apart, and the
    /// percentage has its thousands grouped, in text, Markdown and HTML.
    func testBudgetUseIsReadable() throws {
        let dir = try TempDir("budget")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/a.bin", size: 20_900_000)
        try Fixture.bytes(dir.sub("policy.yml"), Array("budgets:\n  backup: 1kB\n".utf8))
        func run(_ format: String) throws -> String {
            let r = try CLI.run([
                "scan", root, "--config", dir.sub("policy.yml"), "--format", format, "--color", "never",
            ])
            XCTAssertEqual(r.status, 1, r.stderr)
            return r.stdout
        }
        let text = try run("text")
        let line = try XCTUnwrap(
            text.split(separator: "\n").first { $0.hasPrefix("backup footprint  ") && $0.contains(" of ") })
        XCTAssertTrue(line.hasSuffix("20.9 MB of 1.00 kB, 2,090,000%  EXCEEDED by 20.9 MB"), String(line))
        XCTAssertTrue(
            try run("markdown").contains(
                "| backup footprint | 20.9 MB of 1.00 kB | 2,090,000% | ❌ over by 20.9 "
                    + "MB |"))
        XCTAssertTrue(try run("html").contains("</span></span> 2,090,000%</td>"))
        XCTAssertEqual(BudgetText.percent(99.6), "100%")
        XCTAssertEqual(BudgetText.percent(1234.4), "1,234%")
        XCTAssertEqual(BudgetText.percent(.infinity), "∞")
    }
}

extension FootprintNode {
    func with(children: [FootprintNode]) -> FootprintNode {
        var n = self
        n.children = children
        return n
    }
}
