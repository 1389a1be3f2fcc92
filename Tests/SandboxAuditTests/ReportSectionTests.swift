import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Every format prints every section of the report model, or declares it leaves it out with
/// why (`ReportFormat.leavesOut`): a scan that fills each section (an unreadable sidecar, a
/// budget over its limit, growth since a baseline, a suppression, owners, rules not checked,
/// the prediction held against a backup) is rendered in every format, and each section's own
/// text is looked for. A new format is checked as soon as it is registered.
final class ReportSectionTests: XCTestCase {
    static let suppressionReason = "kept for the section test until the move"
    static let backupFolder = "section-probe-backup"

    /// The scan: a container with findings of several rules, read with a policy that sets a
    /// budget and suppresses one finding, against a baseline of a smaller state and a backup.
    func fullScan(_ dir: TempDir) throws -> AuditResult {
        let root = dir.sub("App")
        try BackupComparisonTests.container(root)
        let policy = try PolicyFile.parse(
            """
            budgets:
              backup: 1kB
            paths:
              - {path: "tmp/*.part", forbidden: true}
            suppress:
              - rule: policy-forbidden
                path: "tmp/**"
                reason: "\(Self.suppressionReason)"

            """, source: dir.sub("policy.yml"))
        let app = ExampleObservations.app
        let selection = ContainerSelection(app: app)
        let baseline = Baseline(try Audit.run(root, selection: selection, scanTime: 1_800_000_000))
        // Grown since the baseline, and a sidecar that cannot be read (an incomplete scan).
        try Fixture.file(root + "/Documents/export.mov", size: 300_000)
        try Data([0, 5, 0x16, 7, 0, 2, 0, 0] + [UInt8](repeating: 0, count: 12)).write(
            to: URL(fileURLWithPath: root + "/Documents/._export.mov"))
        let inventories = try Audit.inventories(of: root, selection)
        let backup = BackupComparison(
            prediction: inventories,
            backup: [try ExampleObservations.backupSide(BackupComparisonTests.held, at: dir.sub("backup"))],
            folder: Self.backupFolder, app: app)
        return Audit.run(
            root, inventories: inventories, selection: selection, policy: policy, baseline: baseline, backup: backup,
            scanTime: 1_800_000_000)
    }

    /// Text that only the section prints, any one of which shows it is there (a figure is
    /// printed formatted by some formats, as a number by others).
    func probes(_ section: ReportSection, _ format: ReportFormat, _ report: ScanReport) -> [String] {
        let result = report.result
        switch section {
        case .scan: return [report.summary.identity, result.inventory.container.dataRoot]
        case .incomplete: return [format.incompleteMarker]
        case .census: return Zone.allCases.filter { $0 != .system }.map(\.title)
        case .headline:
            return [ByteSize.format(result.keptOnRestore), String(result.keptOnRestore)]
        case .protection: return [String(ProtectionReport.notObservable.prefix(40))]
        case .owners:
            let named = Set(report.findings.compactMap { $0.owner?.name })
            return report.owners.flatMap { $0 }.map(\.owner).filter { !named.contains($0) }
        case .budgets:
            let b = report.budgets[0].result
            return ["of " + ByteSize.format(b.limit), "\"limit\": \(b.limit)"]
        case .growth:
            let churn = result.comparison!.churn
            return [ByteSize.format(churn), "\"churn\": \(churn)"]
        case .backupComparison: return [Self.backupFolder]
        case .findings:
            let f = report.findings.first { $0.finding.ruleId != RuleCatalogue.budgetExceededID }!.finding
            return [XMLText.escape(f.message), f.message]
        case .suppressions: return [Self.suppressionReason]
        case .notChecked: return [XMLText.escape(report.notChecked[0].reason), report.notChecked[0].reason]
        case .verdict: return ["FAILED", "Fails at", "\"failed\": true", "❌"]
        }
    }

    func testEveryFormatPrintsEverySectionItDoesNotDeclareLeftOut() throws {
        let dir = try TempDir("sections")
        let result = try fullScan(dir)
        let options = ReportFormat.Options(failOn: .error)
        let report = ReportFormat.model(result, options)
        // The scan fills every section.
        XCTAssertFalse(result.complete)
        XCTAssertFalse(report.budgets.isEmpty)
        XCTAssertNotNil(result.comparison)
        XCTAssertNotNil(result.backupComparison)
        XCTAssertFalse(report.suppressed.isEmpty)
        XCTAssertFalse(report.notChecked.isEmpty)
        XCTAssertTrue(report.failed)
        for section in ReportSection.allCases {
            let any = ReportFormat.allCases.contains { !probes(section, $0, report).isEmpty }
            XCTAssertTrue(any, "\(section): the scan gives nothing to look for")
        }
        for format in ReportFormat.allCases {
            let output = format.render(result, options)
            for section in ReportSection.allCases where format.leavesOut[section] == nil {
                let wanted = probes(section, format, report)
                XCTAssertTrue(
                    wanted.contains { output.contains($0) },
                    "\(format.rawValue) neither prints \(section) (none of \(wanted.prefix(3))) nor declares it "
                        + "left out")
            }
            for (section, why) in format.leavesOut {
                XCTAssertFalse(why.isEmpty, "\(format.rawValue) leaves out \(section) without saying why")
            }
        }
    }
}
