import Foundation
import XCTest

/// Costs linear in the input, for the surfaces last added (issue 45): `suppress:` entries
/// indexed as globs are, a backup domain named with many dot-separated parts, and `trend`'s
/// per-path figures kept sparse. Each case was quadratic before; the bounds are docs/limits.md's.
final class LinearCostTests: XCTestCase {
    /// 20,000 findings and 1,000 `suppress:` entries (990 naming one file each, 10 with a
    /// wildcard): each finding is matched against the entries that can cover it, not against
    /// every entry (20,000 × 1,000 comparisons took 8.7 s in a release build).
    func testSuppressionsAreIndexed() throws {
        let dir = try TempDir("supcost")
        try python(
            """
            import os, time
            old = time.time() - 30 * 86400
            os.makedirs("app/Documents"); os.makedirs("app/Library/Caches")
            for d in range(20):
                os.makedirs("app/tmp/d%02d" % d)
                for f in range(1000):
                    p = "app/tmp/d%02d/f%04d" % (d, f)
                    open(p, "w").close(); os.utime(p, (old, old))
            with open("policy.yml", "w") as out:
                out.write("suppress:\\n")
                for i in range(990):
                    out.write("  - {rule: stale-temporary-file, path: tmp/d%02d/f%04d, reason: known}\\n" % (i % 20, i))
                for i in range(10):
                    out.write("  - {rule: stale-temporary-file, path: 'tmp/d%02d/x*', reason: none match}\\n" % i)
            """, in: dir.path)
        let run = try Measured.run(["scan", dir.sub("app"), "--config", dir.sub("policy.yml"), "--format", "json"])
        XCTAssertEqual(run.result.status, 0, "warnings only: \(run.result.stderr)")
        let json = try JSONSerialization.jsonObject(with: run.result.stdoutBytes) as! [String: Any]
        XCTAssertEqual((json["suppressed"] as? [[String: Any]])?.count, 990)
        XCTAssertEqual(
            (json["findings"] as! [[String: Any]]).filter { $0["ruleId"] as? String == "stale-temporary-file" }.count,
            19_010)
        print("suppress: 20,000 findings, 1,000 entries: \(run.seconds) s, \(run.peakMB) MB")
        XCTAssertLessThan(run.seconds, 20, "20,000 findings × 1,000 entries")
    }

    /// One extension domain named `APP.a.a.a…` of 400 kB: its owner is looked for among the
    /// installed apps' identifiers by length, not by hashing every dot-prefix (21-33 s before).
    func testALongDotSeparatedDomainNameCostsItsLength() throws {
        let dir = try TempDir("dots")
        try Tool.require("python3", for: "writes the backup (scripts/bench/make-domains.py)")
        try sh("python3 '\(PluginTests.repository)/scripts/bench/make-domains.py' b 1 --long 400000", in: dir.path)
        for args in [["scan", dir.sub("b"), "--app", "com.example.bench"], ["apps", dir.sub("b")]] {
            let run = try Measured.run(args)
            XCTAssertEqual(run.result.status, 0, "\(args): \(run.result.stderr)")
            print("\(args[0]) of a 400 kB dot-separated domain: \(run.seconds) s, \(run.peakMB) MB")
            XCTAssertLessThan(run.seconds, 10, args[0])
        }
    }

    /// `trend` over 300 baselines that each name 200 paths no other names: memory follows the
    /// paths the files hold (60,000), never paths × points (18,000,000 figures before).
    func testTrendMemoryFollowsTheInput() throws {
        let dir = try TempDir("trendcost")
        let sample = PluginTests.repository + "/sample-containers/WellBehaved"
        XCTAssertEqual(try CLI.run(["scan", sample, "--write-baseline", dir.sub("base.json")]).status, 0)
        try python(
            """
            import json, copy
            base = json.load(open("base.json")); tmpl = base["files"][0]
            for i in range(300):
                d = copy.deepcopy(base); files = []
                for j in range(200):
                    f = dict(tmpl); f["path"] = "Documents/p%03d/f%03d.bin" % (i, j); f["size"] = 1000 + j; f["inode"] \
            = i * 1000 + j
                    files.append(f)
                f = dict(tmpl); f["path"] = "Library/grows.db"; f["size"] = 1000 * (i + 1); f["inode"] = 999999; \
            files.append(f)
                d["files"] = sorted(files, key=lambda f: f["path"].encode())
                json.dump(d, open("b%03d.json" % i, "w"))
            """, in: dir.path)
        let files = (0..<300).map { dir.sub(String(format: "b%03d.json", $0)) }
        let run = try Measured.run(["trend", "--format", "json"] + files)
        XCTAssertEqual(run.result.status, 0, run.result.stderr)
        let json = try JSONSerialization.jsonObject(with: run.result.stdoutBytes) as! [String: Any]
        let flagged = json["grewEveryStep"] as! [[String: Any]]
        XCTAssertEqual(flagged.map { $0["path"] as? String }, ["Library/grows.db"])
        XCTAssertEqual(
            json["grewCount"] as? Int, 401, "the first point's 200 paths, the last's 200, and the one that grew")
        print("trend of 300 baselines, 60,000 paths: \(run.seconds) s, \(run.peakMB) MB")
        XCTAssertLessThan(run.peakMB, 200)
    }
}
