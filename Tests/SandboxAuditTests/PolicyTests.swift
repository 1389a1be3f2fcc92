import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The policy file, budgets and baselines.
final class PolicyTests: XCTestCase {
    func parse(_ yaml: String) throws -> Policy { try PolicyFile.parse(yaml, source: "p.yml") }

    func assertError(_ yaml: String, _ needles: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(yaml), file: file, line: line) { error in
            let message = (error as? InputError)?.message ?? "\(error)"
            for n in needles { XCTAssertTrue(message.contains(n), "'\(n)' not in: \(message)", file: file, line: line) }
        }
    }

    // MARK: every key

    func testEveryKey() throws {
        let p = try parse(
            """
            failOn: warning
            rules:
              misplaced-at-root: off
              special-file: error
              oversized-backed-up-file: {severity: warning, size: 20MB}
              unexcluded-support-data: {size: 2MiB}
              stale-temporary-file: {age: 12h}
              large-user-defaults: {warningSize: 100kB, errorSize: 1MiB}
              many-backed-up-files: {count: 500, severity: note}
              redundant-exclusion: {severity: off}
            ignore:
              - "Library/WebKit/**"
            paths:
              - path: Library/Application Support/Models
                backup: excluded
              - {path: "Documents/**/*.sqlite", backup: included, maxSize: 50MB}
              - {path: "tmp/**", forbidden: true}
            budgets:
              backup: 25MB
              churn: 5MB
              zones:
                documents: 20MB
                caches: {max: 200MB, measure: size}
              paths:
                - {path: "Library/Application Support/**", max: 5MB}
                - {path: "Library/Caches/Images", max: 1GB, measure: size}
            growth:
              backup: "10%"
              min: 1MB
            """)
        XCTAssertEqual(p.failOn, .warning)
        XCTAssertEqual(p.disabledRules, ["misplaced-at-root", "redundant-exclusion"])
        XCTAssertEqual(
            p.severities, ["special-file": .error, "oversized-backed-up-file": .warning, "many-backed-up-files": .note])
        XCTAssertEqual(p.settings.oversizedFileSize, 20_000_000)
        XCTAssertEqual(p.settings.supportDataSize, 2 * 1_048_576)
        XCTAssertEqual(p.settings.staleTemporaryAge, 12 * 3600)
        XCTAssertEqual(p.settings.userDefaultsWarningSize, 100_000)
        XCTAssertEqual(p.settings.userDefaultsErrorSize, 1_048_576)
        XCTAssertEqual(p.settings.manyFilesThreshold, 500)
        XCTAssertEqual(p.ignore.map(\.pattern), ["Library/WebKit/**"])
        XCTAssertEqual(
            p.paths.map(\.glob.pattern), ["Library/Application Support/Models", "Documents/**/*.sqlite", "tmp/**"])
        XCTAssertEqual(p.paths.map(\.backup), [.excluded, .included, nil])
        XCTAssertEqual(p.paths.map(\.forbidden), [false, false, true])
        XCTAssertEqual(p.paths.map(\.maxSize), [nil, 50_000_000, nil])
        XCTAssertEqual(
            p.budgets.map(\.name),
            [
                "backup footprint", "backup churn", "Documents (backed up)", "Library/Caches (all bytes)",
                "Library/Application Support/** (backed up)", "Library/Caches/Images (all bytes)",
            ])
        XCTAssertEqual(
            p.budgets.map(\.limit), [25_000_000, 5_000_000, 20_000_000, 200_000_000, 5_000_000, 1_000_000_000])
        XCTAssertEqual(p.growth?.percent, 10)
        XCTAssertEqual(p.growth?.minimum, 1_000_000)
        // The starter written by `config init` is a valid policy, and so is an empty file.
        XCTAssertNoThrow(try parse(PolicyFile.starter))
        XCTAssertNil(try parse("").source.map { _ in nil as Int? } ?? nil)
    }

    func testEveryUnit() {
        let cases: [(String, Int64)] = [
            ("512", 512), ("512B", 512), ("1kB", 1000), ("1KB", 1000), ("1.5MB", 1_500_000), ("2GB", 2_000_000_000),
            ("1KiB", 1024), ("1MiB", 1_048_576), ("1GiB", 1_073_741_824), ("0.5 MiB", 524_288), ("25 MB", 25_000_000),
        ]
        for (text, bytes) in cases { XCTAssertEqual(ByteSize.parse(text), bytes, text) }
        for bad in ["", "MB", "-1MB", "10XB", "1TB2", "ten MB"] { XCTAssertNil(ByteSize.parse(bad), bad) }
        XCTAssertEqual(ByteSize.format(18_200_000), "18.2 MB")
        XCTAssertEqual(ByteSize.format(999), "999 B")
        XCTAssertEqual(ByteSize.format(1_000_000_000), "1.00 GB")
    }

    // MARK: errors name file, line and column

    func testConfigErrors() {
        assertError("budget:\n  backup: 1MB\n", ["p.yml:1:1:", "unknown key 'budget'", "did you mean 'budgets'?"])
        assertError(
            "rules:\n  oversized-backed-up-files: off\n",
            ["p.yml:2:3:", "unknown rule 'oversized-backed-up-files'", "did you mean 'oversized-backed-up-file'?"])
        assertError(
            "rules:\n  oversized-backed-up-file: {sise: 1MB}\n",
            ["p.yml:2:30:", "unknown key 'sise'", "did you mean 'size'?"])
        assertError("budgets:\n  backup: 25 megabytes\n", ["p.yml:2:11:", "not a size", "25MB"])
        assertError("rules:\n  special-file: fatal\n", ["p.yml:2:17:", "must be one of off, error, warning, note"])
        assertError("ignore: Library\n", ["p.yml:1:9:", "ignore must be a list"])
        assertError("paths:\n  - path: \"Documents/[abc\"\n    forbidden: true\n", ["p.yml:2:11:", "unclosed '['"])
        assertError(
            "paths:\n  - path: \"Documents/a**\"\n    forbidden: true\n", ["'**' must be a whole path component"])
        assertError("paths:\n  - path: Documents\n", ["p.yml:2:5:", "sets no policy"])
        assertError("paths:\n  - {path: Documents, backup: maybe}\n", ["must be 'excluded' or 'included'"])
        assertError("paths:\n  - {path: Documents, forbidden: sometimes}\n", ["forbidden must be true or false"])
        assertError("growth:\n  backup: 10\n", ["p.yml:2:11:", "not a percentage"])
        assertError("budgets:\n  zones:\n    documentz: 1MB\n", ["p.yml:3:5:", "did you mean 'documents'?"])
        assertError("budgets:\n  zones:\n    caches: {max: 1MB, measure: bytes}\n", ["must be 'backedUp' or 'size'"])
        assertError("rules:\n  stale-temporary-file: {age: soon}\n", ["not an age"])
        assertError("rules:\n  many-backed-up-files: {count: -3}\n", ["not a positive whole number"])
        assertError("failOn: [error]\n", ["p.yml:1:9:", "must be a single value"])
        assertError("rules: [\n", ["p.yml:", "YAML syntax error"])
        assertError("failOn: error\nfailOn: note\n", ["duplicate key"])
    }

    func testDiscoveryAndCLI() throws {
        let dir = try TempDir()
        try Fixture.mkdirs(dir.sub("repo/.git"))
        try Fixture.mkdirs(dir.sub("repo/app/sub"))
        try Fixture.container(at: dir.sub("repo/App"))
        try Fixture.file(dir.sub("repo/App/stray"), size: 10)
        // No policy file anywhere: defaults, not an error.
        XCTAssertNil(PolicyFile.find(from: dir.sub("repo/app/sub")))
        XCTAssertEqual(try CLI.run(["scan", dir.sub("repo/App")], cwd: dir.sub("repo/app/sub")).status, 1)
        // A file at the repository root is found from below; one above the repository is not.
        try "rules:\n  misplaced-at-root: off\n".write(
            toFile: dir.sub("repo/.sandbox-audit.yml"), atomically: true, encoding: .utf8)
        try "rules:\n  misplaced-at-root: error\n".write(
            toFile: dir.sub(".sandbox-audit.yml"), atomically: true, encoding: .utf8)
        XCTAssertEqual(PolicyFile.find(from: dir.sub("repo/app/sub")), dir.sub("repo/.sandbox-audit.yml"))
        let quiet = try CLI.run(["scan", dir.sub("repo/App")], cwd: dir.sub("repo/app/sub"))
        XCTAssertEqual(quiet.status, 0, quiet.stdout)
        XCTAssertTrue(quiet.stdout.contains("policy: \(dir.sub("repo/.sandbox-audit.yml"))"))
        // --config wins; a missing --config is an error; a broken file is exit 2 with file:line:col.
        XCTAssertEqual(
            try CLI.run(
                ["scan", "--config", dir.sub(".sandbox-audit.yml"), dir.sub("repo/App")], cwd: dir.sub("repo/app")
            ).status, 1)
        let missing = try CLI.run(["scan", "--config", dir.sub("nope.yml"), dir.sub("repo/App")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("nope.yml"))
        try "rules:\n  misplaced-at-rot: off\n".write(toFile: dir.sub("bad.yml"), atomically: true, encoding: .utf8)
        let bad = try CLI.run(["scan", "--config", dir.sub("bad.yml"), dir.sub("repo/App")])
        XCTAssertEqual(bad.status, 2)
        XCTAssertEqual(
            bad.stderr,
            "sandbox-audit: error: \(dir.sub("bad.yml")):2:3: unknown rule 'misplaced-at-rot'; did you mean "
                + "'misplaced-at-root'? ('sandbox-audit rules' lists them)\n"
        )
        // The command line wins over the file.
        try "failOn: note\nrules:\n  unexcluded-support-data: {size: 1kB}\n".write(
            toFile: dir.sub("strict.yml"), atomically: true, encoding: .utf8)
        try Fixture.file(dir.sub("repo/App/Library/Application Support/a.bin"), size: 5000)
        let strict = try CLI.scanJSON([
            "--config", dir.sub("strict.yml"), "--fail-on", "error", "--support-data-size", "1MB", dir.sub("repo/App"),
        ])
        XCTAssertFalse(
            (strict.json["findings"] as! [[String: Any]]).contains {
                $0["ruleId"] as? String == "unexcluded-support-data"
            })
        XCTAssertEqual((strict.json["settings"] as! [String: Any])["failOn"] as? String, "error")
    }

    func testConfigInitAndShow() throws {
        let dir = try TempDir()
        try Fixture.mkdirs(dir.sub(".git"))
        let first = try CLI.run(["config", "init"], cwd: dir.path)
        XCTAssertEqual(first.status, 0, first.stderr)
        let written = try String(contentsOfFile: dir.sub(".sandbox-audit.yml"), encoding: .utf8)
        XCTAssertEqual(written, PolicyFile.starter)
        let again = try CLI.run(["config", "init"], cwd: dir.path)
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("refusing to overwrite"))
        XCTAssertEqual(try String(contentsOfFile: dir.sub(".sandbox-audit.yml"), encoding: .utf8), written)
        let show = try CLI.run(["config", "show"], cwd: dir.path)
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains(".sandbox-audit.yml"))
        XCTAssertTrue(show.stdout.contains("budgets: {}"), "the starter sets no budget: \(show.stdout)")
        XCTAssertTrue(show.stdout.contains("misplaced-at-root:\n    severity: error"), show.stdout)
        XCTAssertTrue(show.stdout.contains("age: 3d"), show.stdout)
        // The shown configuration is itself a valid policy file with the same meaning.
        let reparsed = try parse(show.stdout)
        XCTAssertEqual(reparsed.budgets.map(\.limit), [])
        XCTAssertEqual(reparsed.settings.staleTemporaryAge, 3 * 86_400)
    }

    func testIgnoreSuppressesFindingsButKeepsTotals() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/WebKit/big.db"), size: 12_000_000)
        let policy = try parse("ignore:\n  - \"Library/WebKit/**\"\n")
        let r = try audit(dir.path, policy: policy)
        XCTAssertEqual(r.findings.count, 0)
        XCTAssertEqual(r.ignoredFindings, 1)
        XCTAssertEqual(r.inventory.backupFootprint, 12_000_000)
        XCTAssertTrue(
            TextReport(useColor: false).render(ScanReport(r, failOn: .error)).contains(
                "not reported: 1 on ignored paths"))
    }

    // MARK: budgets

    func testEveryBudgetKind() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Documents/a.bin"), size: 3_000_000)
        try Fixture.file(dir.sub("Documents/b.bin"), size: 1_000_000)
        try Fixture.file(dir.sub("Library/Application Support/c.bin"), size: 500_000)
        try Fixture.file(dir.sub("Library/Caches/d.bin"), size: 2_000_000)
        let policy = try parse(
            """
            budgets:
              backup: 5MB
              zones:
                documents: 3.5MB
                caches: {max: 1MB, measure: size}
                applicationSupport: 1MB
              paths:
                - {path: "**/*.bin", max: 4MB}
                - {path: "Library/Caches/**", max: 1MB}
            """)
        let r = try audit(dir.path, policy: policy)
        let byName = Dictionary(uniqueKeysWithValues: r.budgets.map { ($0.budget.name, $0) })
        XCTAssertEqual(byName["backup footprint"]?.measured, 4_500_000)
        XCTAssertEqual(byName["backup footprint"]?.exceeded, false)
        XCTAssertEqual(byName["backup footprint"]?.percent, 90)
        XCTAssertEqual(byName["Documents (backed up)"]?.measured, 4_000_000)
        XCTAssertEqual(byName["Documents (backed up)"]?.overshoot, 500_000)
        XCTAssertEqual(
            byName["Documents (backed up)"]?.contributors.map(\.path.display), ["Documents/a.bin", "Documents/b.bin"])
        XCTAssertEqual(byName["Library/Caches (all bytes)"]?.measured, 2_000_000)
        XCTAssertEqual(byName["Library/Application Support (backed up)"]?.exceeded, false)
        XCTAssertEqual(byName["**/*.bin (backed up)"]?.measured, 4_500_000)
        XCTAssertEqual(byName["Library/Caches/** (backed up)"]?.measured, 0, "backed-up bytes only, by default")
        let exceeded = r.findings.filter { $0.ruleId == "budget-exceeded" }
        XCTAssertEqual(exceeded.map { $0.path?.display }, [nil, nil, nil], "a budget holds the whole app: no path")
        XCTAssertEqual(
            exceeded.map { String($0.message.prefix(while: { $0 != ":" })) },
            ["**/*.bin (backed up)", "Documents (backed up)", "Library/Caches (all bytes)"])
        XCTAssertTrue(
            exceeded[1].message.contains(
                "4.00 MB of 3.50 MB (114%), over by 500 kB; largest: Documents/a.bin (3.00 MB), Documents/b.bin "
                    + "(1.00 MB)"
            ), exceeded[1].message)

        let text = TextReport(useColor: false).render(ScanReport(r, failOn: .error))
        XCTAssertTrue(text.contains("4.50 MB of 5.00 MB, 90%"), text)
        XCTAssertTrue(text.contains("EXCEEDED by 500 kB"), text)
        let json = JSONReport.scan(ScanReport(r, failOn: .error))
        let parsed = try JSONSerialization.jsonObject(with: Data(json.compact.utf8)) as! [String: Any]
        let budgets = parsed["budgets"] as! [[String: Any]]
        XCTAssertEqual(budgets.count, 6)
        XCTAssertEqual(budgets[0]["percent"] as? Double, 90)
        XCTAssertEqual(budgets[0]["exceeded"] as? Bool, false)
    }

    // MARK: baselines

    /// Copies a tree keeping modification times and attributes (what moving a container does).
    func copy(_ from: String, _ to: String) throws {
        let p = try Process.run(URL(fileURLWithPath: "/bin/cp"), arguments: ["-a", from, to])
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }

    func makeRelease(_ root: String) throws {
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 1000)
        try Fixture.file(root + "/Library/Application Support/index.db", size: 2_000_000)
        try Fixture.file(root + "/Library/Application Support/Cache/a.bin", size: 4_000_000)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/Cache",
            carrier: .native)
        try Fixture.file(root + "/stray.log", size: 50)
        for p in [
            "Documents/notes.txt", "Library/Application Support/index.db", "Library/Application Support/Cache/a.bin",
            "stray.log",
        ] {
            try Fixture.setAge(root + "/" + p, 86_400)
        }
    }

    func testBaselineRoundTripOnAMovedCopyHasNoSpuriousFindings() throws {
        let dir = try TempDir()
        try makeRelease(dir.sub("v1"))
        let write = try CLI.run(["scan", "--write-baseline", dir.sub("baseline.json"), dir.sub("v1")])
        XCTAssertEqual(write.status, 0, "written: exit 0, though the stray file is an error")
        let baselineText = try String(contentsOfFile: dir.sub("baseline.json"), encoding: .utf8)
        XCTAssertFalse(baselineText.contains(dir.path), "no absolute paths in a baseline")
        // Refuses to overwrite without --force.
        XCTAssertEqual(try CLI.run(["scan", "--write-baseline", dir.sub("baseline.json"), dir.sub("v1")]).status, 2)
        XCTAssertEqual(
            try CLI.run(["scan", "--write-baseline", dir.sub("baseline.json"), "--force", dir.sub("v1")]).status, 0)

        try copy(dir.sub("v1"), dir.sub("moved"))
        let p = try Process.run(URL(fileURLWithPath: "/bin/mv"), arguments: [dir.sub("moved"), dir.sub("elsewhere")])
        p.waitUntilExit()
        let (json, r) = try CLI.scanJSON(["--baseline", dir.sub("baseline.json"), dir.sub("elsewhere")])
        XCTAssertEqual(r.status, 0, "known findings are suppressed: \(r.stdout)")
        XCTAssertEqual((json["findings"] as! [[String: Any]]).count, 0)
        let b = json["baseline"] as! [String: Any]
        XCTAssertEqual(b["suppressedFindings"] as? Int, 2, "the stray file and the unexcluded index")
        XCTAssertEqual(b["backupFootprintDelta"] as? Int, 0)
        XCTAssertEqual(b["churn"] as? Int, 0)
        XCTAssertEqual(b["addedCount"] as? Int, 0)
        XCTAssertEqual(b["removedCount"] as? Int, 0)
        XCTAssertEqual(b["grewCount"] as? Int, 0)
        XCTAssertEqual((json["summary"] as! [String: Any])["baselineFindings"] as? Int, 2)
        // A baseline written from the moved copy is byte-identical but for the inodes (the copy's
        // file system's): stable across places.
        XCTAssertEqual(
            try CLI.run(["scan", "--write-baseline", dir.sub("again.json"), dir.sub("elsewhere")]).status, 0)
        let inode = try NSRegularExpression(pattern: #""inode"\s*:\s*[0-9]+"#)
        func withoutInodes(_ text: String) -> String {
            inode.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "\"inode\": N")
        }
        let again = try String(contentsOfFile: dir.sub("again.json"), encoding: .utf8)
        XCTAssertEqual(withoutInodes(again), withoutInodes(baselineText))
        XCTAssertEqual(
            inode.numberOfMatches(in: baselineText, range: NSRange(baselineText.startIndex..., in: baselineText)), 4,
            "one inode per file")
    }
}
