import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The figures every report states about the scan as a whole come from one `ReportSummary`:
/// the identity line, the counts per severity, what was found but not reported, the rules that ran.
final class ReportSummaryTests: XCTestCase {
    /// A container with six stray files at its root (one `misplaced-at-root` finding each): three
    /// already in the baseline, one on an ignored path; the policy turns `volatile-store` off.
    func scan() throws -> AuditResult {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        for i in 0..<4 { try Fixture.file(dir.sub("stray-\(i)"), size: 10) }
        let baseline = Baseline(try Audit.run(dir.path, scanTime: 1_790_000_000))
        for i in 4..<6 { try Fixture.file(dir.sub("stray-\(i)"), size: 10) }
        let policy = try PolicyFile.parse(
            "ignore:\n  - \"stray-0\"\nrules:\n  volatile-store: off\n", source: "test.yml")
        return try Audit.run(dir.path, policy: policy, baseline: baseline, scanTime: 1_790_000_000)
    }

    func testSummaryHoldsTheScansFigures() throws {
        let result = try scan()
        let s = ReportSummary(result)
        XCTAssertEqual(
            result.findings.filter { $0.ruleId == "misplaced-at-root" }.map { $0.path?.display },
            ["stray-4", "stray-5"])
        XCTAssertEqual(s.ignoredFindings, 1)
        XCTAssertEqual(s.baselineFindings, 3)
        XCTAssertEqual(s.notReported, ["3 already in the baseline", "1 on ignored paths"])
        XCTAssertEqual(s.errors, result.findings.filter { $0.severity == .error }.count)
        XCTAssertEqual(s.warnings, result.findings.filter { $0.severity == .warning }.count)
        XCTAssertEqual(s.notes, result.findings.filter { $0.severity == .note }.count)
        XCTAssertEqual(s.errors + s.warnings + s.notes, result.findings.count)
        XCTAssertEqual(s.counts, "\(s.errors) error(s), \(s.warnings) warning(s), \(s.notes) note(s)")
        XCTAssertNil(s.bundleIdentifier)
        XCTAssertEqual(s.identity, "unidentified app")
        XCTAssertEqual(s.heading, "Unidentified app")
        XCTAssertNil(s.backup)
        XCTAssertEqual(s.rulesRun.count, RuleCatalogue.all.count - 1)
        XCTAssertFalse(s.rulesRun.contains("volatile-store"))
        XCTAssertEqual(s.rulesRun, RuleCatalogue.all.map(\.id).filter { $0 != "volatile-store" }, "catalogue order")
    }

    func testEveryFormatStatesTheSummary() throws {
        let result = try scan()
        let s = ReportSummary(result)
        let text = TextReport(useColor: false).render(ScanReport(result, failOn: .error))
        XCTAssertTrue(
            text.hasPrefix("sandbox-audit \(Audit.toolVersion): unidentified app ("), String(text.prefix(200)))
        XCTAssertTrue(text.contains("\nfindings: \(s.counts)\n"), text)
        XCTAssertTrue(text.contains("\nnot reported: 3 already in the baseline, 1 on ignored paths\n"), text)
        let md = MarkdownReport.render(ScanReport(result, failOn: .error))
        XCTAssertTrue(md.hasPrefix("## sandbox-audit: unidentified app "), String(md.prefix(200)))
        XCTAssertTrue(md.contains("\n\(s.counts); fails at error.\n"), md)
        XCTAssertTrue(md.contains("\nNot reported: 3 already in the baseline, 1 on ignored paths."), md)
        let html = HTMLReport.render(ScanReport(result, failOn: .error))
        XCTAssertTrue(html.contains("<title>sandbox-audit: Unidentified app</title>"))
        XCTAssertTrue(html.contains(": \(s.counts)</p>"))
        XCTAssertTrue(
            html.contains("<p class=\"note\">Not reported: 3 already in the baseline, 1 on ignored paths.</p>"))
        let junit = JUnitReport.render(ScanReport(result, failOn: .error))
        XCTAssertFalse(junit.contains("<testsuite name=\"volatile-store\""))
        XCTAssertEqual(
            junit.components(separatedBy: "<testsuite name=").count - 1, s.rulesRun.count + 1,
            "one suite per rule that ran, and the scan's")
        guard case .object(let doc) = SARIFReport.render(ScanReport(result, failOn: .error)),
            case .array(let runs)? = doc.first(where: { $0.0 == "runs" })?.1,
            case .object(let run)? = runs.first, case .object(let tool)? = run.first(where: { $0.0 == "tool" })?.1,
            case .object(let driver)? = tool.first(where: { $0.0 == "driver" })?.1,
            case .array(let rules)? = driver.first(where: { $0.0 == "rules" })?.1
        else { return XCTFail("SARIF: no runs[0].tool.driver.rules") }
        XCTAssertEqual(rules.count, s.rulesRun.count)
        let json = JSONReport.scan(ScanReport(result, failOn: .error))
        guard case .object(let top) = json, case .object(let summary)? = top.first(where: { $0.0 == "summary" })?.1
        else { return XCTFail("JSON: no summary") }
        let figures = Dictionary(
            uniqueKeysWithValues: summary.compactMap { k, v -> (String, Int64)? in
                if case .int(let n) = v { return (k, n) } else { return nil }
            })
        XCTAssertEqual(
            figures,
            [
                "error": Int64(s.errors), "warning": Int64(s.warnings), "note": Int64(s.notes), "ignoredFindings": 1,
                "baselineFindings": 3, "suppressedFindings": 0,
            ])
    }
}
