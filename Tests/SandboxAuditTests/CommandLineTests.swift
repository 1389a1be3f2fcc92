import Foundation
import XCTest
@testable import SandboxAudit

/// The command line as clig.dev asks: errors that list what is accepted, conflicting options
/// refused, `-` for standard output, `--color`, help with defaults and examples, a progress line
/// on a terminal only, inputs recognised by content. Each runs the built binary.
final class CommandLineTests: XCTestCase {
    /// Runs the CLI under `script`, so standard output and standard error are a terminal; returns
    /// what the terminal got (both streams, as written) and the exit status.
    func onTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, text: String) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("script (util-linux) is not installed") }
        let quoted = ([CLI.executable] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let r = try CLI.run(["-qec", quoted, "/dev/null"], environment: environment, via: "/usr/bin/script")
        return (r.status, r.stdout)
    }

    func assertRefused(_ args: [String], _ needles: [String], cwd: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try CLI.run(args, cwd: cwd)
        XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)", file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): one line, got \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.hasPrefix("sandbox-audit: error: "), r.stderr, file: file, line: line)
        for needle in needles {
            XCTAssertTrue(r.stderr.contains(needle), "\(args): '\(needle)' missing in \(r.stderr)", file: file, line: line)
        }
        XCTAssertEqual(r.stdout, "", "\(args)", file: file, line: line)
    }

    func testArchivesAreRecognisedByContent() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        try Fixture.file(dir.sub("c/Documents/a.txt"), size: 100)
        try Fixture.file(dir.sub("c/Library/Application Support/big.bin"), size: 2_000_000)
        var commands = ["tar -czf gz.upload c", "tar -cf plain.data c", "tar -cjf bz.upload c", "cp gz.upload named.tgz"]
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/xz") { commands.append("tar -cJf xz.upload c") }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/zip") { commands.append("zip -qr zip.upload c") }
        try python("import subprocess, sys\nfor c in sys.argv[1:]: subprocess.run(c, shell=True, check=True)", commands, in: dir.path)
        let expected = try CLI.scanJSON([dir.sub("named.tgz")]).json["totals"] as? [String: Any]
        XCTAssertEqual(expected?["backupFootprint"] as? Int, 2_000_100)
        for name in ["gz.upload", "plain.data", "bz.upload", "xz.upload", "zip.upload"] where FileManager.default.fileExists(atPath: dir.sub(name)) {
            let (json, r) = try CLI.scanJSON([dir.sub(name)])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertEqual((json["totals"] as? [String: Any])?["backupFootprint"] as? Int, 2_000_100, name)
            XCTAssertEqual(try CLI.run(["inventory", dir.sub(name)]).status, 0, name)
        }
        try Fixture.bytes(dir.sub("notes.txt"), Array("just text\n".utf8))
        try assertRefused(["scan", dir.sub("notes.txt")], ["is not a directory, and not an archive", "tar", "zip"])
        XCTAssertTrue(ArchiveWalk.hasArchiveSignature([0x28, 0xB5, 0x2F, 0xFD, 0]))
        XCTAssertFalse(ArchiveWalk.hasArchiveSignature(Array("PK\u{1}\u{2}".utf8)))
    }

    func testUnreadableInputsSayPermissionDenied() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        try Fixture.bytes(dir.sub("archive"), [0x1F, 0x8B, 0, 0])
        try Fixture.bytes(dir.sub("c.tgz"), [0x1F, 0x8B, 0, 0])
        chmod(dir.sub("c"), 0o300) // enterable by its owner, not listable
        chmod(dir.sub("archive"), 0o200)
        chmod(dir.sub("c.tgz"), 0o200)
        if geteuid() == 0 {
            chown(dir.sub("c"), 0, 0)
            chmod(dir.sub("c"), 0o700)
        }
        for (path, needle) in [(dir.sub("c"), "cannot read \(dir.sub("c")): permission denied"),
                               (dir.sub("archive"), "permission denied"), (dir.sub("c.tgz"), "ermission denied")] {
            let r = try CLI.run(["scan", path], asNobody: geteuid() == 0)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
            XCTAssertFalse(r.stderr.contains("not an app data container"), r.stderr)
        }
    }

    /// The walk's progress hook counts every entry and the files' bytes, folders and archives alike.
    func testScanProgressCountsTheWalk() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        for i in 0..<3 { try Fixture.files(in: dir.sub("c/Documents/d\(i)"), count: 3_000, size: 2) }
        try python("import subprocess; subprocess.run('tar -czf c.tgz c', shell=True, check=True)", in: dir.path)
        for input in [dir.sub("c"), dir.sub("c.tgz")] {
            let progress = ScanProgress()
            ScanProgress.current = progress
            defer { ScanProgress.current = nil }
            let inventory = try Audit.inventory(of: input)
            // An archive's members: its top folder too, which becomes the data root.
            XCTAssertTrue((0...1).contains(progress.snapshot.entries - Int64(inventory.entries.count)), "\(input): \(progress.snapshot.entries)")
            XCTAssertEqual(progress.snapshot.bytes, 18_000, input)
            XCTAssertFalse(progress.snapshot.folder.isEmpty, input)
        }
    }
}
