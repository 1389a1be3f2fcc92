import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

extension HostileInputTests {
    func testExcludeAndIncludeKeepEveryOtherByteOwnerAndMode() throws {
        let dir = try TempDir()
        let file = dir.sub("doc.txt")
        let sidecar = dir.sub("._doc.txt")
        try Fixture.file(file, size: 3)
        let original = Self.richSidecar()
        try Fixture.bytes(sidecar, AppleDouble.build(original))
        XCTAssertEqual(try AppleDouble.parse(AppleDouble.build(original)), original)
        // Another owner needs root; as any other user the sidecar keeps that user's own (the
        // owner check then holds trivially, the mode and bytes checks do not).
        let (uid, gid): (uid_t, gid_t) = geteuid() == 0 ? (65534, 65534) : (geteuid(), getegid())
        XCTAssertEqual(chown(sidecar, uid, gid), 0)
        XCTAssertEqual(chmod(sidecar, 0o600), 0)

        let ex = try CLI.run(["exclude", "--carrier", "sidecar", file])
        XCTAssertEqual(ex.status, 0, ex.stderr)
        var after = try AppleDouble.parse(
            try FileDescriptor.currentDirectory.readFile(sidecar.utf8, limit: AppleDouble.maximumSize))
        XCTAssertEqual(
            after.entries.filter { BackupAttribute(attributeName: $0.name) == .exclude }.map(\.value),
            [BackupAttribute.canonicalValue])
        after.entries.removeAll { BackupAttribute(attributeName: $0.name) == .exclude }
        XCTAssertEqual(after, original)
        XCTAssertEqual(after.resourceFork.count, 180)
        XCTAssertEqual(after.filler, original.filler)
        XCTAssertEqual(after.entries.first?.flags, 0x0001)
        var st = stat()
        XCTAssertEqual(lstat(sidecar, &st), 0)
        XCTAssertEqual(st.st_uid, uid)
        XCTAssertEqual(st.st_gid, gid)
        XCTAssertEqual(st.st_mode & 0o7777, 0o600)

        let inc = try CLI.run(["include", "--carrier", "sidecar", file])
        XCTAssertEqual(inc.status, 0, inc.stderr)
        XCTAssertTrue(inc.stdout.contains("cleared"), inc.stdout)
        let restored = try AppleDouble.parse(
            try FileDescriptor.currentDirectory.readFile(sidecar.utf8, limit: AppleDouble.maximumSize))
        XCTAssertEqual(restored, original)
        XCTAssertEqual(lstat(sidecar, &st), 0)
        XCTAssertEqual(st.st_uid, uid)
        XCTAssertEqual(st.st_mode & 0o7777, 0o600)
        // The attribute with the non-UTF-8 name is still under its own bytes, not `\xFF\xFE`.
        XCTAssertEqual(restored.entries.first?.name, [0xFF, 0xFE])
    }

    func testExcludeOnDotNamesTheSidecarAfterTheFolder() throws {
        let dir = try TempDir()
        try Fixture.mkdirs(dir.sub("Packs"))
        let r = try CLI.run(["exclude", "--carrier", "sidecar", "."], cwd: dir.sub("Packs"))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.sub("._Packs")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("Packs/._.")))
        let a = try CLI.run(["attributes", "."], cwd: dir.sub("Packs"))
        XCTAssertTrue(a.stdout.contains("[canonical] appledouble"), a.stdout)
        let root = try CLI.run(["exclude", "--carrier", "sidecar", "/"])
        XCTAssertEqual(root.status, 2)
        XCTAssertTrue(root.stderr.contains("root"), root.stderr)
    }

    func testNonUTF8NamesReachExcludeIncludeAndAttributes() throws {
        let dir = try TempDir()
        try NonUTF8Names.require(
            in: dir.path, for: "exclude, include and attributes are run on a file named \\xFF\\xFE")
        let raw: [UInt8] = Array(dir.sub("").utf8) + [0xFF, 0xFE]
        let fd = (raw + [0]).withUnsafeBufferPointer {
            $0.baseAddress!.withMemoryRebound(to: CChar.self, capacity: $0.count) {
                open($0, O_CREAT | O_WRONLY, 0o644)
            }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        func sh(_ command: String) throws -> CLI.Result {
            try CLI.run(
                ["-c", "exec \"$0\" \(command) \"$(printf '\(dir.path)/\\377\\376')\"", CLI.executable], via: "/bin/sh")
        }
        let ex = try sh("exclude --carrier sidecar")
        XCTAssertEqual(ex.status, 0, ex.stderr)
        XCTAssertTrue(ex.stdout.contains("\\xFF\\xFE"), ex.stdout)
        let sidecar = Array(dir.sub("._").utf8) + [0xFF, 0xFE]
        XCTAssertNoThrow(
            try AppleDouble.parse(try FileDescriptor.currentDirectory.readFile(sidecar, limit: AppleDouble.maximumSize))
        )
        // without --carrier, exclude rewrites the sidecar mark in place
        let native = try sh("exclude --carrier native")
        XCTAssertEqual(native.status, 0, native.stderr)
        let at = try sh("attributes")
        XCTAssertEqual(at.status, 0, at.stderr)
        XCTAssertTrue(at.stdout.contains("native") && at.stdout.contains("appledouble"), at.stdout)
        XCTAssertEqual(try sh("include --carrier sidecar").status, 0)
        XCTAssertEqual(try sh("include").status, 0)
    }

    // MARK: minor items

    func testAttributesBesideANonAppleDoubleSidecarReportsAndSucceeds() throws {
        let dir = try TempDir()
        try Fixture.file(dir.sub("a"), size: 1)
        try Fixture.bytes(dir.sub("._a"), Array("not apple double".utf8))
        let r = try CLI.run(["attributes", dir.sub("a")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("is not an AppleDouble file"), r.stdout)
        XCTAssertTrue(r.stdout.contains("no backup attributes"), r.stdout)
        // Writing still refuses to overwrite it.
        let w = try CLI.run(["exclude", "--carrier", "sidecar", dir.sub("a")])
        XCTAssertEqual(w.status, 2)
        XCTAssertTrue(w.stderr.contains("refusing to overwrite"), w.stderr)
    }

    func testReportsEscapeControlCharacters() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Downloads/evil\u{1B}[2J\u{1B}]0;title\u{07}.bin"), size: 3)
        try Fixture.file(dir.sub("Library/Application Support/v.bin"), size: 3)
        try XAttr.set(
            path: Array(dir.sub("Library/Application Support/v.bin").utf8), name: Self.excludeName,
            value: Array("\u{1B}[31mred\u{1B}]8;;http://x\u{07}\u{202E}".utf8))
        for format in ["text", "markdown"] {
            let r = try CLI.run(["scan", "--format", format, dir.path])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertFalse(r.stdout.contains("\u{1B}"), "\(format): raw ESC in \(r.stdout)")
            XCTAssertFalse(r.stdout.contains("\u{07}"), "\(format)")
            XCTAssertFalse(r.stdout.contains("\u{202E}"), "\(format)")
            XCTAssertTrue(r.stdout.contains("x1B"), "\(format): \(r.stdout)")
        }
        XCTAssertEqual(TerminalText.escaped("a\u{1B}b\u{9B}c\u{202E}"), "a\\x1Bb\\u{9B}c\\u{202E}")
        XCTAssertEqual(TerminalText.escaped("plain ü"), "plain ü")
    }

    func testConfigThatIsAFolderOrFIFOIsNamedAndNeverHangs() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        try Fixture.mkdirs(dir.sub("conf.d"))
        XCTAssertEqual(mkfifo(dir.sub("fifo"), 0o644), 0)
        let start = Date()
        for (config, needle) in [("conf.d", "is a directory"), ("fifo", "is not a regular file")] {
            let r = try CLI.run(["scan", "--config", dir.sub(config), dir.sub("c")])
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains(needle), r.stderr)
            XCTAssertFalse(r.stderr.contains("permission denied"), r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        // Over the size limit.
        try Fixture.file(dir.sub("big.yml"), size: PolicyFile.maximumSize + 1)
        let big = try CLI.run(["scan", "--config", dir.sub("big.yml"), dir.sub("c")])
        XCTAssertEqual(big.status, 2)
        XCTAssertTrue(big.stderr.contains("limit"), big.stderr)
    }

    func testYAMLAliasBombAndDeepNestingAreCheap() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("c"))
        var y = "ignore:\n  - &a [x,x,x,x,x,x,x,x,x]\n"
        for i in 1..<10 {
            let prev = String(UnicodeScalar(UInt8(96 + i)))
            let this = String(UnicodeScalar(UInt8(97 + i)))
            y += "  - &\(this) [" + Array(repeating: "*" + prev, count: 9).joined(separator: ",") + "]\n"
        }
        try Fixture.bytes(dir.sub("bomb.yml"), Array(y.utf8))
        try Fixture.bytes(dir.sub("deep.yml"), Array(("ignore: " + String(repeating: "[", count: 200_000)).utf8))
        for f in ["bomb.yml", "deep.yml"] {
            let m = try Measured.run(["scan", "--config", dir.sub(f), dir.sub("c")])
            XCTAssertEqual(m.result.status, 2, "\(f): \(m.result.stderr)")
            XCTAssertLessThan(m.seconds, 10)
            XCTAssertLessThan(m.peakMB, 300)
        }
    }

    /// Reading the identity plist and an archive leaves their access times alone.
    func testIdentityPlistAndArchiveAccessTimesAreUnchanged() throws {
        try AccessTimes.require(for: "the identity plist's and the archive's access times kept")
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("App"))
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["MCMMetadataIdentifier": "com.example.app"], format: .binary, options: 0)
        try Fixture.bytes(dir.sub("App/" + Container.simulatorMetadata), [UInt8](plist))
        try Tool.require("tar", for: "the archive is made with tar")
        try sh("tar -cf app.tar App", in: dir.path)
        // An access time two days old: relatime would update it on any read.
        let old = time(nil) - 2 * 86_400
        for p in [dir.sub("App/" + Container.simulatorMetadata), dir.sub("app.tar")] {
            var times = [timeval(tv_sec: old, tv_usec: 0), timeval(tv_sec: old - 10, tv_usec: 0)]
            XCTAssertEqual(utimes(p, &times), 0)
        }
        let folder = try CLI.run(["scan", "--format", "json", dir.sub("App")])
        XCTAssertTrue(folder.stdout.contains("com.example.app"), folder.stdout)
        XCTAssertEqual(try CLI.run(["scan", dir.sub("app.tar")]).status, 0)
        for p in [dir.sub("App/" + Container.simulatorMetadata), dir.sub("app.tar")] {
            var st = stat()
            XCTAssertEqual(stat(p, &st), 0)
            XCTAssertEqual(st.atimeSpec.tv_sec, old, "\(p): access time changed")
        }
    }
}
