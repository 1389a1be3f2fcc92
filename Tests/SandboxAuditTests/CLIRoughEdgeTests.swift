import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSystem
@testable import sandbox_audit

/// What a user tried by hand and got a poor answer to: a misspelt subcommand or rule id, a
/// negative size, an archive on standard input, the width of `rules`.
final class CLIRoughEdgeTests: XCTestCase {
    /// One line on standard error, exit 2, nothing on standard output.
    func assertOneLineError(
        _ args: [String], contains needles: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let r = try CLI.run(args)
        XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)", file: file, line: line)
        XCTAssertEqual(
            r.stderr.split(separator: "\n").count, 1, "\(args): one line, got \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.hasPrefix("sandbox-audit: error: "), "\(args): \(r.stderr)", file: file, line: line)
        for needle in needles {
            XCTAssertTrue(r.stderr.contains(needle), "\(args): wanted \(needle) in \(r.stderr)", file: file, line: line)
        }
        XCTAssertEqual(r.stdout, "", "\(args)", file: file, line: line)
    }

    func testAMisspeltSubcommandGetsDidYouMean() throws {
        try assertOneLineError(
            ["sacn"], contains: ["'sacn' is not a subcommand of sandbox-audit", "did you mean 'scan'?"])
        try assertOneLineError(["sacn", "--format", "json", "somewhere"], contains: ["did you mean 'scan'?"])
        try assertOneLineError(["invnetory"], contains: ["did you mean 'inventory'?"])
        try assertOneLineError(
            ["config", "int"],
            contains: ["'int' is not a subcommand of sandbox-audit config", "did you mean 'config init'?"])
        // Nothing near: the subcommands are listed, still on one line.
        try assertOneLineError(["frobnicate"], contains: ["the subcommands are scan, inventory"])
        // ArgumentParser's own `help` still works, and a real subcommand's errors are its own.
        XCTAssertEqual(try CLI.run(["help", "scan"]).status, 0)
        let bad = try CLI.run(["scan", "--no-such-option"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertFalse(bad.stderr.contains("not a subcommand"), bad.stderr)
    }

    func testAnUnknownRuleIdSuggestsTheRealOnes() throws {
        try assertOneLineError(
            ["rules", "oversized-file"],
            contains: ["no rule 'oversized-file'", "did you mean 'oversized-backed-up-file'?"])
        try assertOneLineError(["rules", "excluded-user-dta"], contains: ["did you mean 'excluded-user-data'?"])
        try assertOneLineError(
            ["rules", "policy"],
            contains: ["'policy-backup-excluded'", "'policy-backup-included'", "'policy-forbidden'"])
        try assertOneLineError(["rules", "zzzzzz"], contains: ["no rule 'zzzzzz'; 'sandbox-audit rules' lists them"])
    }

    /// `-1MB` is read by ArgumentParser as short flags ("Missing value"); the value must reach
    /// the option's check, which says it is negative.
    func testANegativeSizeSaysItIsNegative() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        for args in [
            ["compare", "--fail-on-growth", "-1MB", dir.path, dir.path],
            ["compare", "--fail-on-growth=-1MB", dir.path, dir.path],
            ["scan", "--oversized-file-size", "-5MB", dir.path],
            ["scan", "--oversized-file-size", "-.5GB", dir.path],
        ] {
            try assertOneLineError(args, contains: ["is a negative size"])
            XCTAssertFalse(try CLI.run(args).stderr.contains("Missing value"))
        }
        try assertOneLineError(["scan", "--stale-tmp-age", "-3d", dir.path], contains: ["'-3d' is a negative age"])
        XCTAssertEqual(
            RawArguments.joiningNegativeValues(["scan", "--x", "-1", "--", "--y", "-2"]),
            ["scan", "--x=-1", "--", "--y", "-2"])
        XCTAssertEqual(
            RawArguments.joiningNegativeValues(["scan", "--x", "-v", "-q", "-1"]), ["scan", "--x", "-v", "-q", "-1"])
    }

    /// `rules` fits a 100-column terminal: long summaries go on over indented lines.
    func testRulesLinesFitOneHundredColumns() throws {
        let r = try CLI.run(["rules"])
        XCTAssertEqual(r.status, 0)
        let lines = r.stdout.split(separator: "\n")
        for line in lines { XCTAssertLessThanOrEqual(line.count, 100, String(line)) }
        let heads = lines.filter { !$0.hasPrefix(" ") }
        XCTAssertEqual(heads.map { String($0.split(separator: " ")[0]) }, RuleCatalogue.all.map(\.id))
        // Every word of every summary is there, in order.
        let words = lines.map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        let text = heads.isEmpty ? "" : words.flatMap { $0 }.joined(separator: " ")
        for rule in RuleCatalogue.all {
            XCTAssertTrue(
                text.contains(
                    rule.description.summary.split(separator: " ", omittingEmptySubsequences: true).joined(
                        separator: " ")), rule.id)
        }
        XCTAssertGreaterThan(lines.count, RuleCatalogue.all.count, "some summaries are longer than a line")
    }

    /// `scan -` reads a tar or zip archive from standard input, once: through a pipe and as a
    /// redirected file, with the same findings as the archive named by its path.
    func testAnArchiveOnStandardInputIsReadOnce() throws {
        try Tool.require("tar", "zip", for: "archives are piped into scan -")
        let dir = try TempDir("stdin")
        let app = dir.sub("app")
        try Fixture.container(at: app)
        try Fixture.file(app + "/Documents/movie.mp4", size: 12_000_000)
        try Fixture.file(app + "/Downloads/episode.mp3", size: 2_000)
        try sh("tar -cf app.tar -C app . && (cd app && zip -qr ../app.zip .)", in: dir.path)

        func findings(_ json: String) throws -> [String] {
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: Any]
            return (object["findings"] as! [[String: Any]]).map { "\($0["ruleId"] ?? "") \($0["path"] ?? "")" }.sorted()
        }
        let named = try CLI.run(["scan", "--format", "json", dir.sub("app.tar")])
        XCTAssertEqual(named.status, 1, named.stderr)
        let expected = try findings(named.stdout)
        XCTAssertTrue(expected.contains("misplaced-at-root Downloads"), "\(expected)")
        XCTAssertTrue(expected.contains { $0.hasPrefix("oversized-backed-up-file ") }, "\(expected)")

        for (how, command) in [
            (
                "a tar through a pipe",
                "tar -cf - -C app . | \"$0\" scan --format json - > out.json 2> err.txt; echo $? > rc"
            ),
            ("a zip through a pipe", "cat app.zip | \"$0\" scan --format json - > out.json 2> err.txt; echo $? > rc"),
            ("a tar as a redirected file", "\"$0\" scan --format json - < app.tar > out.json 2> err.txt; echo $? > rc"),
        ] {
            try sh(command, in: dir.path)
            let status = try String(contentsOfFile: dir.sub("rc"), encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
            let err = try String(contentsOfFile: dir.sub("err.txt"), encoding: .utf8)
            XCTAssertEqual(status, "1", "\(how): \(err)")
            XCTAssertEqual(
                try findings(try String(contentsOfFile: dir.sub("out.json"), encoding: .utf8)), expected, how)
        }
        // What is not an archive says so, on one line.
        try sh("echo 'not an archive' | \"$0\" scan - > out.txt 2> err.txt; echo $? > rc", in: dir.path)
        XCTAssertEqual(try String(contentsOfFile: dir.sub("rc"), encoding: .utf8), "2\n")
        XCTAssertEqual(try String(contentsOfFile: dir.sub("err.txt"), encoding: .utf8).split(separator: "\n").count, 1)
        // Nothing is left in the temporary folder.
        try Fixture.mkdirs(dir.sub("tmp"))
        try sh("tar -cf - -C app . | TMPDIR=\"$PWD/tmp\" \"$0\" scan - > /dev/null 2>&1; true", in: dir.path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.sub("tmp")), [])
    }

    /// The help says what `-` is.
    func testTheHelpSaysWhatADashReads() throws {
        let help = try CLI.run(["scan", "--help"])
        XCTAssertTrue(help.stdout.contains("such an archive on standard input"), help.stdout)
    }

    /// sample-containers/README.md states what the samples give: the counts in its headings and
    /// the size of the folder's files.
    func testTheSamplesREADMEStatesWhatTheSamplesGive() throws {
        let root = PluginTests.repository + "/sample-containers"
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        func counts(_ args: [String]) throws -> [String: Int] {
            let r = try CLI.run(["scan", "--format", "json"] + args)
            let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
            var out: [String: Int] = [:]
            for f in object["findings"] as! [[String: Any]] { out[f["severity"] as! String, default: 0] += 1 }
            return out
        }
        let misbehaving = try counts([root + "/Misbehaving"])
        XCTAssertTrue(
            readme.contains(
                "### Misbehaving: \(misbehaving["error"] ?? 0) errors, \(misbehaving["warning"] ?? 0) warnings, "
                    + "\(misbehaving["note"] ?? 0) notes (exit 1)"
            ), "\(misbehaving)")
        let example = try counts([root + "/Example.xcappdata"])
        XCTAssertEqual(example, ["warning": 2])
        XCTAssertTrue(readme.contains("### Example.xcappdata: 2 warnings"))
        XCTAssertEqual(
            try counts([root + "/Example.xcappdata.tar.gz"]), ["warning": 3],
            "without --stale-tmp-age, as the README says")
        XCTAssertEqual(try counts(["--stale-tmp-age", "36500d", root + "/Example.xcappdata.tar.gz"]), example)
        // The samples' bytes (the folder but the README), as the README says them, to 0.1 MB and exactly.
        var total: Int64 = 0
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            var st = stat()
            guard relative != "README.md", lstat(root + "/" + relative, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG
            else { continue }
            total += Int64(st.st_size)
        }
        XCTAssertTrue(
            readme.contains("about \(String(format: "%.1f", Double(total) / 1e6)) MB of file content"), "\(total) bytes"
        )
        XCTAssertTrue(readme.contains(Self.grouped(total) + " bytes"), "\(total) bytes")
    }

    static func grouped(_ n: Int64) -> String {
        let digits = Array(String(n))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(d)
        }
        return out
    }
}
