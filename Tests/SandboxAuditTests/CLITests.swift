import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The built binary, run as a subprocess.
final class CLITests: XCTestCase {
    func testInputErrorsAreOneLineAndExitTwo() throws {
        let dir = try TempDir()
        try Fixture.file(dir.sub("plain.txt"), size: 3)
        try Fixture.mkdirs(dir.sub("empty"))
        try FileManager.default.createSymbolicLink(atPath: dir.sub("dangling"), withDestinationPath: dir.sub("nowhere"))
        let cases: [([String], String)] = [
            (["scan", dir.sub("missing")], "no such file or directory"),
            (["scan", dir.sub("plain.txt")], "is not a directory"),
            (["scan", dir.sub("empty")], "is not an app data container"),
            (["scan", dir.sub("dangling")], "broken symbolic link"),
            (["inventory", dir.sub("missing")], "no such file or directory"),
            (["scan", "--format", "yaml", dir.path], "yaml"),
            (["scan", "--oversized-file-size", "10XB", dir.path], "10XB"),
            (["scan", "--stale-tmp-age", "soon", dir.path], "soon"),
            (["scan", "--fail-on", "fatal", dir.path], "fatal"),
            (["scan"], "PATH"),
            (["frobnicate"], "frobnicate"),
            (["rules", "no-such-rule"], "no rule 'no-such-rule'"),
            (["exclude", dir.sub("missing")], "no such file or directory"),
        ]
        for (args, needle) in cases {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): one line, got \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix("sandbox-audit: error: "), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.lowercased().contains(needle.lowercased()), "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
    }

    func testExitCodesFollowFailOn() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        XCTAssertEqual(try CLI.run(["scan", dir.path]).status, 0)
        try Fixture.file(dir.sub("Library/Caches/x"), size: 1)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Library/Caches/x"), carrier: .native)
        // A note only.
        XCTAssertEqual(try CLI.run(["scan", dir.path]).status, 0)
        XCTAssertEqual(try CLI.run(["scan", "--fail-on", "warning", dir.path]).status, 0)
        XCTAssertEqual(try CLI.run(["scan", "--fail-on", "note", dir.path]).status, 1)
        try Fixture.file(dir.sub("stray"), size: 1)
        XCTAssertEqual(try CLI.run(["scan", dir.path]).status, 1)
        XCTAssertEqual(try CLI.run(["--help"]).status, 0)
        XCTAssertEqual(try CLI.run(["--version"]).stdout, Audit.toolVersion + "\n")
    }

    func testJSONReport() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/Application Support/big.bin"), size: 12_000_000)
        try Fixture.file(dir.sub("Documents/a.txt"), size: 100)
        let (json, r) = try CLI.scanJSON([dir.path])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(json["schemaVersion"] as? Int, 2)
        let totals = json["totals"] as! [String: Any]
        XCTAssertEqual(totals["backupFootprint"] as? Int, 12_000_100)
        XCTAssertEqual(totals["keptOnUpdate"] as? Int, 12_000_100)
        XCTAssertEqual(totals["keptOnRestore"] as? Int, 12_000_100)
        let zones = json["zones"] as! [[String: Any]]
        XCTAssertEqual(
            zones.map { $0["zone"] as! String },
            ["documents", "applicationSupport", "caches", "preferences", "systemLibrary", "library", "tmp", "root"])
        let findings = json["findings"] as! [[String: Any]]
        XCTAssertEqual(
            findings.map { $0["ruleId"] as! String }, ["oversized-backed-up-file", "unexcluded-support-data"])
        XCTAssertEqual(findings.first?["size"] as? Int, 12_000_000)
        XCTAssertEqual(findings.first?["severity"] as? String, "error")
        XCTAssertNotNil(findings.first?["fix"] as? String)
        XCTAssertEqual((json["summary"] as! [String: Any])["failed"] as? Bool, true)
    }

    func testTextReportHasNoColourWhenPipedAndShowsHeadlines() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Downloads/a"), size: 2_500_000)
        let r = try CLI.run(["scan", dir.path])
        XCTAssertFalse(r.stdout.contains("\u{1B}["), "no escape codes off a terminal")
        for needle in [
            "backup footprint", "kept on update", "kept on restore", "misplaced-at-root", "fix: ", "2.50 MB",
            "decimal units", "FAILED",
        ] {
            XCTAssertTrue(r.stdout.contains(needle), "missing \(needle) in:\n\(r.stdout)")
        }
        XCTAssertEqual(r.stderr, "")
    }

    func testNonUTF8NamesSurviveEveryOutput() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try NonUTF8Names.require(in: dir.path, for: "the test scans a file named with a Latin-1 byte")
        let name = Array(dir.sub("caf").utf8) + [0xE9]
        let fd = (name + [0]).withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { open($0, O_WRONLY | O_CREAT, 0o644) }
        }
        close(fd)
        let (json, _) = try CLI.scanJSON([dir.path])
        let finding = (json["findings"] as! [[String: Any]]).first { $0["ruleId"] as? String == "misplaced-at-root" }
        XCTAssertEqual(finding?["path"] as? String, "caf\\xE9")
        XCTAssertEqual(finding?["pathBase64"] as? String, Data([0x63, 0x61, 0x66, 0xE9]).base64EncodedString())
        XCTAssertTrue(try CLI.run(["scan", dir.path]).stdout.contains("caf\\xE9"))
    }

    func testExcludeIncludeAttributesCommands() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/Application Support/pack.zip"), size: 2_000_000)
        let target = dir.sub("Library/Application Support/pack.zip")
        XCTAssertEqual(try CLI.run(["scan", "--fail-on", "warning", dir.path]).status, 1)

        for carrier in ["native", "sidecar"] {
            let set = try CLI.run(["exclude", "--carrier", carrier, target])
            XCTAssertEqual(set.status, 0, set.stderr)
            XCTAssertEqual(try CLI.run(["scan", "--fail-on", "warning", dir.path]).status, 0, carrier)
            let shown = try CLI.run(["attributes", target]).stdout
            XCTAssertTrue(shown.contains("[canonical]"), shown)
            XCTAssertTrue(shown.contains(carrier == "native" ? "native" : "appledouble"), shown)
            XCTAssertEqual(try CLI.run(["include", "--carrier", carrier, target]).status, 0)
            XCTAssertEqual(try CLI.run(["attributes", target]).stdout, "\(target): no backup attributes\n")
        }
        XCTAssertEqual(try CLI.run(["exclude", "--value", "other", target]).status, 0)
        let (json, _) = try CLI.scanJSON([dir.path])
        XCTAssertEqual(
            (json["findings"] as! [[String: Any]]).map { $0["ruleId"] as! String }, ["unrecognised-exclusion-value"])
        XCTAssertTrue(try CLI.run(["exclude", "--help"]).stdout.contains("WRITES"))
    }

    func testJSONEscapingRoundTrips() throws {
        let text = "quote \" backslash \\ newline \n tab \t bell \u{07} del \u{7F} ls \u{2028} é 🧪"
        let encoded = JSON.object([("k", .string(text))]).compact
        XCTAssertEqual(
            encoded, #"{"k":"quote \" backslash \\ newline \n tab \t bell \u0007 del \u007f ls \u2028 é 🧪"}"#)
        let decoded = try JSONSerialization.jsonObject(with: Data(encoded.utf8)) as! [String: String]
        XCTAssertEqual(decoded["k"], text)
        XCTAssertEqual(JSON.array([.int(1), .null, .bool(true)]).pretty, "[\n  1,\n  null,\n  true\n]")
    }

    func testRulesCommand() throws {
        let list = try CLI.run(["rules"])
        XCTAssertEqual(list.status, 0)
        XCTAssertEqual(list.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.count, RuleCatalogue.all.count)
        let one = try CLI.run(["rules", "excluded-user-data"])
        XCTAssertTrue(one.stdout.contains("Triggers on:"))
        XCTAssertTrue(
            one.stdout.contains(
                "https://developer.apple.com/documentation/foundation/urlresourcevalues/isexcludedfrombackup"),
            "cites public sources by URL")
        XCTAssertTrue(one.stdout.contains("More: \(References.ruleHelp("excluded-user-data"))"))
    }

    /// SIGQUIT during a scan ends it as an interrupt (one line, exit 2), not as a crash report.
    func testSIGQUITEndsTheScanAsAnInterrupt() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.files(in: dir.sub("Documents/many"), count: 40_000, size: 0)
        for attempt in 0..<5 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CLI.executable)
            p.arguments = ["scan", dir.path]
            let err = Pipe()
            p.standardOutput = FileHandle.nullDevice
            p.standardError = err
            try p.run()
            usleep(useconds_t(20_000 + attempt * 5_000))
            kill(p.processIdentifier, SIGQUIT)
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            if p.terminationStatus != 2 && attempt < 4 { continue }  // the scan ended first: try again
            XCTAssertEqual(p.terminationStatus, 2, text)
            XCTAssertEqual(text, "sandbox-audit: error: interrupted (SIGQUIT)\n")
            return
        }
    }
}
