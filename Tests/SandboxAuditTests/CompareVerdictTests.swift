import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// `compare` in a pull request: the verdict of `--fail-on-growth` in every format, unchanged
/// rows folded, owners from scan reports' owner totals, two different apps refused, and the
/// HTML report linked. Real containers scanned by the built binary.
final class CompareVerdictTests: XCTestCase {
    /// The base and head containers of `CompareTests` (the head's Firebase folder grew by 2.98 MB
    /// and it gained a 700 kB Realm file; Caches unchanged), each scanned to a baseline and a scan report.
    func scan(in dir: TempDir) throws { try CompareTests.scanBaseAndHead(in: dir) }

    func json(_ r: CLI.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any], r.stdout + r.stderr)
    }

    /// The footprint grew 3.68 MB: against 1 MB every format says FAILED with both figures; against 5 MB, PASSED.
    func testTheVerdictOfFailOnGrowthInEveryFormat() throws {
        let dir = try TempDir()
        try scan(in: dir)
        let files = ["compare", dir.sub("base-baseline.json"), dir.sub("head-baseline.json")]
        let failed = try CLI.run(files + ["--fail-on-growth", "1MB"])
        XCTAssertEqual(failed.status, 1, failed.stderr)
        XCTAssertTrue(
            failed.stdout.contains("backup footprint grew 3.68 MB, more than the 1.00 MB allowed — FAILED"),
            failed.stdout)
        let md = try CLI.run(files + ["--fail-on-growth", "1MB", "--format", "markdown"])
        XCTAssertEqual(md.status, 1)
        XCTAssertTrue(
            md.stdout.contains(
                "| ❌ | +3.68 MB | 1.00 MB | backup footprint grew 3.68 MB, more than the 1.00 MB allowed — "
                    + "FAILED |"),
            md.stdout)
        XCTAssertTrue(md.stdout.hasPrefix("## sandbox-audit: backup footprint +3.68 MB 📈 ❌"), md.stdout)
        let j = try CLI.run(files + ["--fail-on-growth", "1MB", "--format", "json"])
        XCTAssertEqual(j.status, 1)
        let check = try XCTUnwrap(try json(j)["growthCheck"] as? [String: Any])
        XCTAssertEqual(check["limit"] as? Int, 1_000_000)
        XCTAssertEqual(check["growth"] as? Int, 3_680_000)
        XCTAssertEqual(check["verdict"] as? String, "failed")

        let passed = try CLI.run(files + ["--fail-on-growth", "5MB"])
        XCTAssertEqual(passed.status, 0, passed.stderr)
        XCTAssertTrue(
            passed.stdout.contains(
                "backup footprint grew 3.68 MB, within the 5.00 MB allowed — "
                    + "PASSED"), passed.stdout)
        let mdPassed = try CLI.run(files + ["--fail-on-growth", "5MB", "--format", "markdown"])
        XCTAssertTrue(mdPassed.stdout.contains("| ✅ | +3.68 MB | 5.00 MB |"), mdPassed.stdout)
        let passedJSON = try json(CLI.run(files + ["--fail-on-growth", "5MB", "--format", "json"]))
        XCTAssertEqual((passedJSON["growthCheck"] as? [String: Any])?["verdict"] as? String, "passed")
        // Shrinking passes and says so.
        let shrank = try CLI.run([
            "compare", dir.sub("head-baseline.json"), dir.sub("base-baseline.json"), "--fail-on-growth", "0",
        ])
        XCTAssertEqual(shrank.status, 0)
        XCTAssertTrue(shrank.stdout.contains("backup footprint shrank 3.68 MB (0 B allowed) — PASSED"), shrank.stdout)
        // Without the option there is no verdict, and JSON says null.
        XCTAssertFalse(try CLI.run(files).stdout.contains("PASSED"))
        XCTAssertTrue(try json(CLI.run(files + ["--format", "json"]))["growthCheck"] is NSNull)
    }

    /// `Library/Caches 0 B → 0 B ±0` is folded and counted; --show-unchanged lists it.
    func testUnchangedRowsAreFoldedUnlessAsked() throws {
        let dir = try TempDir()
        try scan(in: dir)
        let files = ["compare", dir.sub("base-baseline.json"), dir.sub("head-baseline.json")]
        for format in ["text", "markdown"] {
            let folded = try CLI.run(files + ["--format", format]).stdout
            XCTAssertFalse(folded.contains("Library/Caches"), "\(format): \(folded)")
            XCTAssertTrue(folded.contains("1 unchanged row folded (--show-unchanged lists it)"), "\(format): \(folded)")
            XCTAssertTrue(folded.contains("Library/Application Support"), "a changed zone stays: \(folded)")
            let all = try CLI.run(files + ["--format", format, "--show-unchanged"]).stdout
            XCTAssertTrue(all.contains("Library/Caches"), "\(format): \(all)")
            XCTAssertFalse(all.contains("unchanged row"), all)
        }
        // JSON is for programs: every row, changed or not.
        let zones = try XCTUnwrap(try json(CLI.run(files + ["--format", "json"]))["zones"] as? [[String: Any]])
        XCTAssertTrue(zones.contains { $0["zone"] as? String == "caches" })
    }

    /// Scan reports carry each domain's owner totals: compare gives owners from them.
    func testScanReportsCompareOwnersFromTheirOwnerTotals() throws {
        let dir = try TempDir()
        try scan(in: dir)
        let head = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("head.json"))))
                as? [String: Any])
        let domain = try XCTUnwrap((head["domains"] as? [[String: Any]])?.first)
        guard domain["owners"] != nil else { throw XCTSkip("this build's scan report has no owner totals") }
        let r = try CLI.run(["compare", dir.sub("base.json"), dir.sub("head.json"), "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let j = try json(r)
        let owners = try XCTUnwrap(j["owners"] as? [[String: Any]], "\(j)")
        func figure(_ owner: String?, _ key: String) -> Int? {
            ((owners.first { ($0["owner"] as? String) == owner })?["backupFootprint"] as? [String: Any])?[key] as? Int
        }
        XCTAssertEqual(figure("Firebase", "delta"), 2_980_000, "\(owners)")
        XCTAssertEqual(figure("Realm", "before"), nil, "\(owners)")
        XCTAssertEqual(figure("Realm", "after"), 700_000, "\(owners)")
        XCTAssertTrue(j["ownersUnavailable"] is NSNull)
        let text = try CLI.run(["compare", dir.sub("base.json"), dir.sub("head.json")]).stdout
        XCTAssertTrue(text.contains("\nBy owner:\n  Firebase\n      backup 20.0 kB → 3.00 MB (+2.98 MB)"), text)
        // A scan report against a baseline: owners from each.
        let mixed = try json(
            CLI.run(["compare", dir.sub("base.json"), dir.sub("head-baseline.json"), "--format", "json"]))
        XCTAssertNotNil(mixed["owners"] as? [[String: Any]], "\(mixed)")
        // A report without owner totals says which side lacks them.
        var stripped = head
        stripped["domains"] = (head["domains"] as? [[String: Any]] ?? []).map {
            var d = $0
            d.removeValue(forKey: "owners")
            return d
        }
        try JSONSerialization.data(withJSONObject: stripped).write(to: URL(fileURLWithPath: dir.sub("old.json")))
        let old = try json(CLI.run(["compare", dir.sub("base.json"), dir.sub("old.json"), "--format", "json"]))
        XCTAssertTrue(old["owners"] is NSNull)
        XCTAssertEqual(
            old["ownersUnavailable"] as? String,
            "HEAD is a scan report without owner totals (domains[].owners, written by sandbox-audit versions that "
                + "attribute paths to owners)"
        )
    }

    /// Two different apps: one line naming both, exit 2; --allow-different-apps makes it a note.
    func testTwoDifferentAppsAreRefusedUnlessAllowed() throws {
        let dir = try TempDir()
        for (name, id) in [("a.json", "com.example.one"), ("b.json", "com.example.two")] {
            let object: [String: Any] = [
                "schemaVersion": 3, "kind": "sandbox-audit-baseline", "container": ["bundleIdentifier": id],
                "backupFootprint": 10,
                "files": [["path": "Documents/a", "size": 10, "mtime": 0, "zone": "documents", "backedUp": true]],
            ]
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: dir.sub(name)))
        }
        let r = try CLI.run(["compare", dir.sub("a.json"), dir.sub("b.json")])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(
            r.stderr,
            "sandbox-audit: error: BASE \(dir.sub("a.json")) is com.example.one and HEAD \(dir.sub("b.json")) is "
                + "com.example.two: two different apps; --allow-different-apps compares them anyway\n"
        )
        let allowed = try CLI.run(["compare", dir.sub("a.json"), dir.sub("b.json"), "--allow-different-apps"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(
            allowed.stdout.contains(
                "note: BASE \(dir.sub("a.json")) is com.example.one and HEAD \(dir.sub("b.json")) is "
                    + "com.example.two: two different apps (--allow-different-apps)"
            ), allowed.stdout)
        // One app on both sides: no note.
        XCTAssertFalse(
            try CLI.run(["compare", dir.sub("a.json"), dir.sub("a.json")]).stdout.contains("different apps"))
    }

    /// --report-url links the HTML report in every format; anything but an http(s) URL is refused.
    func testReportURLIsLinked() throws {
        let dir = try TempDir()
        try scan(in: dir)
        let url = "https://github.com/example/app/actions/runs/1/artifacts/2"
        let files = ["compare", dir.sub("base-baseline.json"), dir.sub("head-baseline.json"), "--report-url", url]
        XCTAssertTrue(try CLI.run(files).stdout.contains("  report: \(url)\n"))
        XCTAssertTrue(
            try CLI.run(files + ["--format", "markdown"]).stdout.contains(
                "[The HEAD scan's full report (HTML)](\(url))"))
        XCTAssertEqual(try json(CLI.run(files + ["--format", "json"]))["reportURL"] as? String, url)
        // Characters that would end the Markdown link are escaped.
        let odd = try CLI.run([
            "compare", dir.sub("base-baseline.json"), dir.sub("head-baseline.json"), "--format", "markdown",
            "--report-url", "https://e.example/a)b](c",
        ])
        XCTAssertTrue(odd.stdout.contains("(https://e.example/a%29b%5D%28c)"), odd.stdout)
        for bad in ["javascript:alert(1)", "https://e.example/a b", "report.html"] {
            let r = try CLI.run([
                "compare", dir.sub("base-baseline.json"), dir.sub("head-baseline.json"), "--report-url", bad,
            ])
            XCTAssertEqual(r.status, 2, bad)
            XCTAssertTrue(r.stderr.contains("is not an http or https URL"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }
}
