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

/// The smaller items of issue 15 about `simulate --into`: signals, clean-up of read-only
/// folders, the free-space guard, holes from archives, the error of a short write, and DIR
/// checked before anything is done.
final class MaterializeHardeningTests: XCTestCase {
    func names(_ dir: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir).sorted() }

    /// Random bytes: data that takes its size on disk.
    func randomFile(_ path: String, size: Int) throws {
        try Fixture.bytes(path, (0..<size).map { _ in UInt8.random(in: 0...255) })
    }

    /// Every signal that ends the process, sent while the tree is written: exit 2 with the
    /// signal named, nothing at DIR, no temporary tree (SIGQUIT used to end in the runtime's
    /// crash handler, exit 0, the tree left behind).
    func testEverySignalThatEndsTheProcessCleansUp() throws {
        let dir = try TempDir("masig")
        try python(
            """
            import os
            for d in range(120):
                os.makedirs("App/Documents/d%03d" % d)
                for f in range(100): open("App/Documents/d%03d/f%03d" % (d, f), "w").write("z")
            for z in ["Library/Caches", "tmp"]: os.makedirs("App/" + z)
            """, in: dir.path)
        let signals: [(Int32, String)] = [
            (SIGHUP, "SIGHUP"), (SIGPIPE, "SIGPIPE"), (SIGUSR1, "SIGUSR1"), (SIGQUIT, "SIGQUIT"), (SIGTERM, "SIGTERM"),
            (SIGINT, "SIGINT"),
        ]
        for (signal, name) in signals {
            let run = try interruptMaterializing(dir.sub("App"), in: dir.path, with: signal)
            let message = run.stderr
            XCTAssertTrue(run.writing, "\(name): the tree was never started")
            XCTAssertEqual(run.reason, .exit, "\(name): \(message)")
            XCTAssertEqual(run.status, 2, "\(name): \(message)")
            XCTAssertTrue(
                message.contains("nothing written to \(dir.sub("out")): interrupted (\(name))"), "\(name): \(message)")
            XCTAssertEqual(message.split(separator: "\n").count, 1, message)
            XCTAssertEqual(try names(dir.path), ["App"], "\(name): no DIR, no temporary tree")
        }
    }

    /// A run by a user other than root fails after a read-only folder was finished: the clean-up
    /// makes folders writable before it empties them, and leaves nothing.
    func testCleanupRemovesReadOnlyFolders() throws {
        let asNobody = geteuid() == 0
        if asNobody { try Tool.require("setpriv", for: "runs the tool as a user other than root") }
        let dir = try TempDir("maro")
        chmod(dir.path, 0o777)
        let root = dir.sub("App")
        try Fixture.container(at: root)
        for f in 0..<5 { try Fixture.file(root + "/Documents/ro/sub/f\(f)", size: 10) }
        chmod(root + "/Documents/ro/sub", 0o555)
        chmod(root + "/Documents/ro", 0o555)
        try Fixture.file(root + "/Library/Application Support/zz-unreadable.bin", size: 10)
        chmod(root + "/Library/Application Support/zz-unreadable.bin", 0)
        let r = try CLI.run(["simulate", "update", root, "--into", dir.sub("out")], asNobody: asNobody)
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertTrue(
            r.stderr.contains("nothing written to \(dir.sub("out"))") && r.stderr.contains("zz-unreadable.bin"),
            r.stderr)
        XCTAssertEqual(try names(dir.path), ["App"], "no DIR, no temporary tree")
    }

    /// More data than DIR's file system has free: refused before anything is written, in one
    /// line, exit 2. A sparse file counts its data only (holes stay holes).
    func testRefusesWhatDoesNotFitInDIRsFileSystem() throws {
        let dir = try TempDir("maspace")
        try Fixture.mkdirs(dir.sub("small"))
        let mount = try shell("mount -t tmpfs -o size=1m tmpfs \"$PWD/small\"", in: dir.path)
        guard mount.status == 0 else { throw XCTSkip("cannot mount a small tmpfs (needs root): \(mount.stderr)") }
        defer { _ = try? shell("umount \"$PWD/small\"", in: dir.path) }
        try Fixture.container(at: dir.sub("Big"))
        try randomFile(dir.sub("Big/Documents/data.bin"), size: 3_000_000)
        let r = try CLI.run(["simulate", "update", dir.sub("Big"), "--into", dir.sub("small/out")])
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(
            r.stderr.contains("not enough space for \(dir.sub("small/out")): what the update keeps needs 3.00 MB"),
            r.stderr)
        XCTAssertEqual(try names(dir.sub("small")), [], "nothing written")

        try Fixture.container(at: dir.sub("Sparse"))
        try Fixture.file(dir.sub("Sparse/Documents/sparse.bin"), size: 500_000_000)
        try randomFile(dir.sub("Sparse/Documents/data.bin"), size: 100_000)
        let ok = try CLI.run(["simulate", "update", dir.sub("Sparse"), "--into", dir.sub("small/out"), "--verify"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
    }

    /// The copy falls back to read and write across file systems (here into /dev/shm); a write
    /// cut short by the file size limit reports its own error, not copy_file_range's EXDEV.
    func testShortWriteReportsItsOwnError() throws {
        var shm = stat()
        var tmp = stat()
        guard stat("/dev/shm", &shm) == 0, stat(NSTemporaryDirectory(), &tmp) == 0, shm.st_dev != tmp.st_dev else {
            throw XCTSkip("no /dev/shm on another file system than \(NSTemporaryDirectory())")
        }
        let dir = try TempDir("mashort")
        try Fixture.container(at: dir.sub("App"))
        try randomFile(dir.sub("App/Documents/big.bin"), size: 2_000_000)
        var template = Array("/dev/shm/sa-short-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw XCTSkip("cannot write to /dev/shm")
        }
        let target = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: target) }
        let r = try shell(
            "trap '' XFSZ; ulimit -f 1000; exec \"$0\" simulate update App --into \(target)/out", in: dir.path)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(
            r.stderr.contains("nothing written to \(target)/out: write Documents/big.bin: File too large"), r.stderr)
        XCTAssertFalse(r.stderr.contains("cross-device"), r.stderr)
        XCTAssertEqual(try names(target), [])
    }

    /// Archives store holes as zeros unless they were made sparse: the materialised file leaves
    /// its all-zero runs as holes, with the same bytes.
    func testHolesFromArchivesStayHoles() throws {
        try Tool.require("tar", "gzip", "zip", for: "the archives are made with tar and Info-ZIP")
        let dir = try TempDir("maholes")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        let sparse = root + "/Documents/p1.bin"
        try Fixture.file(sparse, size: 3_000_000)
        let fd = open(sparse, O_WRONLY)
        _ = Array("middle".utf8).withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 1_500_000) }
        close(fd)
        for (archive, make) in [
            ("plain.tar", "tar -cf plain.tar App"), ("plain.tgz", "tar -czf plain.tgz App"),
            ("app.zip", "zip -qr app.zip App"),
        ] {
            let made = try shell(make, in: dir.path)
            guard made.status == 0 else { throw CommandFailed(command: make, status: made.status, stderr: made.stderr) }
            let out = dir.sub("out-" + archive)
            let r = try CLI.run(["simulate", "update", dir.sub(archive), "--into", out, "--verify"])
            XCTAssertEqual(r.status, 0, "\(archive): \(r.stderr)")
            var st = stat()
            XCTAssertEqual(lstat(out + "/Documents/p1.bin", &st), 0)
            XCTAssertEqual(st.st_size, 3_000_000)
            XCTAssertLessThan(st.st_blocks * 512, 100_000, "\(archive): holes stay holes")
            XCTAssertEqual(
                FileManager.default.contents(atPath: out + "/Documents/p1.bin"),
                FileManager.default.contents(atPath: sparse), archive)
        }
    }

    /// DIR is checked before the container is read: an empty `--into` or `.` is refused at once
    /// (it used to build the whole tree, then fail), as is a non-empty DIR (before the scan: a
    /// missing source is not reached).
    func testDIRIsCheckedFirst() throws {
        let dir = try TempDir("mafirst")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/a.txt"), size: 10)
        try Fixture.file(dir.sub("full/x"), size: 1)
        let cases: [(String, String, String)] = [
            ("", "App", "--into needs a folder name"),
            (".", "App", "name the folder to create"),
            ("..", "App", "name the folder to create"),
            ("full", "missing", "full is not empty"),
            ("nowhere/out", "App", "nowhere is not a folder"),
        ]
        for (into, source, needle) in cases {
            let r = try CLI.run(["simulate", "update", source, "--into", into], cwd: dir.path)
            XCTAssertEqual(r.status, 2, "\(into): \(r.stdout)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains(needle), "\(into): \(r.stderr)")
            XCTAssertEqual(try names(dir.path), ["App", "full"], "\(into): nothing written")
        }
    }
}
