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

/// Sizes an input claims cannot trap: two sparse 2^62-byte members of a 255-byte .tar.gz, two
/// huge sparse files on a folder. And path bytes are bounded in total: a deep chain, and many
/// files at the bottom of one, each finish in bounded time and memory (docs/limits.md).
final class SizeOverflowTests: XCTestCase {
    /// A .tar.gz of pax GNU sparse 1.0 members of `realSize` bytes each holding one byte.
    static let sparseTar = """
        import gzip, io, sys, tarfile
        out, real = sys.argv[1], int(sys.argv[2])
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
            for name in ("Documents/a.bin", "Documents/b.bin"):
                data = (b"1\\n%d\\n1\\n" % (real - 1)).ljust(512, b"\\0") + b"x"
                info = tarfile.TarInfo("GNUSparseFile.0/" + name.split("/")[-1])
                info.size = len(data)
                info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0",
                                    "GNU.sparse.name": name, "GNU.sparse.realsize": str(real)}
                t.addfile(info, io.BytesIO(data))
        open(out, "wb").write(gzip.compress(buf.getvalue(), 9))
        """

    func testSizesPast2To63AreAProblemNotATrap() throws {
        try Tool.require("python3", "time", for: "the archive is written by Python; time measures the run")
        let dir = try TempDir("overflow")
        try python(Self.sparseTar, [dir.sub("two.tar.gz"), "\(1 << 62)"])
        for command in [["scan"], ["inventory"], ["simulate", "restore"], ["scan", "--format", "json"]] {
            let m = try Measured.run(command + [dir.sub("two.tar.gz")])
            // Sizes past 2^63 are a problem, not a trap: the members are not read, the run incomplete.
            XCTAssertEqual(m.result.status, 1, "\(command): \(m.result.stderr)")
            XCTAssertLessThanOrEqual(m.seconds, 10, "\(command)")
            XCTAssertLessThanOrEqual(m.peakMB, 300, "\(command)")
        }
        let inventory = try Audit.inventory(of: dir.sub("two.tar.gz"))
        XCTAssertEqual(inventory.total.size, Inventory.maximumTotal)
        XCTAssertEqual(inventory.problems.map(\.path.display), ["Documents/a.bin"])
        XCTAssertTrue(inventory.problems[0].reason.contains("more than any device holds"), inventory.problems[0].reason)
        let scan = try CLI.scanJSON([dir.sub("two.tar.gz")]).json
        let findings = scan["findings"] as? [[String: Any]] ?? []
        XCTAssertTrue(
            findings.contains {
                $0["ruleId"] as? String == "unreadable-entry" && $0["path"] as? String == "Documents/a.bin"
            }, "\(findings)")
    }

    func testHugeSparseFilesOnAFolder() throws {
        // tmpfs holds a 2^62-byte sparse file; ext4 and most disks stop at 16 TiB.
        let shm = "/dev/shm/sa-hugefiles-\(getpid())"
        guard mkdir(shm, 0o755) == 0 else { throw XCTSkip("no /dev/shm (tmpfs) to hold 2^62-byte sparse files") }
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/rm"), arguments: ["-rf", shm]).waitUntilExit() }
        struct Dir {
            let path: String
            func sub(_ r: String) -> String { path + "/" + r }
        }
        let dir = Dir(path: shm)
        try Fixture.container(at: dir.sub("App"))
        // 2^62 bytes each where the file system allows it (tmpfs does), else its largest.
        var made = 0
        for name in ["a.bin", "b.bin"] {
            let fd = open(dir.sub("App/Documents/" + name), O_CREAT | O_WRONLY, 0o644)
            XCTAssertGreaterThanOrEqual(fd, 0)
            if ftruncate(fd, off_t(1) << 62) == 0 { made += 1 }
            close(fd)
        }
        guard made == 2 else {
            throw XCTSkip("/dev/shm holds no 2^62-byte sparse file here")
        }
        let r = try CLI.run(["scan", dir.sub("App")])
        XCTAssertEqual(r.status, 1, r.stderr)  // sizes no device holds are not read: incomplete
        XCTAssertTrue(r.stdout.contains("more than any device holds"), r.stdout)
        // Sizes no device holds are reported as not read: the input is incomplete, accepted here.
        let simulate = try CLI.run([
            "simulate", "update", dir.sub("App"), "--into", dir.sub("out"), "--allow-incomplete",
        ])
        // Holes stay holes: the copy fits where the file system takes such sizes, else it is
        // refused before anything is written.
        XCTAssertTrue([0, 2].contains(simulate.status), simulate.stderr)
        if simulate.status == 2 {
            XCTAssertTrue(
                simulate.stderr.contains("not enough space") || simulate.stderr.contains("nothing written"),
                simulate.stderr)
        }
    }

    func testSaturatingSums() {
        XCTAssertEqual(Int64.max.addingSaturated(1), .max)
        XCTAssertEqual(Int64.min.addingSaturated(-1), .min)
        XCTAssertEqual([Int64(1) << 62, 1 << 62, 5].byteSum { $0 }, .max)
        var total: Int64 = .max - 1
        total +|= 10
        XCTAssertEqual(total, .max)
    }

    /// A pax .tar.gz of a `depth`-deep chain of folders under Documents with `wide` empty
    /// files at its bottom.
    static let deepTar = """
        import gzip, sys, tarfile
        out, depth, wide = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        implied = len(sys.argv) > 4  # no folder members: the files imply every folder above them
        with gzip.open(out, "wb", compresslevel=6) as g:
            with tarfile.open(fileobj=g, mode="w|", format=tarfile.PAX_FORMAT) as t:
                path = "Documents"
                for i in range(depth + 1):
                    if not implied or i == 0:
                        info = tarfile.TarInfo(path); info.type = tarfile.DIRTYPE; t.addfile(info)
                    path += "/d"
                path = path[:-2]
                for j in range(wide):
                    info = tarfile.TarInfo(path + "/f%05d" % j); t.addfile(info)
        """

    /// A 16,300-deep chain, 20,000 files at the bottom of a 16,000-deep chain, and 5,000 files at
    /// the bottom of a 16,000-deep chain of folders no member stores (so every file implies
    /// them: the fuzzer's case, 700 MB before implied folders counted): the paths kept, the
    /// implied folders' included, stop at `ArchiveWalk.maximumPathBytes` in total, with a problem.
    func testDeepAndWideArchivesAreBounded() throws {
        try Tool.require("python3", "time", for: "the archives are written by Python; time measures the run")
        let dir = try TempDir("deep")
        for (name, depth, wide, implied) in [
            ("chain.tar.gz", 16_300, 0, false), ("wide.tar.gz", 16_000, 20_000, false),
            ("implied.tar.gz", 16_000, 5_000, true),
        ] {
            try python(Self.deepTar, [dir.sub(name), "\(depth)", "\(wide)"] + (implied ? ["implied"] : []))
            let m = try Measured.run(["scan", "--format", "json", dir.sub(name)])
            // the paths past the bound are missed: incomplete
            XCTAssertEqual(m.result.status, 1, "\(name): \(m.result.stderr)")
            XCTAssertLessThanOrEqual(m.peakMB, 300, name)
            // Debug builds are several times slower than release; the bound is for release.
            XCTAssertLessThanOrEqual(m.seconds, Self.isDebug ? 120 : 10, name)
            XCTAssertTrue(
                m.result.stdout.contains(
                    implied
                        ? "with the folders they imply, add up to more than 64 MiB" : "paths add up to more than 64 MiB"
                ),
                "\(name): \(m.result.stdout.prefix(2000))")
            print("SizeOverflowTests: \(name): exit \(m.result.status), \(m.seconds) s, \(Int(m.peakMB)) MB")
        }
    }

    /// `simulate --into` of the 16,000-deep chain with 20,000 files at its bottom costs about
    /// what the scan does (it reads the archive once more and writes what the scan kept): 60.6 s
    /// and 1,085 MB, then 19 s (release) against a 2.9 s scan, when every file's folder was
    /// reached by splitting its whole path and each member's path was normalised component by
    /// component, copied.
    func testIntoADeepAndWideArchiveCostsAboutTheScan() throws {
        try Tool.require("python3", "time", for: "the archive is written by Python; time measures the run")
        let dir = try TempDir("deepinto")
        try python(Self.deepTar, [dir.sub("wide.tar.gz"), "16000", "20000"])
        let scan = try Measured.run(["scan", "--format", "json", dir.sub("wide.tar.gz")])
        let into = try Measured.run(["simulate", "restore", dir.sub("wide.tar.gz"), "--into", dir.sub("out")])
        XCTAssertEqual(into.result.status, 1, into.result.stderr)  // as the scan: the paths past the bound are missed
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.sub("out/Documents/d/d")))
        print(
            "SizeOverflowTests: --into \(into.seconds) s, \(Int(into.peakMB)) MB; the scan \(scan.seconds) s, "
                + "\(Int(scan.peakMB)) MB"
        )
        XCTAssertLessThanOrEqual(
            into.seconds, 3 * scan.seconds + 3, "--into \(into.seconds) s, the scan \(scan.seconds) s")
        XCTAssertLessThanOrEqual(into.seconds, Self.isDebug ? 60 : 10)
        XCTAssertLessThanOrEqual(into.peakMB, 300)
    }

    /// A baseline is input too: its sizes are summed and subtracted against the scan's. Sizes at
    /// Int64.max compare without a trap (the deltas of two sizes in 0…Int64.max fit); a negative
    /// one is not a baseline this tool wrote: one line, exit 2.
    func testBaselineSizesCannotTrap() throws {
        let dir = try TempDir("baseline-sizes")
        try Fixture.container(at: dir.sub("c"))
        try Fixture.file(dir.sub("c/Documents/a.bin"), size: 1000)
        XCTAssertEqual(try CLI.run(["scan", "--write-baseline", dir.sub("b.json"), dir.sub("c")]).status, 0)
        let text = try String(contentsOfFile: dir.sub("b.json"), encoding: .utf8)
        var json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        json["backupFootprint"] = Int64.max
        json["zones"] = (json["zones"] as! [[String: Any]]).map { z in
            z.merging(["size": Int64.max, "backedUpSize": Int64.max]) { $1 }
        }
        json["files"] = (json["files"] as! [[String: Any]]).map { f in f.merging(["size": Int64.max]) { $1 } }
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: dir.sub("huge.json")))
        for format in ["text", "json", "markdown", "html"] {
            let r = try CLI.run(["scan", "--baseline", dir.sub("huge.json"), "--format", format, dir.sub("c")])
            XCTAssertEqual(r.status, 0, "\(format): \(r.stderr)")  // nothing reaches error, whatever the baseline says
        }
        json["backupFootprint"] = -1
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: dir.sub("negative.json")))
        let r = try CLI.run(["scan", "--baseline", dir.sub("negative.json"), dir.sub("c")])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("backupFootprint is negative"), r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
    }

    static var isDebug: Bool { CLI.executable.contains("/debug/") }
}
