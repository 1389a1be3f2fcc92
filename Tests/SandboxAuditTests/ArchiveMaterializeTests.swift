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

/// `simulate EVENT ARCHIVE --into DIR`: the archive is read again as a stream, and the tree it
/// leaves equals the tree materialised from the same container as a folder. Archives are made by
/// the real tools: GNU tar with `--xattrs`, bsdtar, Info-ZIP with a `__MACOSX/` tree.
final class ArchiveMaterializeTests: XCTestCase {
    static let tag = "user.example.tag"

    /// Excluded folders and files (natively and by sidecar), a symlink, a sparse file with data
    /// in the middle, a file with another attribute, a root-level folder; with `links`, a file
    /// in tmp hard-linked from Documents and Library/Caches, and a FIFO.
    func makeContainer(_ root: String, links: Bool) throws {
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 1200)
        try Fixture.bytes(root + "/Documents/hello.txt", Array("hello, world\n".utf8))
        chmod(root + "/Documents/notes.txt", 0o640)
        try Fixture.file(root + "/Documents/Drafts/a.md", size: 40)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Documents/Drafts", carrier: .native)
        try FileManager.default.createSymbolicLink(atPath: root + "/Documents/latest", withDestinationPath: "notes.txt")
        let sparse = root + "/Library/Application Support/Packs/p1.bin"
        try Fixture.file(sparse, size: 3_000_000)
        let fd = open(sparse, O_WRONLY)
        _ = Array("middle".utf8).withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 1_500_000) }
        close(fd)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/Packs",
            carrier: .sidecar)
        try Fixture.file(root + "/Library/Application Support/index.db", size: 5000)
        try XAttr.set(
            path: Array((root + "/Library/Application Support/index.db").utf8), name: Self.tag,
            value: Array("blue".utf8))
        try Fixture.file(root + "/Library/Application Support/one.bin", size: 20)
        try BackupMarker.set(
            .exclude, value: Array("com.apple.backupd".utf8), on: root + "/Library/Application Support/one.bin",
            carrier: .native)
        try Fixture.file(root + "/Library/Application Support/legacy.bin", size: 30)
        try BackupMarker.set(
            .legacy, value: BackupAttribute.legacyValue, on: root + "/Library/Application Support/legacy.bin",
            carrier: .native)
        try Fixture.file(root + "/Library/Caches/c.json", size: 700)
        try Fixture.file(root + "/Library/Preferences/com.example.plist", size: 90)
        try Fixture.file(root + "/tmp/upload.part", size: 300)
        try Fixture.file(root + "/Downloads/ep1.mp3", size: 200_000)
        if links {
            try Fixture.bytes(root + "/tmp/shared.bin", Array(repeating: 0x5A, count: 20_000))
            try XAttr.set(path: Array((root + "/tmp/shared.bin").utf8), name: Self.tag, value: Array("green".utf8))
            XCTAssertEqual(link(root + "/tmp/shared.bin", root + "/Documents/shared.bin"), 0)
            XCTAssertEqual(link(root + "/tmp/shared.bin", root + "/Library/Caches/shared-copy.bin"), 0)
            XCTAssertEqual(mkfifo(root + "/Library/Application Support/ipc", 0o600), 0)
        }
        chmod(root, 0o750)
        try setTimes(root)
    }

    /// Whole-second modification times, a different one per path, the same for the same relative
    /// path under any root (zip keeps seconds only).
    func setTimes(_ root: String) throws {
        try python(
            """
            import os, sys, zlib
            root = sys.argv[1]
            for dirpath, dirs, files in os.walk(root, topdown=False):
                for name in files + dirs + [""]:
                    p = os.path.join(dirpath, name) if name else dirpath
                    t = 1_600_000_000 + zlib.crc32(os.path.relpath(p, root).encode()) % 50_000_000
                    os.utime(p, (t, t), follow_symlinks=False)
            """, [root])
    }

    /// Every field of each inventory line but the allocated size, by path.
    func model(_ path: String) throws -> [String: String] {
        let (entries, _, result) = try CLI.inventory(path)
        XCTAssertEqual(result.status, 0, result.stderr)
        var out: [String: String] = [:]
        for (p, e) in entries {
            var e = e
            e.removeValue(forKey: "allocated")
            if e["kind"] as? String == "directory" { e.removeValue(forKey: "size") }
            out[p] = String(
                decoding: try JSONSerialization.data(withJSONObject: e, options: [.sortedKeys]), as: UTF8.self)
        }
        return out
    }

    func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Materialises `archive` for every event and checks it against the folder `source`
    /// materialised for the same event.
    func assertMaterialisesAsTheFolder(
        _ archive: String, source: String, in dir: TempDir, label: String, sparse: Bool, links: Bool
    ) throws {
        let before = contents(archive)
        var archiveStat = stat()
        lstat(archive, &archiveStat)
        for event in SimulatedEvent.allCases {
            let fromFolder = dir.sub("folder-\(label)-\(event.rawValue)")
            let fromArchive = dir.sub("archive-\(label)-\(event.rawValue)")
            let f = try CLI.run(["simulate", event.rawValue, source, "--into", fromFolder, "--verify"])
            XCTAssertEqual(f.status, 0, "folder \(event): \(f.stdout) \(f.stderr)")
            let r = try CLI.run(["simulate", event.rawValue, archive, "--into", fromArchive, "--verify"])
            XCTAssertEqual(r.status, 0, "\(label) \(event): \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stdout.contains("verified: the materialised container matches the prediction"), r.stdout)

            let want = try model(fromFolder)
            let got = try model(fromArchive)
            XCTAssertEqual(Set(got.keys), Set(want.keys), "\(label) \(event)")
            for (p, m) in want where got[p] != m {
                XCTFail("\(label) \(event): \(p)\n  archive \(got[p] ?? "-")\n  folder  \(m)")
            }
            for (p, m) in want where m.contains("\"kind\":\"file\"") {
                XCTAssertEqual(
                    contents(fromArchive + "/" + p), contents(fromFolder + "/" + p), "\(label) \(event): \(p) bytes")
            }
            var a = stat()
            var b = stat()
            lstat(fromArchive, &a)
            lstat(source, &b)
            XCTAssertEqual(a.st_mode, b.st_mode, "\(label) \(event): the data root keeps its mode")
            XCTAssertEqual(a.mtimeSpec.tv_sec, b.mtimeSpec.tv_sec, "\(label) \(event): and its time")
            XCTAssertEqual(
                try FileManager.default.destinationOfSymbolicLink(atPath: fromArchive + "/Documents/latest"),
                "notes.txt")
            XCTAssertEqual(
                try XAttr.value(
                    .path(Array((fromArchive + "/Library/Application Support/index.db").utf8)), name: Self.tag) ?? [],
                links ? Array("blue".utf8) : [], "\(label) \(event): other attributes travel in tar only")
            if event != .restore {
                let p1 = fromArchive + "/Library/Application Support/Packs/p1.bin"
                XCTAssertEqual(lstat(p1, &a), 0)
                XCTAssertEqual(a.st_size, 3_000_000)
                if sparse { XCTAssertLessThan(a.st_blocks * 512, 100_000, "\(label) \(event): holes stay holes") }
            }
            if links {
                // The data is in tmp, which no event keeps; Documents keeps a link to it.
                let shared = fromArchive + "/Documents/shared.bin"
                XCTAssertEqual(contents(shared), Data(repeating: 0x5A, count: 20_000), "\(label) \(event)")
                XCTAssertEqual(
                    try XAttr.value(.path(Array(shared.utf8)), name: Self.tag), Array("green".utf8), "\(label) \(event)"
                )
                XCTAssertFalse(FileManager.default.fileExists(atPath: fromArchive + "/tmp/shared.bin"))
                XCTAssertEqual(lstat(shared, &a), 0)
                if event == .update {
                    XCTAssertEqual(lstat(fromArchive + "/Library/Caches/shared-copy.bin", &b), 0)
                    XCTAssertEqual(a.st_ino, b.st_ino, "\(label): hard links stay links")
                    XCTAssertEqual(a.st_nlink, 2)
                } else {
                    XCTAssertEqual(a.st_nlink, 1, "\(label) \(event)")
                }
                XCTAssertEqual(lstat(fromArchive + "/Library/Application Support/ipc", &a), 0)
                XCTAssertEqual(a.st_mode & S_IFMT, S_IFIFO)
            }
        }
        XCTAssertEqual(contents(archive), before, "\(label): the archive is only read")
        var after = stat()
        lstat(archive, &after)
        XCTAssertEqual(after.mtimeSpec.tv_sec, archiveStat.mtimeSpec.tv_sec)
        XCTAssertEqual(after.mtimeSpec.tv_nsec, archiveStat.mtimeSpec.tv_nsec)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
            $0.contains(".sandbox-audit-")
        }
        XCTAssertEqual(leftovers, [], "no temporary tree left")
    }

    func testTarArchivesMaterialiseAsTheFolderDoes() throws {
        try Tool.require("gzip", "bsdtar", for: "the archives are made with GNU tar where there is one and bsdtar")
        let dir = try TempDir("amtar")
        try makeContainer(dir.sub("App"), links: true)
        // tmp first, so that the data of the hard-linked file is in tmp's member.
        try sh("{ find App/tmp; find App -path App/tmp -prune -o -print; } > list", in: dir.path)
        // GNU tar where there is one; otherwise (macOS) bsdtar makes those archives too.
        let tar =
            GNUTar.command.map { "\($0) --xattrs --xattrs-include='*' --sparse --no-recursion" } ?? "bsdtar --xattrs -n"
        try sh("\(tar) -cf gnu.tar -T list", in: dir.path)
        try sh("\(tar) -czf gnu.tar.gz -T list", in: dir.path)
        try sh("bsdtar --xattrs -n -cf bsd.tar -T list", in: dir.path)
        for archive in ["gnu.tar", "bsd.tar"] {
            let kinds = try python(
                """
                import tarfile, sys
                for m in tarfile.open(sys.argv[1]):
                    if m.name.endswith("shared.bin") or m.name.endswith("shared-copy.bin"): print(m.name, m.islnk())
                """, [dir.sub(archive)])
            XCTAssertEqual(
                kinds,
                "App/tmp/shared.bin False\nApp/Documents/shared.bin True\nApp/Library/Caches/shared-copy.bin True\n",
                archive)
        }
        for archive in ["gnu.tar", "gnu.tar.gz", "bsd.tar"] {
            try assertMaterialisesAsTheFolder(
                dir.sub(archive), source: dir.sub("App"), in: dir, label: archive, sparse: true, links: true)
        }
    }

    /// A Finder-style zip: the attributes are in `__MACOSX/` (made as ArchiveTests does); zip keeps
    /// no hard links, FIFOs or other attributes.
    func testZipWithMacOSXTreeMaterialisesAsTheFolderDoes() throws {
        try Tool.require("zip", for: "the Finder-style archive is made with Info-ZIP")
        let dir = try TempDir("amzip")
        try makeContainer(dir.sub("App"), links: false)
        try Fixture.finderZipTree(in: dir.path)
        let tagged = Array(dir.sub("Zipped/Library/Application Support/index.db").utf8)
        try XAttr.remove(path: tagged, name: Self.tag)
        try setTimes(dir.sub("Zipped"))
        try sh(
            "mv App Folder && mv Zipped App && zip -qry app.zip App __MACOSX && rm -rf App && mv Folder App",
            in: dir.path)
        try assertMaterialisesAsTheFolder(
            dir.sub("app.zip"), source: dir.sub("App"), in: dir, label: "app.zip", sparse: false, links: false)
    }

    /// A path stored twice (the later copy counts, whatever its kind), a hard link to a member
    /// that the event drops, and the data root as the archive's own root.
    func testPathsStoredTwiceAndLinksWritten() throws {
        let dir = try TempDir("amtwice")
        try python(
            """
            import tarfile, io
            def add(t, name, data=b"", kind=tarfile.REGTYPE, link="", mtime=1_650_000_000):
                i = tarfile.TarInfo(name); i.type = kind; i.linkname = link; i.mtime = mtime; i.mode = 0o644
                i.size = len(data) if kind == tarfile.REGTYPE else 0
                if kind == tarfile.DIRTYPE: i.mode = 0o755
                t.addfile(i, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
            with tarfile.open("twice.tar", "w", format=tarfile.PAX_FORMAT) as t:
                add(t, "./", kind=tarfile.DIRTYPE, mtime=1_600_000_000)
                for d in ["Documents", "Library", "Library/Caches", "tmp"]: add(t, d, kind=tarfile.DIRTYPE)
                add(t, "tmp/data", b"the data")
                add(t, "Documents/twice.txt", b"one")
                add(t, "Documents/twice.txt", b"two!", mtime=1_650_000_100)
                add(t, "Documents/became-link", b"a file first")
                add(t, "Documents/became-link", kind=tarfile.SYMTYPE, link="twice.txt")
                add(t, "Documents/data-link", kind=tarfile.LNKTYPE, link="tmp/data")
                add(t, "Library/Caches/cached", b"cached")
            """, in: dir.path)
        for event in SimulatedEvent.allCases {
            let out = dir.sub("out-\(event.rawValue)")
            // The paths stored twice are reported as not read (the input is incomplete): accepted here.
            let r = try CLI.run([
                "simulate", event.rawValue, dir.sub("twice.tar"), "--into", out, "--verify", "--allow-incomplete",
            ])
            XCTAssertEqual(r.status, 0, "\(event): \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stdout.hasPrefix("INCOMPLETE SCAN: 2 items could not be read"), r.stdout)
            XCTAssertEqual(contents(out + "/Documents/twice.txt"), Data("two!".utf8), "\(event): the later copy counts")
            XCTAssertEqual(
                try FileManager.default.destinationOfSymbolicLink(atPath: out + "/Documents/became-link"), "twice.txt")
            XCTAssertEqual(contents(out + "/Documents/data-link"), Data("the data".utf8), "\(event)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/tmp/data"))
            XCTAssertEqual(FileManager.default.fileExists(atPath: out + "/Library/Caches/cached"), event == .update)
            var st = stat()
            lstat(out, &st)
            XCTAssertEqual(st.st_mode & 0o7777, 0o755)
            XCTAssertEqual(st.mtimeSpec.tv_sec, 1_600_000_000, "the root takes the time of ./")
            lstat(out + "/Documents/twice.txt", &st)
            XCTAssertEqual(st.mtimeSpec.tv_sec, 1_650_000_100)
            let inventory = try CLI.inventory(out).entries
            XCTAssertEqual(
                Set(inventory.keys),
                Set(
                    try CLI.inventory(dir.sub("twice.tar")).entries.keys.filter {
                        event == .update
                            ? !$0.hasPrefix("tmp/") : !$0.hasPrefix("tmp/") && !$0.hasPrefix("Library/Caches/")
                    }), "\(event)")
        }
    }

    /// The archive scanned, then cut short (or changed) in place before it is read again: nothing
    /// at DIR, no temporary tree. And a truncated archive on the command line: exit 2, nothing written.
    func testFailureLeavesNothing() throws {
        try Tool.require("tar", for: "the archives are made with tar")
        let dir = try TempDir("amfail")
        try makeContainer(dir.sub("App"), links: false)
        try Fixture.bytes(
            dir.sub("App/Documents/zz-last.bin"), (0..<400_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        // Preferences/com.example.plist stored last, so that leaving it out moves no other member.
        try sh(
            "find App ! -name com.example.plist | sort > list && echo App/Library/Preferences/com.example.plist >> "
                + "list",
            in: dir.path)
        try sh("tar --no-recursion -cf good.tar -T list && cp good.tar whole.tar", in: dir.path)
        let simulation = SimulationResult(.update, try Audit.inventory(of: dir.sub("good.tar")))

        // Cut inside the last file's data, in place (the copy reads the file the scan opened).
        let size = try FileManager.default.attributesOfItem(atPath: dir.sub("good.tar"))[.size] as! Int
        XCTAssertEqual(truncate(dir.sub("good.tar"), off_t(size - 200_000)), 0)
        XCTAssertThrowsError(try Materializer.write(simulation, into: dir.sub("out"))) { error in
            XCTAssertTrue("\(error)".contains("nothing written to \(dir.sub("out"))"), "\(error)")
            // Refused before a byte is read: the file is not what was scanned (its size changed).
            XCTAssertTrue("\(error)".contains("changed since it was scanned"), "\(error)")
        }
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
            ["App", "good.tar", "list", "whole.tar"], "no DIR, no temporary tree")

        // Written over in place since the scan, with the same size and time: a member gone at the
        // end, or members moved. Each member is still checked against the scan.
        // POSIX sed, tar --no-recursion -T (GNU tar and bsdtar alike) and truncate(2): the same on
        // Linux and on macOS (bsdtar as tar, no truncate command).
        for change in ["sed '$d' list > short", "grep -v hello.txt list > short"] {
            try sh("cp whole.tar good.tar", in: dir.path)
            let simulation = SimulationResult(.update, try Audit.inventory(of: dir.sub("good.tar")))
            try sh(
                "touch -r good.tar ref && \(change) && tar --no-recursion -cf short.tar -T short && cat short.tar > "
                    + "good.tar",
                in: dir.path)
            XCTAssertEqual(truncate(dir.sub("good.tar"), off_t(size)), 0)
            try sh("touch -r ref good.tar && rm short short.tar ref", in: dir.path)
            // Refused as the rewritten bytes are read: the runs the scan read no longer match
            // (the members are also checked against the scan's, past the runs it did not read).
            XCTAssertThrowsError(try Materializer.write(simulation, into: dir.sub("out"))) { error in
                XCTAssertTrue(
                    "\(error)".contains("changed since it was scanned (bytes the scan read differ now)")
                        || "\(error)".contains("does not read as it did when it was scanned"), "\(error)")
            }
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
                ["App", "good.tar", "list", "whole.tar"])
        }

        try sh("head -c \(size - 200_000) whole.tar > cut.tar", in: dir.path)
        let r = try CLI.run(["simulate", "restore", dir.sub("cut.tar"), "--into", dir.sub("out"), "--verify"])
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("damaged or truncated"), r.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
            ["App", "cut.tar", "good.tar", "list", "whole.tar"])
    }

    /// A write that fails midway (the file size limit, as a full disk would) and an interrupt
    /// while the tree is being written: nothing at DIR, no temporary tree.
    func testWriteFailureAndInterruptLeaveNothing() throws {
        try Tool.require("tar", "gzip", for: "the archive is made with tar -z")
        let dir = try TempDir("amstop")
        try makeContainer(dir.sub("App"), links: false)
        try Fixture.bytes(dir.sub("App/Documents/big.bin"), (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try sh("tar -czf app.tgz App", in: dir.path)
        let limited = try shell(
            "trap '' XFSZ; ulimit -f 1000; exec \"$0\" simulate update app.tgz --into out", in: dir.path)
        XCTAssertEqual(limited.status, 2, limited.stderr)
        XCTAssertTrue(limited.stderr.contains("nothing written to out"), limited.stderr)
        XCTAssertTrue(limited.stderr.contains("Documents/big.bin"), limited.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["App", "app.tgz"])

        try python(
            """
            import tarfile, io
            with tarfile.open("many.tar", "w") as t:
                for d in range(200):
                    i = tarfile.TarInfo("App/Documents/d%03d" % d); i.type = tarfile.DIRTYPE; t.addfile(i)
                    for f in range(200):
                        i = tarfile.TarInfo("App/Documents/d%03d/f%03d" % (d, f)); i.size = 1; t.addfile(i, \
            io.BytesIO(b"z"))
            """, in: dir.path)
        let run = try interruptMaterializing(dir.sub("many.tar"), in: dir.path, with: SIGINT)
        let message = run.stderr
        XCTAssertTrue(run.writing, "the tree was never started")
        XCTAssertEqual(run.status, 2, message)
        XCTAssertTrue(message.contains("nothing written to \(dir.sub("out")): interrupted"), message)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["App", "app.tgz", "many.tar"])
    }

    func testRefusesANonEmptyDestination() throws {
        try Tool.require("tar", "gzip", for: "the archive is made with tar -z")
        let dir = try TempDir("amfull")
        try makeContainer(dir.sub("App"), links: false)
        try sh("tar -czf app.tgz App", in: dir.path)
        try Fixture.file(dir.sub("full/x"), size: 1)
        let r = try CLI.run(["simulate", "restore", dir.sub("app.tgz"), "--into", dir.sub("full")])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("is not empty"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.sub("full")), ["x"])
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["App", "app.tgz", "full"])
        try Fixture.mkdirs(dir.sub("empty"))
        let ok = try CLI.run(["simulate", "purge", dir.sub("app.tgz"), "--into", dir.sub("empty"), "--verify"])
        XCTAssertEqual(ok.status, 0, "an empty folder is fine: \(ok.stderr)")
        let short = try CLI.run(["simulate", "update", "app.tgz", "--into", "u", "--verify"], cwd: dir.path)
        XCTAssertEqual(short.status, 0, "a one-letter relative DIR: \(short.stderr)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.sub("u/Documents/notes.txt")))
    }
}
