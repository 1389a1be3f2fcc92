import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The command line as clig.dev asks: errors that list what is accepted, conflicting options
/// refused, `-` for standard output, `--color`, help with defaults and examples, a progress line
/// on a terminal only, inputs recognised by content. Each runs the built binary.
final class CommandLineTests: XCTestCase {
    /// Runs the CLI under `script`, so standard output and standard error are a terminal; returns
    /// what the terminal got (both streams, as written) and the exit status.
    func onTerminal(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, text: String)
    {
        let script = try Tool.path("script", for: "runs the command line on a terminal")
        #if os(macOS)
            // BSD script: `script -q FILE COMMAND...`; it passes the command's exit status on.
            let r = try CLI.run(["-q", "/dev/null", CLI.executable] + arguments, environment: environment, via: script)
        #else
            let quoted = ([CLI.executable] + arguments).map {
                "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
            }.joined(separator: " ")
            let r = try CLI.run(["-qec", quoted, "/dev/null"], environment: environment, via: script)
        #endif
        return (r.status, r.stdout)
    }

    func assertRefused(
        _ args: [String], _ needles: [String], cwd: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let r = try CLI.run(args, cwd: cwd)
        XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)", file: file, line: line)
        XCTAssertEqual(
            r.stderr.split(separator: "\n").count, 1, "\(args): one line, got \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.hasPrefix("sandbox-audit: error: "), r.stderr, file: file, line: line)
        for needle in needles {
            XCTAssertTrue(
                r.stderr.contains(needle), "\(args): '\(needle)' missing in \(r.stderr)", file: file, line: line)
        }
        XCTAssertEqual(r.stdout, "", "\(args)", file: file, line: line)
    }

    func testErrorsListWhatIsAccepted() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try assertRefused(
            ["scan", "--oversized-file-size", "12XB", dir.path], ["12XB", "kB, MB, GB", "KiB, MiB, GiB"])
        try assertRefused(["scan", "--user-defaults-error-size", "big", dir.path], ["big", "KiB, MiB, GiB"])
        try assertRefused(["scan", "--stale-tmp-age", "soon", dir.path], ["soon", "3d, 12h, 90m"])
        try assertRefused(
            ["scan", "--output", "pdf=report.pdf", dir.path],
            ["'pdf' is not a format", "text, json, sarif, junit, github, markdown, html"])
        try assertRefused(["scan", "--output", "json", dir.path], ["FORMAT=PATH", "sarif", "- for standard output"])
        try assertRefused(["scan", "--output", "json=", dir.path], ["- for standard output"])
        try assertRefused(["scan", "--color", "sometimes", dir.path], ["auto", "always", "never"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: "report.pdf"))
    }

    func testConflictingOptionsAreRefused() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        let c = dir.sub("c")
        try assertRefused(["scan", "--force", c], ["--force", "--write-baseline"])
        try assertRefused(
            ["scan", "--user-defaults-warning-size", "5MiB", c],
            ["warning size 5.24 MB (--user-defaults-warning-size)", "error size 4.19 MB (the default)"])
        try assertRefused(
            ["scan", "--user-defaults-warning-size", "2MB", "--user-defaults-error-size", "1MB", c],
            ["--user-defaults-error-size"])
        try assertRefused(
            ["scan", "--output", "json=\(dir.sub("r"))", "--output", "sarif=\(dir.path)/./r", c],
            ["write the same file"])
        try assertRefused(
            ["scan", "--output", "json=r.json", "--write-baseline", "r.json", c],
            ["--write-baseline r.json", "same file"], cwd: dir.path)
        try assertRefused(
            ["scan", "--output", "json=-", "--output", "sarif=-", c],
            ["only one output can go to standard output", "--output json=- and --output sarif=-"])
        try assertRefused(
            ["scan", "--format", "text", "--output", "json=-", c], ["--format text", "give one of them"])
        // A warning size above the error size from the policy file.
        try Data("rules:\n  large-user-defaults: {warningSize: 8MiB}\n".utf8).write(
            to: URL(fileURLWithPath: dir.sub("policy.yml")))
        try assertRefused(
            ["scan", "--config", dir.sub("policy.yml"), c],
            ["warning size 8.39 MB (the policy file)", "the warning size must be at most the error size"])
        try assertRefused(
            ["scan", "--config", dir.sub("policy.yml"), "--user-defaults-error-size", "4MiB", c],
            ["(the policy file)", "(--user-defaults-error-size)"])
        // Raising the error size with it is accepted.
        XCTAssertEqual(
            try CLI.run(["scan", "--config", dir.sub("policy.yml"), "--user-defaults-error-size", "16MiB", c]).status, 0
        )
        // Nothing was written by the refused runs.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["c", "policy.yml"])
    }

    func testDashIsStandardOutput() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        try Fixture.file(dir.sub("c/stray"), size: 10)
        let r = try CLI.run(
            ["scan", "--output", "json=-", "--output", "sarif=report.sarif", dir.sub("c")], cwd: dir.path)
        XCTAssertEqual(r.status, 1, r.stderr)
        let json = try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any]
        XCTAssertEqual(
            json?["schemaVersion"] as? Int, 2, "standard output is the JSON report alone: \(r.stdout.prefix(200))")
        XCTAssertFalse(r.stdout.contains("backup footprint"), "no text report beside it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("-")), "no file named -")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.sub("report.sarif")))
        XCTAssertEqual(r.stderr, "")
    }

    func testColorAutoAlwaysNever() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("stray"), size: 10)
        let escape = "\u{1B}["
        // Piped: never coloured unless asked.
        XCTAssertFalse(try CLI.run(["scan", dir.path]).stdout.contains(escape))
        XCTAssertFalse(try CLI.run(["scan", "--color", "auto", dir.path]).stdout.contains(escape))
        XCTAssertTrue(try CLI.run(["scan", "--color", "always", dir.path]).stdout.contains(escape))
        XCTAssertTrue(
            try CLI.run(["scan", "--color", "always", dir.path], environment: ["NO_COLOR": "1"]).stdout.contains(
                escape), "always wins over NO_COLOR")
        // On a terminal: coloured unless NO_COLOR (non-empty), TERM=dumb or never.
        let env = ["SANDBOX_AUDIT_PROGRESS_DELAY": "60"]
        XCTAssertTrue(
            try onTerminal(["scan", dir.path], environment: env.merging(["TERM": "xterm"]) { $1 }).text.contains(escape)
        )
        XCTAssertTrue(
            try onTerminal(["scan", dir.path], environment: env.merging(["TERM": "xterm", "NO_COLOR": ""]) { $1 }).text
                .contains(escape), "an empty NO_COLOR is unset")
        XCTAssertFalse(
            try onTerminal(["scan", dir.path], environment: env.merging(["TERM": "xterm", "NO_COLOR": "1"]) { $1 }).text
                .contains(escape))
        XCTAssertFalse(
            try onTerminal(["scan", dir.path], environment: env.merging(["TERM": "dumb"]) { $1 }).text.contains(escape))
        XCTAssertFalse(
            try onTerminal(["scan", "--color", "never", dir.path], environment: env.merging(["TERM": "xterm"]) { $1 })
                .text.contains(escape))
        XCTAssertTrue(
            try onTerminal(["scan", "--color", "always", dir.path], environment: env.merging(["TERM": "dumb"]) { $1 })
                .text.contains(escape))
    }

    /// Help text with its line wrapping undone.
    func flat(_ help: String) -> String {
        help.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }

    func testHelpShowsDefaultsExamplesAndEveryInputKind() throws {
        for command in ["scan", "inventory", "simulate"] {
            let r = try CLI.run([command, "--help"])
            XCTAssertEqual(r.status, 0)
            let text = flat(r.stdout)
            for needle in [
                "Examples:", "sandbox-audit \(command) ", "data container folder", ".xcappdata", "tar.gz/tgz",
                "tar.xz/txz", "zip",
                "App Group", "extension container", "--kind", "Simulator device folder", "--app BUNDLE_ID",
                "progress line",
            ] {
                XCTAssertTrue(text.contains(needle), "\(command) --help: '\(needle)' missing")
            }
            XCTAssertFalse(r.stdout.contains("domain.md"))
            // Examples fit an 80-column terminal.
            for line in r.stdout.split(separator: "\n") where line.hasPrefix("  sandbox-audit") {
                XCTAssertLessThanOrEqual(line.count, 80, String(line))
            }
        }
        let scan = flat(try CLI.run(["scan", "--help"]).stdout)
        for needle in [
            "default: text", "default: auto", "else 10MB", "else 1MB", "else 3d", "else 512KiB", "else 4MiB",
            "else 10000",
            "default: the policy's failOn, else error", "--color", "PATH - is standard output",
        ] {
            XCTAssertTrue(scan.contains(needle), "scan --help: '\(needle)' missing")
        }
        XCTAssertTrue(flat(try CLI.run(["simulate", "--help"]).stdout).contains("default: text"))
    }

    /// An archive is read whatever its name, by its first bytes; a file that is no archive says so.
    func testArchivesAreRecognisedByContent() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        try Fixture.file(dir.sub("c/Documents/a.txt"), size: 100)
        try Fixture.file(dir.sub("c/Library/Application Support/big.bin"), size: 2_000_000)
        try Tool.require("tar", "gzip", for: "the archives are made with tar")
        var commands = ["tar -czf gz.upload c", "tar -cf plain.data c", "cp gz.upload named.tgz"]
        // The other compressors where they are installed.
        if Tool.find("bzip2") != nil { commands.append("tar -cjf bz.upload c") }
        if Tool.find("xz") != nil { commands.append("tar -cJf xz.upload c") }
        if Tool.find("zip") != nil { commands.append("zip -qr zip.upload c") }
        try python(
            "import subprocess, sys\nfor c in sys.argv[1:]: subprocess.run(c, shell=True, check=True)", commands,
            in: dir.path)
        let expected = try CLI.scanJSON([dir.sub("named.tgz")]).json["totals"] as? [String: Any]
        XCTAssertEqual(expected?["backupFootprint"] as? Int, 2_000_100)
        for name in ["gz.upload", "plain.data", "bz.upload", "xz.upload", "zip.upload"]
        where FileManager.default.fileExists(atPath: dir.sub(name)) {
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

    /// A container root or archive this user cannot read says "permission denied", not "not a
    /// container" (run as nobody when the tests run as root).
    func testUnreadableInputsSayPermissionDenied() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        try Fixture.bytes(dir.sub("archive"), [0x1F, 0x8B, 0, 0])
        try Fixture.bytes(dir.sub("c.tgz"), [0x1F, 0x8B, 0, 0])
        chmod(dir.sub("c"), 0o300)  // enterable by its owner, not listable
        chmod(dir.sub("archive"), 0o200)
        chmod(dir.sub("c.tgz"), 0o200)
        if geteuid() == 0 {
            chown(dir.sub("c"), 0, 0)
            chmod(dir.sub("c"), 0o700)
        }
        for (path, needle) in [
            (dir.sub("c"), "cannot read \(dir.sub("c")): permission denied"),
            (dir.sub("archive"), "permission denied"), (dir.sub("c.tgz"), "ermission denied"),
        ] {
            let r = try CLI.run(["scan", path], asNobody: geteuid() == 0)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
            XCTAssertFalse(r.stderr.contains("not an app data container"), r.stderr)
        }
    }

    /// The progress line: on a terminal's standard error after the delay (entries, bytes, a
    /// folder), erased before the report; never on standard error that is not a terminal.
    func testProgressOnlyOnATerminal() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        for i in 0..<6 { try Fixture.files(in: dir.sub("Documents/d\(i)"), count: 2_000, size: 1) }
        let env = ["SANDBOX_AUDIT_PROGRESS_DELAY": "0", "TERM": "dumb"]
        for command in [["scan"], ["inventory"], ["simulate", "restore"]] {
            let piped = try CLI.run(command + [dir.path], environment: env)
            XCTAssertEqual(piped.stderr, "", "\(command): nothing on a standard error that is not a terminal")
        }
        // On a terminal, with the delay at zero: at least one line, then erased.
        var seen = false
        for _ in 0..<3 where !seen {
            let t = try onTerminal(["inventory", dir.path], environment: env)
            XCTAssertEqual(t.status, 0)
            guard let start = t.text.range(of: "\rreading: ") else { continue }
            seen = true
            let line = t.text[start.upperBound...].prefix { $0 != "\r" }
            XCTAssertTrue(line.contains(" entries, "), String(line))
            XCTAssertTrue(line.contains(" B") || line.contains(" kB"), String(line))
            // The erase: spaces over the line, the cursor back at its start, before the first entry.
            let erase = t.text.range(of: "\r  ")!
            let firstEntry = t.text.range(of: "{\"domain\"")!
            XCTAssertLessThan(erase.lowerBound, firstEntry.lowerBound)
            XCTAssertFalse(
                t.text[firstEntry.lowerBound...].contains("reading: "), "no progress after the report started")
        }
        XCTAssertTrue(seen, "no progress line on a terminal")
        // The default delay (one second) hides it on a quick run.
        XCTAssertFalse(try onTerminal(["scan", dir.path], environment: ["TERM": "dumb"]).text.contains("reading: "))
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
            XCTAssertTrue(
                (0...1).contains(progress.snapshot.entries - Int64(inventory.entries.count)),
                "\(input): \(progress.snapshot.entries)")
            XCTAssertEqual(progress.snapshot.bytes, 18_000, input)
            XCTAssertFalse(progress.snapshot.folder.isEmpty, input)
        }
    }
}
