import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// `trend` over five baselines of a real container whose SQLite `-wal` grows at every step,
/// each recorded by the built binary after the growth.
final class TrendTests: XCTestCase {
    static let wal = "Library/Application Support/db.sqlite-wal"

    /// Five points: the `-wal` is 100 kB, 200 kB … 500 kB; the database, a document and a cache stay.
    /// Each point is a baseline (`b1.json` …) and a scan report (`r1.json` …).
    func record(in dir: TempDir) throws {
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Application Support/db.sqlite", size: 40_000)
        try Fixture.file(root + "/Documents/notes.md", size: 40)
        try Fixture.file(root + "/Library/Caches/thumbs.bin", size: 5_000)
        for i in 1...5 {
            try Fixture.file(root + "/" + Self.wal, size: i * 100_000)
            let r = try CLI.run([
                "scan", root, "--write-baseline", dir.sub("b\(i).json"), "--output", "json=" + dir.sub("r\(i).json"),
            ])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
    }

    func baselines(_ dir: TempDir) -> [String] { (1...5).map { dir.sub("b\($0).json") } }

    func testTheGrowingWALIsFlaggedWithItsGrowthPerStepInEveryFormat() throws {
        let dir = try TempDir()
        try record(in: dir)
        let files = ["trend"] + baselines(dir)

        let text = try CLI.run(files)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("Grew at every step (grows-every-step): 1\n"), text.stdout)
        XCTAssertTrue(
            text.stdout.contains(
                "  \(Self.wal): 100 kB → 200 kB → 300 kB → 400 kB → 500 kB; per step +100 kB, +100 kB, +100 "
                    + "kB, +100 "
                    + "kB (backed up)"
            ), text.stdout)
        XCTAssertTrue(text.stdout.contains("likely a SQLite write-ahead log that no checkpoint resets"), text.stdout)
        XCTAssertTrue(text.stdout.contains("https://sqlite.org/wal.html"), text.stdout)
        XCTAssertTrue(
            text.stdout.contains(
                "Whole app: 140 kB → 240 kB → 340 kB → 440 kB → 540 kB\n  per step: +100 kB, +100 kB, +100 kB, "
                    + "+100 kB"),
            text.stdout)
        XCTAssertFalse(text.stdout.contains("Library/Caches"), "an unchanged zone is folded: \(text.stdout)")

        let md = try CLI.run(files + ["--format", "markdown"])
        XCTAssertEqual(md.status, 0, md.stderr)
        XCTAssertTrue(
            md.stdout.contains(
                "- **\(Self.wal)**: 100 kB → 200 kB → 300 kB → 400 kB → 500 kB; per step +100 kB, +100 kB, "
                    + "+100 kB, "
                    + "+100 kB (backed up). Likely a SQLite write-ahead log"
            ), md.stdout)
        XCTAssertTrue(
            md.stdout.contains(
                "| **Whole app** | 140 kB | 240 kB | 340 kB | 440 kB | 540 kB | +100 kB, +100 kB, +100 kB, +100 kB |"),
            md.stdout)

        let j = try CLI.run(files + ["--format", "json"])
        XCTAssertEqual(j.status, 0, j.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: j.stdoutBytes) as? [String: Any])
        XCTAssertEqual(json["schemaVersion"] as? Int, 1)
        XCTAssertEqual(json["kind"] as? String, "sandbox-audit-trend")
        XCTAssertEqual(json["grewEveryStepCount"] as? Int, 1)
        let flagged = try XCTUnwrap((json["grewEveryStep"] as? [[String: Any]])?.first)
        XCTAssertEqual(flagged["path"] as? String, Self.wal)
        XCTAssertEqual(flagged["values"] as? [Int], [100_000, 200_000, 300_000, 400_000, 500_000])
        XCTAssertEqual(flagged["steps"] as? [Int], [100_000, 100_000, 100_000, 100_000])
        XCTAssertEqual(flagged["cause"] as? String, "sqliteWAL")
        XCTAssertEqual(flagged["zone"] as? String, "applicationSupport")
        XCTAssertEqual(flagged["backedUp"] as? Bool, true)
        XCTAssertEqual((json["total"] as? [String: Any])?["steps"] as? [Int], [100_000, 100_000, 100_000, 100_000])
        let domains = try XCTUnwrap(json["domains"] as? [[String: Any]])
        XCTAssertEqual(domains.count, 1)
        XCTAssertEqual(domains[0]["growth"] as? Int, 400_000)
        XCTAssertEqual((json["rule"] as? [String: Any])?["id"] as? String, "grows-every-step")
        // The database that did not change is not flagged, nor in the grown list.
        XCTAssertEqual((json["grewMost"] as? [[String: Any]])?.map { $0["path"] as? String }, [Self.wal])

        let html = try CLI.run(files + ["--format", "html"])
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertTrue(html.stdout.contains("<code>\(Self.wal)</code>"), html.stdout)
        XCTAssertTrue(html.stdout.contains("per step +100 kB, +100 kB, +100 kB, +100 kB"))
        XCTAssertTrue(html.stdout.contains("<polyline points="), "a line chart")
        XCTAssertFalse(html.stdout.contains("<script"), "no script at all")
        XCTAssertFalse(html.stdout.contains(" src="), "nothing loaded from elsewhere")
        // A chart per domain (and per owner when the baselines name owners).
        XCTAssertTrue(html.stdout.contains("aria-label=\"AppDomain-"), html.stdout)
    }

    func testFailOnGrowthPerStep() throws {
        let dir = try TempDir()
        try record(in: dir)
        let files = ["trend"] + baselines(dir)
        let failed = try CLI.run(files + ["--fail-on-growth-per-step", "50kB"])
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(
            failed.stdout.contains(
                "backup footprint grew at most 100 kB in one step (step 1, file 1 → 2), more than the 50.0 kB "
                    + "allowed per step — FAILED"
            ), failed.stdout)
        let md = try CLI.run(files + ["--fail-on-growth-per-step", "50kB", "--format", "markdown"])
        XCTAssertTrue(md.stdout.contains("| ❌ | +100 kB | 50.0 kB |"), md.stdout)
        let j = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: CLI.run(files + ["--fail-on-growth-per-step", "50kB", "--format", "json"]).stdoutBytes)
                as? [String: Any])
        let check = try XCTUnwrap(j["growthPerStepCheck"] as? [String: Any])
        XCTAssertEqual(check["limit"] as? Int, 50_000)
        XCTAssertEqual(check["growth"] as? Int, 100_000)
        XCTAssertEqual(check["verdict"] as? String, "failed")
        let passed = try CLI.run(files + ["--fail-on-growth-per-step", "100kB"])
        XCTAssertEqual(passed.status, 0, "grew by exactly the limit: not more")
        XCTAssertTrue(passed.stdout.contains("— PASSED"), passed.stdout)
        XCTAssertTrue(
            try CLI.run(files + ["--fail-on-growth-per-step", "100kB", "--format", "html"]).stdout.contains(
                "class=\"verdict pass\""))
    }

    /// Scan reports give the totals, domains, zones and owners, and say paths need baselines.
    func testScanReportsGiveTotalsAndSayPathsNeedBaselines() throws {
        let dir = try TempDir()
        try record(in: dir)
        let r = try CLI.run(["trend"] + (1...5).map { dir.sub("r\($0).json") } + ["--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let j = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        XCTAssertEqual(
            (j["total"] as? [String: Any])?["values"] as? [Int], [140_040, 240_040, 340_040, 440_040, 540_040])
        XCTAssertEqual(
            (j["pathsUnavailable"] as? String),
            "file 1, 2, 3, 4, 5 are scan reports, which record no per-path sizes; record baselines (scan "
                + "--write-baseline) to follow paths"
        )
        let text = try CLI.run(["trend"] + (1...5).map { dir.sub("r\($0).json") }).stdout
        XCTAssertTrue(
            text.contains("Grew at every step (grows-every-step): not checked: file 1, 2, 3, 4, 5 are scan reports"),
            text)
    }

    func testBadInvocationsExitTwoWithOneLine() throws {
        let dir = try TempDir()
        try record(in: dir)
        let one = try CLI.run(["trend", dir.sub("b1.json")])
        XCTAssertEqual(one.status, 2)
        XCTAssertEqual(one.stderr, "sandbox-audit: error: trend needs at least two files, in order (got 1)\n")
        let missing = try CLI.run(["trend", dir.sub("b1.json"), dir.sub("nope.json")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("cannot read file 2 \(dir.sub("nope.json"))"), missing.stderr)
        // Another app among the files.
        var other = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("b2.json"))))
                as? [String: Any])
        other["container"] = ["bundleIdentifier": "com.example.other"]
        var first = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("b1.json"))))
                as? [String: Any])
        first["container"] = ["bundleIdentifier": "com.example.app"]
        try JSONSerialization.data(withJSONObject: first).write(to: URL(fileURLWithPath: dir.sub("app.json")))
        try JSONSerialization.data(withJSONObject: other).write(to: URL(fileURLWithPath: dir.sub("other.json")))
        let mixed = try CLI.run(["trend", dir.sub("app.json"), dir.sub("other.json")])
        XCTAssertEqual(mixed.status, 2)
        XCTAssertTrue(
            mixed.stderr.contains(
                "is com.example.app and file 2 \(dir.sub("other.json")) is com.example.other: two different apps"),
            mixed.stderr)
        XCTAssertEqual(
            try CLI.run(["trend", dir.sub("app.json"), dir.sub("other.json"), "--allow-different-apps"]).status, 0)
    }

    /// The HTML page renders offline in headless Chromium: a screenshot of it is a real image.
    func testTheHTMLRendersOfflineInChromium() throws {
        let chromium = try Tool.chromium(for: "the trend page is rendered in headless Chromium")
        let dir = try TempDir()
        try record(in: dir)
        let html = try CLI.run(["trend"] + baselines(dir) + ["--format", "html"])
        try Data(html.stdoutBytes).write(to: URL(fileURLWithPath: dir.sub("trend.html")))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: chromium)
        // No network: a proxy that does not exist makes any request fail (and be logged).
        p.arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9", "--window-size=1200,1600",
            "--screenshot=" + dir.sub("trend.png"), "file://" + dir.sub("trend.html"),
        ]
        _ = FileManager.default.createFile(atPath: dir.sub("chromium.log"), contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.sub("chromium.log")))
        p.standardOutput = log
        p.standardError = log
        try p.run()
        p.waitUntilExit()
        try log.close()
        let logged = (try? String(contentsOfFile: dir.sub("chromium.log"), encoding: .utf8)) ?? ""
        XCTAssertEqual(p.terminationStatus, 0, logged)
        let png = try Data(contentsOf: URL(fileURLWithPath: dir.sub("trend.png")))
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
        XCTAssertGreaterThan(png.count, 20_000, "the page drew more than a blank screen")
        XCTAssertFalse(logged.contains("ERR_"), logged)
    }
}
