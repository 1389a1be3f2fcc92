import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// Issue 37 item 5: `suppress:` entries of the policy file (rule, path glob, reason, until),
/// through the built binary on real folders: a suppressed finding does not fail the run and
/// every report shows it as suppressed; an expired one fails the run with its reason.
final class SuppressionTests: XCTestCase {
    /// A container with one forbidden log (policy-forbidden, an error) and the policy forbidding it.
    func container(_ dir: TempDir, suppress: String) throws -> (root: String, config: String) {
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/tmp/debug.log", size: 100)
        try Fixture.file(root + "/Documents/notes.txt", size: 10)
        let config = dir.sub("policy.yml")
        try ("paths:\n  - {path: \"tmp/*.log\", forbidden: true}\n" + suppress).write(
            toFile: config, atomically: true, encoding: .utf8)
        return (root, config)
    }

    static let entry = """
        suppress:
          - rule: policy-forbidden
            path: "tmp/**"
            reason: "debug builds only; removed in 2.4"
            until: 2026-12-31

        """

    /// Seconds since 1970 at noon UTC of `day`.
    func epoch(_ day: String) -> [String: String] {
        [CalendarDay.epochVariable: String(CalendarDay(day)!.days * 86_400 + 43_200)]
    }

    func testASuppressedFindingDoesNotFailTheRunAndEveryReportShowsItWithItsReason() throws {
        let dir = try TempDir("suppress")
        let (root, unsuppressed) = try container(dir, suppress: "")
        let plain = try CLI.run(["scan", root, "--config", unsuppressed])
        XCTAssertEqual(plain.status, 1, "the forbidden log fails the run without the entry: \(plain.stdout)")

        let (_, config) = try container(dir, suppress: Self.entry)
        let env = epoch("2026-06-01")
        let text = try CLI.run(["scan", root, "--config", config], environment: env)
        XCTAssertEqual(text.status, 0, text.stdout + text.stderr)
        XCTAssertTrue(text.stdout.contains("not reported: 1 suppressed by the policy file"), text.stdout)
        XCTAssertTrue(text.stdout.contains("suppressed: 1 finding(s), by suppress: in the policy file"), text.stdout)
        XCTAssertTrue(
            text.stdout.contains(
                "error policy-forbidden  tmp/debug.log: debug builds only; removed in 2.4 (until 2026-12-31)"),
            text.stdout)

        let json =
            try JSONSerialization.jsonObject(
                with: try CLI.run(["scan", root, "--config", config, "--format", "json"], environment: env).stdoutBytes)
            as! [String: Any]
        XCTAssertFalse(
            (json["findings"] as! [[String: Any]]).contains { $0["ruleId"] as? String == "policy-forbidden" })
        let suppressed = try XCTUnwrap(json["suppressed"] as? [[String: Any]])
        XCTAssertEqual(suppressed.count, 1)
        XCTAssertEqual(suppressed[0]["path"] as? String, "tmp/debug.log")
        XCTAssertEqual(suppressed[0]["ruleId"] as? String, "policy-forbidden")
        let s = try XCTUnwrap(suppressed[0]["suppression"] as? [String: Any])
        XCTAssertEqual(s["reason"] as? String, "debug builds only; removed in 2.4")
        XCTAssertEqual(s["until"] as? String, "2026-12-31")
        XCTAssertEqual(s["path"] as? String, "tmp/**")
        XCTAssertEqual((json["summary"] as? [String: Any])?["suppressedFindings"] as? Int, 1)
        XCTAssertEqual((json["summary"] as? [String: Any])?["failed"] as? Bool, false)

        let md = try CLI.run(["scan", root, "--config", config, "--format", "markdown"], environment: env)
        XCTAssertTrue(md.stdout.contains("**Suppressed** (1, by `suppress:` in the policy file"), md.stdout)
        XCTAssertTrue(
            md.stdout.contains(
                "- `policy-forbidden` tmp/debug.log: debug builds only; removed in 2.4 (until 2026-12-31)"), md.stdout)

        // SARIF: the result is there, with suppressions [{kind: external, justification}], and
        // the document is valid against the SARIF 2.1.0 schema.
        let sarif = dir.sub("r.sarif")
        let r = try CLI.run(["scan", root, "--config", config, "--output", "sarif=" + sarif], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sarif))) as! [String: Any]
        let results = ((doc["runs"] as! [[String: Any]])[0]["results"] as! [[String: Any]])
        let result = try XCTUnwrap(results.first { $0["ruleId"] as? String == "policy-forbidden" })
        let sup = try XCTUnwrap(result["suppressions"] as? [[String: Any]])
        XCTAssertEqual(sup.first?["kind"] as? String, "external")
        XCTAssertEqual(sup.first?["justification"] as? String, "debug builds only; removed in 2.4")
        try Tool.requirePython("jsonschema", for: "validating SARIF")
        try python(ReportTests.validateSARIF, [ReportTests.schema, sarif])
    }

    func testAnExpiredSuppressionFailsTheRunWithItsReasonAndSuppressesNothing() throws {
        let dir = try TempDir("suppress")
        let (root, config) = try container(dir, suppress: Self.entry)
        // The until day itself still holds; the day after, it has expired.
        XCTAssertEqual(try CLI.run(["scan", root, "--config", config], environment: epoch("2026-12-31")).status, 0)
        let r = try CLI.run(["scan", root, "--config", config], environment: epoch("2027-01-01"))
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("suppression-expired"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains(
                "the suppression of policy-forbidden on \"tmp/**\" expired: its last day was 2026-12-31 (today is "
                    + "2027-01-01, UTC); its reason was \"debug builds only; removed in 2.4\""
            ), r.stdout)
        XCTAssertTrue(
            r.stdout.contains("policy-forbidden  tmp/debug.log"), "the finding it covered counts again: \(r.stdout)")
        XCTAssertFalse(r.stdout.contains("suppressed:"), r.stdout)

        let json =
            try JSONSerialization.jsonObject(
                with: try CLI.run(
                    ["scan", root, "--config", config, "--format", "json"], environment: epoch("2027-01-01")
                ).stdoutBytes) as! [String: Any]
        let ids = (json["findings"] as! [[String: Any]]).compactMap { $0["ruleId"] as? String }
        XCTAssertEqual(Set(ids), ["policy-forbidden", "suppression-expired"])
        XCTAssertEqual((json["suppressed"] as? [Any])?.count, 0)

        // From the clock: 2001-01-01 is long past.
        let (_, old) = try container(
            dir, suppress: Self.entry.replacingOccurrences(of: "2026-12-31", with: "2001-01-01"))
        XCTAssertEqual(try CLI.run(["scan", root, "--config", old]).status, 1)
        // A SOURCE_DATE_EPOCH that is no number is an input error, in one line.
        let bad = try CLI.run(
            ["scan", root, "--config", config], environment: [CalendarDay.epochVariable: "yesterday"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(
            bad.stderr,
            "sandbox-audit: error: SOURCE_DATE_EPOCH=yesterday is not a whole number of seconds since 1970 from 0 to "
                + "253402300799 (the end of 9999): unset it, or set it as date +%s prints "
                + "(https://reproducible-builds.org/specs/source-date-epoch/)\n"
        )
    }

    func testBadEntriesAreOneLineConfigurationErrors() throws {
        let dir = try TempDir("suppress")
        func refused(_ suppress: String, _ message: String, line: UInt = #line) throws {
            let (root, config) = try container(dir, suppress: suppress)
            let r = try CLI.run(["scan", root, "--config", config])
            XCTAssertEqual(r.status, 2, r.stdout, line: line)
            XCTAssertEqual(r.stderr, "sandbox-audit: error: \(config):\(message)\n", line: line)
        }
        try refused(
            "suppress:\n  - {rule: policy-forbiden, path: \"tmp/**\", reason: x}\n",
            "4:12: suppress.rule: unknown rule 'policy-forbiden'; did you mean 'policy-forbidden'? ('sandbox-audit "
                + "rules' lists them)"
        )
        try refused(
            "suppress:\n  - {rule: policy-forbidden, path: \"tmp/**\"}\n",
            "4:5: each entry of suppress needs 'rule' (a rule id), 'path' (a glob) and 'reason' (why the findings "
                + "are accepted): 'reason' missing"
        )
        try refused(
            "suppress:\n  - {rule: policy-forbidden, path: \"tmp/**\", reason: \"  \"}\n",
            "4:54: suppress.reason is empty: say why the findings of policy-forbidden on 'tmp/**' are accepted")
        try refused(
            "suppress:\n  - {rule: policy-forbidden, path: \"tmp/**\", reason: x, until: 2026-02-30}\n",
            "4:64: suppress.until: '2026-02-30' is not a date; write YYYY-MM-DD, e.g. 2026-12-31 (the last day the "
                + "suppression holds, UTC)"
        )
        try refused(
            "suppress:\n  - {rule: policy-forbidden, path: \"tmp/**\", reason: x, until: 2026-12-31, owner: me}\n",
            "4:76: unknown key 'owner' in suppress (valid: rule, path, reason, until)")
    }

    func testASuppressionMatchingNothingIsANoteAndAPathlessFindingNeedsStarStar() throws {
        let dir = try TempDir("suppress")
        let (root, config) = try container(
            dir,
            suppress: """
                budgets:
                  backup: 5B
                suppress:
                  - {rule: policy-forbidden, path: "tmp/**", reason: "debug builds"}
                  - {rule: special-file, path: "Library/**", reason: "no FIFO any more"}
                  - {rule: budget-exceeded, path: "**", reason: "the seed data, until the split"}

                """)
        let (json, r) = try CLI.scanJSON([root, "--config", config])
        XCTAssertEqual(r.status, 0, r.stderr)
        let notes = json["notes"] as? [String] ?? []
        XCTAssertEqual(
            notes.filter { $0.contains("suppression") },
            [
                "the suppression of special-file on \"Library/**\" in the policy file matched no finding: remove it "
                    + "if what it accepted is gone"
            ])
        let suppressed = (json["suppressed"] as? [[String: Any]] ?? []).compactMap { $0["ruleId"] as? String }
        XCTAssertEqual(suppressed.sorted(), ["budget-exceeded", "policy-forbidden"])
        // A budget's finding has no path: a narrower glob does not cover it.
        let (_, narrow) = try container(
            dir,
            suppress:
                "budgets:\n  backup: 5B\nsuppress:\n  - {rule: budget-exceeded, path: \"Documents/**\", reason: x}\n"
                + "  - {rule: policy-forbidden, path: \"tmp/**\", reason: x}\n")
        let (narrowJSON, n) = try CLI.scanJSON([root, "--config", narrow])
        XCTAssertEqual(n.status, 1)
        XCTAssertEqual(
            (narrowJSON["findings"] as? [[String: Any]] ?? []).compactMap { $0["ruleId"] as? String },
            ["budget-exceeded"])
    }

    func testSuppressionsRoundTripThroughConfigShow() throws {
        let dir = try TempDir("suppress")
        let (root, config) = try container(
            dir,
            suppress: Self.entry
                + "  - {rule: special-file, path: \"Library/*.fifo\", reason: \"IPC; removed at launch\"}\n")
        let show = try CLI.run(["config", "show", "--config", config])
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(
            show.stdout.contains(
                "suppress:\n- rule: policy-forbidden\n  path: tmp/**\n  reason: debug builds only; removed in "
                    + "2.4\n  until: "
            ), show.stdout)
        XCTAssertTrue(
            show.stdout.contains("until: 2026-12-31\n") || show.stdout.contains("until: '2026-12-31'\n"), show.stdout)
        let shown = dir.sub("shown.yml")
        try show.stdout.write(toFile: shown, atomically: true, encoding: .utf8)
        let again = try CLI.run(["config", "show", "--config", shown])
        XCTAssertEqual(again.stdout.split(separator: "\n").dropFirst(), show.stdout.split(separator: "\n").dropFirst())
        let p1 = try PolicyFile.load(config)
        let p2 = try PolicyFile.load(shown)
        XCTAssertEqual(p1.suppressions, p2.suppressions)
        XCTAssertEqual(p2.suppressions.count, 2)
        let env = epoch("2026-06-01")
        let a = try CLI.run(["scan", root, "--config", config, "--format", "json"], environment: env)
        let b = try CLI.run(["scan", root, "--config", shown, "--format", "json"], environment: env)
        XCTAssertEqual(a.status, b.status)
        func suppressed(_ r: CLI.Result) throws -> Int {
            ((try JSONSerialization.jsonObject(with: r.stdoutBytes) as! [String: Any])["suppressed"] as! [Any]).count
        }
        XCTAssertEqual(try suppressed(a), 1)
        XCTAssertEqual(try suppressed(b), 1)
    }

    func testCalendarDays() {
        for text in ["1970-01-01", "2000-02-29", "2026-12-31", "2400-02-29", "1969-12-31"] {
            XCTAssertEqual(CalendarDay(text)?.description, text)
        }
        XCTAssertEqual(CalendarDay("1970-01-02")?.days, 1)
        XCTAssertEqual(CalendarDay("2000-03-01")!.days - CalendarDay("2000-02-28")!.days, 2)
        let bads = ["2026-2-1", "2026-13-01", "2100-02-29", "2026-04-31", "20261231", "2026-12-31T00:00"]
        for bad in bads + ["２０２６-01-01"] {
            XCTAssertNil(CalendarDay(bad), bad)
        }
        XCTAssertEqual(CalendarDay(secondsSince1970: 86_399).description, "1970-01-01")
        XCTAssertEqual(CalendarDay(secondsSince1970: -1).description, "1969-12-31")
        XCTAssertEqual(
            try CalendarDay.today(environment: ["SOURCE_DATE_EPOCH": "1798761600"]).description, "2027-01-01")
    }
}
