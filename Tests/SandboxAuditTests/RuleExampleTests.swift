import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Every rule's examples, built on disk with real files and attributes, and scanned.
final class RuleExampleTests: XCTestCase {
    func testEveryRuleHasExamples() {
        for rule in RuleCatalogue.all {
            XCTAssertFalse(rule.description.triggeringExamples.isEmpty, "\(rule.id) has no triggering example")
            XCTAssertFalse(rule.description.nonTriggeringExamples.isEmpty, "\(rule.id) has no non-triggering example")
            for ex in rule.description.triggeringExamples {
                XCTAssertFalse(ex.expectedPaths.isEmpty, "\(rule.id): '\(ex.title)' says nothing it must report")
            }
        }
    }

    /// Ids are stable (baselines, suppressions and SARIF results refer to them): each is
    /// lower-case words joined by hyphens and used once, and `rule(id:)` finds each. A renamed or
    /// removed id shows in the diff of the generated docs/rules.md (`DocsTests` keeps it current).
    func testRuleIdsAreUniqueAndWellFormed() throws {
        let ids = RuleCatalogue.all.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count, "an id used twice: \(ids)")
        let form = try NSRegularExpression(pattern: "^[a-z]+(-[a-z]+)*$")
        for id in ids {
            XCTAssertNotNil(
                form.firstMatch(in: id, range: NSRange(id.startIndex..., in: id)),
                "'\(id)' is not lower-case words joined by hyphens")
        }
        XCTAssertEqual(RuleCatalogue.all.map { RuleCatalogue.rule(id: $0.id)?.id }, ids)
    }

    /// Builds an example on disk, scans it under its policy (with a baseline of its `before`
    /// state, or against a backup of what `backup` says), and returns the rule's findings.
    func scan(_ example: RuleExample, for rule: any Rule) throws -> [Finding] {
        let dir = try TempDir("example")
        let policy = try example.policy.map { try PolicyFile.parse($0, source: "example") } ?? Policy()
        let result: AuditResult
        if let before = example.before {
            result = try ExampleObservations.auditWithBaseline(example, before: before, at: dir.path, policy: policy)
        } else if let keys = example.appInfoKeys {
            result = try ExampleObservations.auditWithAppInfo(example, keys: keys, at: dir.path, policy: policy)
        } else if example.backupInput {
            result = try ExampleObservations.auditBackupInput(example, at: dir.path, policy: policy)
        } else if let files = example.sources {
            try Fixture.materialize(example, at: dir.sub("App"))
            try Fixture.mkdirs(dir.sub("src"))
            for (name, text) in files {
                try text.write(toFile: dir.sub("src/" + name), atomically: false, encoding: .utf8)
            }
            result = try Audit.run(dir.sub("App"), policy: policy, sources: dir.sub("src"))
        } else if let backup = example.backup {
            result = try ExampleObservations.auditAgainstBackup(example, backup: backup, at: dir.path, policy: policy)
        } else {
            try Fixture.materialize(example, at: dir.path)
            result = try audit(dir.path, policy: policy, role: example.role)
        }
        return result.findings.filter { $0.ruleId == rule.id }
    }

    func testTriggeringExamplesReportExactlyTheExpectedPaths() throws {
        for rule in RuleCatalogue.all {
            for example in rule.description.triggeringExamples {
                let findings = try scan(example, for: rule)
                XCTAssertEqual(
                    findings.map { $0.path?.display ?? "." }.sorted(), example.expectedPaths.sorted(),
                    "\(rule.id): '\(example.title)'")
            }
        }
    }

    func testNonTriggeringExamplesStaySilent() throws {
        for rule in RuleCatalogue.all {
            for example in rule.description.nonTriggeringExamples {
                let findings = try scan(example, for: rule)
                XCTAssertEqual(findings.map(\.message), [], "\(rule.id): '\(example.title)'")
            }
        }
    }

    func testOversizedSeverityDependsOnZone() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Documents/video.mov"), size: 12_000_000)
        try Fixture.file(dir.sub("Library/Application Support/model.bin"), size: 12_000_000)
        let f = try audit(dir.path).findings.filter { $0.ruleId == "oversized-backed-up-file" }
        XCTAssertEqual(f.map(\.severity), [.warning, .error])
        XCTAssertEqual(f.map(\.size), [12_000_000, 12_000_000])
    }

    func testThresholdsAreSettings() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/Application Support/a.bin"), size: 600_000)
        try Fixture.file(dir.sub("tmp/old"), size: 1, mtimeAgo: 7200)
        var s = RuleSettings()
        XCTAssertTrue(try audit(dir.path, settings: s).findings.isEmpty)
        s.supportDataSize = 500_000
        s.oversizedFileSize = 600_000
        s.staleTemporaryAge = 3600
        let ids = try audit(dir.path, settings: s).findings.map(\.ruleId)
        XCTAssertEqual(ids, ["oversized-backed-up-file", "unexcluded-support-data", "stale-temporary-file"])
    }

    func testMisplacedAtRootReportsSubtreeSize() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Downloads/a"), size: 3000)
        try Fixture.file(dir.sub("Downloads/deep/b"), size: 2000)
        let f = try audit(dir.path).findings.filter { $0.ruleId == "misplaced-at-root" }
        XCTAssertEqual(f.count, 1)
        XCTAssertEqual(f.first?.size, 5000)
        XCTAssertEqual(f.first?.severity, .error)
    }
}
