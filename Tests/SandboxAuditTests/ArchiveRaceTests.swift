import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `simulate ARCHIVE --into DIR` run by root on an archive in a folder another user owns: that
/// user swaps the archive for a symlink to a root-only archive, over and over, while the scan
/// and the copy run. The scan refuses the symlink (or reads the archive), and the copy reads the
/// file the scan opened, through the descriptor it holds: nothing of the root-only archive ever
/// reaches DIR, and no copy is refused (HeldInputTests holds the swaps between the stages).
final class ArchiveRaceTests: XCTestCase {
    override func setUpWithError() throws {
        #if !os(Linux)
            throw XCTSkip("the swapper runs through setpriv (Linux)")
        #else
            guard geteuid() == 0 else {
                throw XCTSkip("simulate must run as root and the swapper as nobody: run the tests as root")
            }
            try Tool.require(
                "setpriv", "tar", "python3", for: "the swapper runs as nobody; the archives are made with GNU tar")
        #endif
    }

    /// Swaps `app.tar` in `folder` for the symlink `evil` (to the root-only archive) and back
    /// until `stop` exists; prints how many swaps it made. Each state lasts up to a millisecond,
    /// at random: long enough that a scan often opens the real archive (on a loaded machine a
    /// swapper with no pause left the real name in place too briefly for any run to copy), short
    /// enough that the name changes many times between a scan and its copy.
    static let swapper = """
        import os, random, sys, time
        folder, stop = sys.argv[1:3]
        os.chdir(folder)
        made = 0
        while not os.path.exists(stop):
            try:
                os.rename("app.tar", "real.tar"); os.rename("evil", "app.tar")
                time.sleep(random.uniform(0, 0.001))
                os.rename("app.tar", "evil"); os.rename("real.tar", "app.tar")
                time.sleep(random.uniform(0, 0.001))
                made += 1
            except OSError:
                pass
        print(made)
        """

    func testSwappingTheArchiveForASymlinkLeaksNothing() throws {
        let dir = try TempDir("archrace")
        // The root-only archive: the same paths, other contents, in a folder only root enters.
        for (name, text) in [("User", "user data\n"), ("Secret", "ROOT ONLY SECRET\n")] {
            try Fixture.container(at: dir.sub(name))
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir.sub(name + "/Documents/notes.txt")))
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir.sub(name + "/Library/Preferences/p.plist")))
        }
        try sh(
            "mkdir -m 700 private && tar -C Secret -cf private/secret.tar . && chmod 600 private/secret.tar",
            in: dir.path)
        try sh(
            "mkdir u && tar -C User -cf u/app.tar . && ln -s \(dir.sub("private/secret.tar")) u/evil && chown -R "
                + "nobody u && chown -h nobody u/evil",
            in: dir.path)

        let stop = dir.sub("stop")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Tool.path("setpriv", for: "runs the swapper as nobody"))
        p.arguments = [
            "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/env", "python3", "-c", Self.swapper,
            dir.sub("u"), stop,
        ]
        let out = Pipe()
        p.standardOutput = out
        try p.run()

        var copied = 0
        var refused = 0
        var leaked: [String] = []
        let started = Date()
        // 50 timed attempts, more (up to 150) while none has copied yet: the test holds only if
        // some run scanned the real archive and then copied it while the name was swapped.
        var attempts = 0
        for attempt in 0..<150 where attempt < 50 || copied == 0 {
            attempts += 1
            let into = dir.sub("out\(attempt)")
            let r = try CLI.run(["simulate", "update", dir.sub("u/app.tar"), "--into", into])
            if r.status == 0 {
                copied += 1
                let notes = (try? String(contentsOfFile: into + "/Documents/notes.txt", encoding: .utf8)) ?? "missing"
                if notes != "user data\n" {
                    leaked.append("attempt \(attempt): Documents/notes.txt is \(notes.debugDescription)")
                }
            } else {
                refused += 1
                XCTAssertEqual(r.status, 2, r.stderr)
                // Only the scan may refuse (the name was the symlink when it was opened).
                XCTAssertFalse(
                    r.stderr.contains("nothing written"), "attempt \(attempt): the copy was refused: \(r.stderr)")
            }
            // Whatever the outcome, nothing of the root-only archive anywhere under DIR.
            let grep = try CLI.run(["-c", "grep -rl 'ROOT ONLY SECRET' \(into) 2>/dev/null || true"], via: "/bin/sh")
            if !grep.stdout.isEmpty { leaked.append("attempt \(attempt): \(grep.stdout)") }
        }
        _ = FileManager.default.createFile(atPath: stop, contents: Data())
        let swaps =
            Int(
                String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)) ?? 0
        p.waitUntilExit()
        print(
            "ArchiveRaceTests: \(attempts) attempts in \(Int(Date().timeIntervalSince(started))) s, "
                + "\(copied) copied, \(refused) refused, \(swaps) swaps"
        )
        XCTAssertEqual(leaked, [], "the root-only archive reached DIR")
        XCTAssertGreaterThan(swaps, 50, "the swapper must have been swapping throughout")
        XCTAssertGreaterThan(copied, 0, "some runs must have scanned the archive and copied it")
    }
}
