import Foundation
import XCTest

@testable import SandboxAuditSystem

/// `scan -` looks before it copies, a cap the user can set, `simulate … - --into` from a pipe,
/// and the values that arrive from outside read by one parser each (issue 45).
final class StandardInputGuardTests: XCTestCase {
    /// Runs `command` through sh in `dir` with the binary as $0: (exit status, stderr).
    func run(_ command: String, in dir: String) throws -> (status: Int32, stderr: String) {
        try sh(command + " 2> err.txt; echo $? > rc", in: dir)
        let status = Int32(
            try String(contentsOfFile: dir + "/rc", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))!
        return (status, try String(contentsOfFile: dir + "/err.txt", encoding: .utf8))
    }

    /// Bytes that start no archive are refused before anything is written: `yes` (endless) ends
    /// at once with one line, and the temporary folder gets no byte; so does an empty pipe.
    func testWhatIsNotAnArchiveIsRefusedBeforeAByteIsWritten() throws {
        let dir = try TempDir("stdinsniff")
        try Fixture.mkdirs(dir.sub("tmp"))
        let started = Date()
        let yes = try run("yes | TMPDIR=\"$PWD/tmp\" \"$0\" scan - > out.txt", in: dir.path)
        XCTAssertEqual(yes.status, 2, yes.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "refused at its first bytes, not after copying")
        XCTAssertEqual(
            yes.stderr,
            "sandbox-audit: error: standard input is not a tar or zip archive (its first bytes are no tar header and "
                + "no gzip, bzip2, xz, zstd or zip signature): pipe one in (e.g. tar -cf - -C DIR . | sandbox-audit "
                + "scan -)\n"
        )
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.sub("tmp")), [])
        let empty = try run("true | \"$0\" scan - > out.txt", in: dir.path)
        XCTAssertEqual(empty.status, 2)
        XCTAssertEqual(
            empty.stderr,
            "sandbox-audit: error: standard input is empty: pipe a tar or zip archive into it (e.g. tar -cf - -C DIR "
                + ". | sandbox-audit scan -)\n"
        )
        // The same from a redirected file that is no archive.
        try Fixture.bytes(dir.sub("notes.txt"), Array("just text\n".utf8))
        let file = try run("\"$0\" inventory - < notes.txt > out.txt", in: dir.path)
        XCTAssertEqual(file.status, 2)
        XCTAssertTrue(file.stderr.contains("standard input is not a tar or zip archive"), file.stderr)
    }

    /// `--stdin-limit SIZE`: an archive larger than it is refused in one line, exit 2; a smaller
    /// one is read. The option's value is a size, read by the one size parser.
    func testTheStandardInputCapCanBeSet() throws {
        try Tool.require("tar", for: "an archive is piped into scan -")
        let dir = try TempDir("stdincap")
        try Fixture.container(at: dir.sub("app"))
        try Fixture.bytes(dir.sub("app/Documents/random.bin"), (0..<300_000).map { _ in UInt8.random(in: 0...255) })
        let over = try run("tar -cf - -C app . | \"$0\" scan - --stdin-limit 100kB > out.txt", in: dir.path)
        XCTAssertEqual(over.status, 2, over.stderr)
        XCTAssertEqual(
            over.stderr,
            "sandbox-audit: error: standard input holds more than 100 kB, the most it may hold here: --stdin-limit "
                + "100 kB (docs/limits.md); give the archive's path instead\n"
        )
        let under = try run("tar -cf - -C app . | \"$0\" scan - --stdin-limit 1MiB > out.txt", in: dir.path)
        XCTAssertEqual(under.status, 0, under.stderr)
        for bad in ["-5MB", "lots", "99999999999GB"] {
            let r = try CLI.run(["scan", "-", "--stdin-limit", bad])
            XCTAssertEqual(r.status, 2, bad)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }

    /// `simulate EVENT - --into DIR` from a pipe: standard input read once (it was read twice,
    /// the second time empty), the tree written and verified.
    func testSimulateIntoFromAPipe() throws {
        try Tool.require("tar", for: "an archive is piped into simulate -")
        let dir = try TempDir("stdininto")
        try Fixture.container(at: dir.sub("app"))
        try Fixture.bytes(dir.sub("app/Documents/notes.txt"), Array("notes".utf8))
        try Fixture.file(dir.sub("app/Library/Caches/cache.bin"), size: 100)
        let r = try run("tar -cf - -C app . | \"$0\" simulate restore - --into out --verify > out.txt", in: dir.path)
        let printed = try String(contentsOfFile: dir.sub("out.txt"), encoding: .utf8)
        XCTAssertEqual(r.status, 0, r.stderr + printed)
        XCTAssertEqual(try String(contentsOfFile: dir.sub("out/Documents/notes.txt"), encoding: .utf8), "notes")
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: dir.sub("out/Library/Caches/cache.bin")), "a restore keeps no cache")
    }

    /// Counts and ages from the command line: out-of-range values exit 2 in one line, never trap
    /// (`--many-files -5` was taken and gave a warning per file; an age of 1e300 days trapped
    /// where it was printed).
    func testOutOfRangeValuesAreOneLineErrors() throws {
        let sample = PluginTests.repository + "/sample-containers/WellBehaved"
        for args in [
            ["--many-files", "-5"], ["--many-files", "0"], ["--many-files", "99999999999999999999"],
            ["--stale-tmp-age", "1e300d"], ["--stale-tmp-age", "-3d"], ["--oversized-file-size", "1e30GB"],
        ] {
            let r = try CLI.run(["scan", sample] + args)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): \(r.stderr)")
        }
        XCTAssertNil(Age.parse("1e300d"))
        XCTAssertEqual(Age.parse("3d"), 259_200)
    }
}
