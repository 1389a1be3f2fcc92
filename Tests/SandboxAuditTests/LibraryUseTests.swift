import Foundation
import SandboxAudit  // not @testable: this file sees only the public surface, as a program would
import XCTest

/// The README's "As a library" example, compiled against the public surface alone and run on
/// a sample container.
final class LibraryUseTests: XCTestCase {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-containers").path

    func testTheReadmeExampleRunsOnThePublicSurface() throws {
        var policy = try PolicyFile.resolve(config: Self.samples + "/Misbehaving.sandbox-audit.yml")
        let asConfigured = try Audit.run(Self.samples + "/Misbehaving", policy: policy)
        policy.settings.oversizedFileSize = 20_000_000
        let result = try Audit.run(Self.samples + "/Misbehaving", policy: policy)

        XCTAssertGreaterThan(result.backupFootprint, 0)
        XCTAssertEqual(result.backupFootprint, result.inventories.map(\.backupFootprint).reduce(0, +))
        let app = try XCTUnwrap(result.inventories.first)
        XCTAssertEqual(app.container.bundleIdentifier, "com.example.misbehaving")
        XCTAssertEqual(app.domain, "AppDomain-com.example.misbehaving")
        XCTAssertEqual(app.container.role, .app)
        // The entries' verdicts add up to the totals.
        let counted = app.entries.filter { $0.backedUp == true }.map(\.countedSize).reduce(0, +)
        XCTAssertEqual(counted, app.backupFootprint)

        let lines = result.findings.filter { $0.severity >= .warning }.map { "\($0.ruleId) \($0.path?.display ?? ".")" }
        XCTAssertTrue(lines.contains("misplaced-at-root Downloads"), "\(lines)")
        XCTAssertTrue(lines.contains("policy-forbidden Downloads"), "\(lines)")
        XCTAssertTrue(lines.contains("budget-exceeded ."), "\(lines)")
        let errors = result.findings.filter { $0.severity >= .error }
        XCTAssertFalse(errors.isEmpty)
        for finding in errors {
            XCTAssertNotNil(RuleCatalogue.rule(id: finding.ruleId), finding.ruleId)
            XCTAssertFalse(finding.message.isEmpty)
        }
        // The threshold set in code is the one the rules used: the sample's 10 MB files are
        // oversized at the default 10 MB, not at 20 MB.
        XCTAssertTrue(asConfigured.findings.contains { $0.ruleId == "oversized-backed-up-file" })
        XCTAssertFalse(result.findings.contains { $0.ruleId == "oversized-backed-up-file" })
        XCTAssertTrue(result.fails(at: .error))

        let sarif = ReportFormat.sarif.render(result, .init(failOn: .error))
        let json = try JSONSerialization.jsonObject(with: Data(sarif.utf8)) as? [String: Any]
        XCTAssertEqual(json?["version"] as? String, "2.1.0")
    }
}
