import Foundation
import XCTest

@testable import SandboxAuditCore

#if canImport(Glibc)
    import Glibc
#endif

/// The smaller items of issue 45, each as it was found: hostile names in the formats developers
/// read raw, an archive's symlink to an empty target under `--into`, and a container whose
/// metadata plist only root may read.
final class SmallerGuardTests: XCTestCase {
    /// A container with names that carry an ESC sequence and a bidi override, and one holding
    /// `:1: error:`, each a 12 MB file (a finding).
    func hostileContainer(_ dir: TempDir) throws -> String {
        let root = dir.sub("app")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/evil\u{1B}[31m\u{202E}name.mp4", size: 12_000_000)
        try Fixture.file(root + "/Documents/a.mp4:1: error: fake", size: 12_000_000)
        return root
    }

    /// No format that is read raw (a CI log, GitLab's and GitHub's pages, an XML report) carries
    /// an ESC byte or a bidi override from a file name; each is a visible escape instead.
    func testHostileNamesAreVisibleEscapesInEveryFormatReadRaw() throws {
        let dir = try TempDir("hostilenames")
        let root = try hostileContainer(dir)
        for format in ["github", "xcode", "codeclimate", "sarif", "junit", "markdown", "html", "text"] {
            let r = try CLI.run(["scan", root, "--format", format])
            XCTAssertEqual(r.status, 0, "\(format): \(r.stderr)")
            XCTAssertFalse(r.stdoutBytes.contains(0x1B), "\(format) carries a raw ESC")
            XCTAssertFalse(
                r.stdout.unicodeScalars.contains {
                    (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
                },
                "\(format) carries a raw bidi override")
        }
        let github = try CLI.run(["scan", root, "--format", "github"]).stdout
        XCTAssertTrue(github.contains("evil\\x1B[31m\\u{202E}name.mp4"), github)
    }

    /// Xcode takes a line's path up to its first `:LINE:`: a name holding `:1: error:` would
    /// make another file and another severity. Such a path points at the folder above it, and
    /// the rest of the path begins the message.
    func testAnXcodeLineIsUnambiguousWhenANameHoldsALineMarker() throws {
        let dir = try TempDir("xcodecolon")
        let root = try hostileContainer(dir)
        let lines = try CLI.run(["scan", root, "--format", "xcode"]).stdout.split(separator: "\n")
        let line = try XCTUnwrap(lines.first { $0.contains("fake") })
        XCTAssertEqual(
            String(line),
            "\(root)/Documents:1: warning: a.mp4:1: error: fake: 12.0 MB file is backed up (limit 10.0 MB) "
                + "[oversized-backed-up-file]"
        )
        XCTAssertEqual(line.components(separatedBy: ":1: ").first, root + "/Documents")
    }

    /// An archive member that is a symlink to an empty target (no file system makes one): the
    /// scan reads it, and `--into` writes the rest of the tree and lists it as not recreated
    /// (it failed and wrote nothing).
    func testASymlinkToAnEmptyTargetIsSkippedByInto() throws {
        let dir = try TempDir("emptylink")
        try python(
            """
            import tarfile, io
            with tarfile.open("app.tar", "w", format=tarfile.PAX_FORMAT) as t:
                for d in ["./", "Documents", "Library", "tmp"]:
                    i = tarfile.TarInfo(d); i.type = tarfile.DIRTYPE; i.mode = 0o755; t.addfile(i)
                i = tarfile.TarInfo("Documents/notes.txt"); i.size = 5; t.addfile(i, io.BytesIO(b"notes"))
                i = tarfile.TarInfo("Documents/empty-link"); i.type = tarfile.SYMTYPE; i.linkname = ""; t.addfile(i)
            """, in: dir.path)
        XCTAssertLessThanOrEqual(try CLI.run(["scan", dir.sub("app.tar")]).status, 1)
        let r = try CLI.run([
            "simulate", "restore", dir.sub("app.tar"), "--into", dir.sub("out"), "--verify", "--format", "json",
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir.sub("out/Documents/notes.txt"), encoding: .utf8), "notes")
        XCTAssertTrue(r.stdout.contains("Documents/empty-link"), "listed as not recreated: \(r.stdout)")
        XCTAssertNil(try? FileManager.default.attributesOfItem(atPath: dir.sub("out/Documents/empty-link")))
    }

    /// Run as nobody on a device folder whose app data container has a root-only metadata
    /// plist: the error names that container as one that could not be told, not only the
    /// containers it could read ("it holds 1 app data container").
    func testAContainerWhoseMetadataCannotBeReadIsNamed() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root: makes a root-only plist and runs the tool as nobody") }
        try Tool.require("setpriv", for: "runs the tool as nobody")
        let dir = try TempDir("rootonlymeta")
        let folder = try SimulatorDeviceTests.device(
            dir.sub("set"), SimulatorDeviceTests.booted, name: "iPhone 17", state: 3)
        let plist = folder + "/data/Containers/Data/Application/1111/" + Container.simulatorMetadata
        XCTAssertEqual(chmod(plist, 0o600), 0)
        _ = try shell("chmod -R a+rX set && chmod 0600 '\(plist)'", in: dir.path)
        let r = try CLI.run(["scan", folder, "--app", SimulatorDeviceTests.app], asNobody: true)
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertTrue(
            r.stderr.contains(
                "1 container could not be told, which may be the app's: "
                    + "\(folder)/data/Containers/Data/Application/1111 (its metadata plist: permission denied)"
            ), r.stderr)
    }
}
