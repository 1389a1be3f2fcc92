import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

extension PolicyTests {
    func testDeltasChurnAndGrowth() throws {
        let dir = try TempDir()
        try makeRelease(dir.sub("v1"))
        let baseline = Baseline(try audit(dir.sub("v1")))
        try copy(dir.sub("v1"), dir.sub("v2"))
        let v2 = dir.sub("v2")
        // Next release: the index grows by 1.5 MB, a new 700 kB file, notes rewritten (same size,
        // new mtime), the excluded cache grows (not churn), a new finding, stray.log removed.
        try Fixture.file(v2 + "/Library/Application Support/index.db", size: 3_500_000)
        try Fixture.file(v2 + "/Documents/photo.jpg", size: 700_000)
        try Fixture.file(v2 + "/Documents/notes.txt", size: 1000)
        try Fixture.file(v2 + "/Library/Application Support/Cache/a.bin", size: 9_000_000)
        XCTAssertEqual(unlink(v2 + "/stray.log"), 0)
        try Fixture.file(v2 + "/Downloads/x", size: 10)

        let policy = try parse("growth:\n  backup: \"10%\"\n  min: 1MB\nbudgets:\n  churn: 2MB\n")
        let r = try audit(v2, policy: policy, baseline: baseline)
        let c = try XCTUnwrap(r.comparison)
        // Items at the data root (stray.log, Downloads/x) are never backed up.
        XCTAssertEqual(c.footprintBefore, 2_001_000)
        XCTAssertEqual(c.footprintAfter, 3_500_000 + 700_000 + 1000)
        XCTAssertEqual(c.added.map(\.path.display), ["Documents/photo.jpg", "Downloads/x"])
        XCTAssertEqual(c.removed.map(\.path.display), ["stray.log"])
        XCTAssertEqual(
            c.grew.map(\.path.display),
            ["Library/Application Support/Cache/a.bin", "Library/Application Support/index.db"])
        XCTAssertEqual(c.grew.map(\.delta), [5_000_000, 1_500_000])
        // Churn: backed-up files new or changed: index.db, photo.jpg, notes.txt (new mtime).
        XCTAssertEqual(c.churn, 3_500_000 + 700_000 + 1000)
        XCTAssertEqual(c.zones.first { $0.zone == .applicationSupport }.map { $0.after - $0.before }, 1_500_000)
        // Growth: allowance max(10% of 2,001,000, 1 MB) = 1 MB; grew by 2,200,000.
        let growth = try XCTUnwrap(r.budgets.first { $0.budget.scope == .growth })
        XCTAssertEqual(growth.limit, 1_000_000)
        XCTAssertEqual(growth.measured, 2_200_000)
        XCTAssertTrue(growth.exceeded)
        let churn = try XCTUnwrap(r.budgets.first { $0.budget.scope == .churn })
        XCTAssertEqual(churn.overshoot, c.churn - 2_000_000)
        XCTAssertEqual(r.findings.filter { $0.ruleId == "budget-exceeded" }.count, 2)
        // Only the new finding is reported; the old one (stray.log) is gone anyway.
        XCTAssertEqual(r.findings.filter { $0.ruleId == "misplaced-at-root" }.map { $0.path?.display }, ["Downloads"])
        let text = TextReport(useColor: false).render(ScanReport(r, failOn: .error))
        XCTAssertTrue(text.contains("since the baseline: backup footprint 2.00 MB → 4.20 MB (+2.20 MB)"), text)
        XCTAssertTrue(text.contains("churn: 4.20 MB"), text)
    }

    func testGrowthFloorAndNoBaseline() throws {
        XCTAssertEqual(GrowthBudget(percent: 10, minimum: 1_000_000).allowance(baseline: 50_000_000), 5_000_000)
        XCTAssertEqual(GrowthBudget(percent: 10, minimum: 1_000_000).allowance(baseline: 2_000_000), 1_000_000)
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        let r = try audit(dir.path, policy: try parse("growth: {backup: \"5%\"}\nbudgets: {churn: 1MB}\n"))
        XCTAssertEqual(r.budgets.map(\.measured), [nil, nil], "churn and growth need a baseline")
        XCTAssertTrue(
            TextReport(useColor: false).render(ScanReport(r, failOn: .error)).contains("not measured: needs --baseline")
        )
    }

    func testBadBaselineFiles() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try "{}".write(toFile: dir.sub("x.json"), atomically: true, encoding: .utf8)
        XCTAssertEqual(mkfifo(dir.sub("fifo.json"), 0o644), 0)
        for (file, needle) in [
            (dir.sub("x.json"), "not a sandbox-audit baseline"),
            (dir.sub("missing.json"), "cannot read baseline \(dir.sub("missing.json")): No such file or directory"),
            (dir.path, "cannot read baseline \(dir.path): is a directory"),
            // Opened non-blocking: a FIFO never hangs the scan.
            (dir.sub("fifo.json"), "cannot read baseline \(dir.sub("fifo.json")): is not a regular file"),
        ] {
            let r = try CLI.run(["scan", "--baseline", file, dir.path])
            XCTAssertEqual(r.status, 2)
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }

    func testGlobSemantics() throws {
        func m(_ g: String, _ p: String) throws -> Bool { try Glob(g).matches(ContainerPath(p)) }
        XCTAssertTrue(try m("Documents/*.sqlite", "Documents/a.sqlite"))
        XCTAssertFalse(try m("Documents/*.sqlite", "Documents/x/a.sqlite"))
        XCTAssertTrue(try m("Documents/**/*.sqlite", "Documents/a.sqlite"))
        XCTAssertTrue(try m("Documents/**/*.sqlite", "Documents/x/y/a.sqlite"))
        XCTAssertTrue(try m("**/Cache.db", "Library/Caches/com.x/Cache.db"))
        XCTAssertTrue(try m("tmp/**", "tmp/a/b"))
        XCTAssertFalse(try m("tmp/**", "tmp"), "a trailing ** is what is inside")
        XCTAssertTrue(try m("Documents/file?.txt", "Documents/file1.txt"))
        XCTAssertTrue(try m("Documents/[a-c]*", "Documents/beta"))
        XCTAssertFalse(try m("Documents/[!a-c]*", "Documents/beta"))
        XCTAssertTrue(try m("/Documents", "Documents"))
        XCTAssertTrue(
            try Glob("Library/Application Support/Models").covers(
                ContainerPath("Library/Application Support/Models/x/y.bin")))
    }
}
