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

/// Containers read straight out of archives made by the real tools: GNU tar with `--xattrs`,
/// bsdtar with its own pax records, Info-ZIP with a `__MACOSX/` tree. Each inventory equals
/// the inventory of the same container scanned as a directory.
final class ArchiveTests: XCTestCase {
    static let exclude = "user.com.apple.metadata:com_apple_backup_excludeItem"

    /// A container with native attributes under both names and every value class, a sidecar,
    /// folders and files excluded, symlinks; hard links and a FIFO when the format carries them.
    func makeContainer(_ root: String, links: Bool) throws {
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 1200)
        try Fixture.file(root + "/Documents/Drafts/a.md", size: 40)
        try XAttr.set(
            path: Array((root + "/Documents/Drafts").utf8), name: Self.exclude, value: BackupAttribute.canonicalValue)
        for cls in AttributeValueClass.allCases {
            let p = root + "/Library/Application Support/\(cls.rawValue).bin"
            try Fixture.file(p, size: 2000)
            try XAttr.set(path: Array(p.utf8), name: Self.exclude, value: BackupAttribute.sampleValue(cls))
        }
        try Fixture.file(root + "/Library/Application Support/legacy.bin", size: 30)
        try XAttr.set(
            path: Array((root + "/Library/Application Support/legacy.bin").utf8), name: "user.com.apple.MobileBackup",
            value: [1])
        try Fixture.file(root + "/Library/Application Support/sidecar.bin", size: 50)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/sidecar.bin",
            carrier: .sidecar)
        try Fixture.bytes(root + "/Library/Caches/offline.sqlite", VolatileStore.sampleSQLiteFile)
        try Fixture.file(root + "/tmp/upload.part", size: 300)
        try Fixture.file(root + "/Downloads/ep1.mp3", size: 5000)
        try FileManager.default.createSymbolicLink(atPath: root + "/Documents/latest", withDestinationPath: "notes.txt")
        try FileManager.default.createSymbolicLink(atPath: root + "/Documents/out", withDestinationPath: "/etc/hosts")
        if links {
            XCTAssertEqual(link(root + "/Documents/notes.txt", root + "/Library/Caches/notes-copy.txt"), 0)
            XCTAssertEqual(mkfifo(root + "/tmp/pipe", 0o600), 0)
            // Attributes belong to the file: GNU tar stores them on its first path only, and the
            // link's path must still show them.
            let marked = root + "/Library/Application Support/marked.bin"
            try Fixture.file(marked, size: 70)
            try XAttr.set(path: Array(marked.utf8), name: Self.exclude, value: BackupAttribute.canonicalValue)
            try XAttr.set(path: Array(marked.utf8), name: "user.com.apple.MobileBackup", value: [1])
            XCTAssertEqual(link(marked, root + "/Documents/marked-link.bin"), 0)
        }
    }

    /// The model fields of each inventory line, by path (`mtime` only where the format keeps
    /// it exactly; attributes by name, class and value, whatever carried them).
    func model(_ path: String, mtime: Bool) throws -> [String: [String: String]] {
        let (entries, _, result) = try CLI.inventory(path)
        XCTAssertEqual(result.status, 0, result.stderr)
        var out: [String: [String: String]] = [:]
        for (p, e) in entries {
            var m: [String: String] = [:]
            for key in [
                "kind", "special", "zone", "excluded", "excludedBy", "backedUp", "survivesUpdate", "survivesRestore",
                "countsInTotals", "symlinkTarget",
            ] {
                m[key] = e[key].map { "\($0)" }
            }
            if e["kind"] as? String != "directory" { m["size"] = "\(e["size"] ?? "none")" }
            if mtime { m["mtime"] = "\(e["mtime"] ?? "none")" }
            let attrs = (e["attributes"] as? [[String: Any]] ?? []).map {
                "\($0["attribute"] ?? "-") \($0["valueClass"] ?? "-") \($0["valueHex"] ?? "-")"
            }
            m["attributes"] = Set(attrs).sorted().joined(separator: "; ")
            out[p] = m
        }
        return out
    }

    func assertSameModel(_ a: [String: [String: String]], _ b: [String: [String: String]], _ what: String) {
        XCTAssertEqual(Set(a.keys), Set(b.keys), what)
        for (p, m) in a where b[p] != m { XCTFail("\(what): \(p)\n  archive   \(m)\n  directory \(b[p] ?? [:])") }
    }

    func testTarArchivesEqualTheDirectory() throws {
        try Tool.require(
            "gzip", "xz", "bsdtar", for: "the archives are made with GNU tar where there is one (gzip, xz) and bsdtar")
        let dir = try TempDir("tar")
        try makeContainer(dir.sub("App"), links: true)
        let direct = try model(dir.sub("App"), mtime: true)
        // GNU tar where there is one; otherwise (macOS) bsdtar makes the compressed archives too.
        let tar = GNUTar.command.map { "\($0) --xattrs --xattrs-include='*'" } ?? "bsdtar --xattrs"
        try sh("\(tar) -cf gnu.tar App", in: dir.path)
        try sh("\(tar) -czf gnu.tar.gz App", in: dir.path)
        try sh("\(tar) -cJf gnu.tar.xz App", in: dir.path)
        try sh("bsdtar --xattrs -cf bsd.tar App", in: dir.path)
        for archive in ["gnu.tar", "gnu.tar.gz", "gnu.tar.xz", "bsd.tar"] {
            assertSameModel(try model(dir.sub(archive), mtime: true), direct, archive)
        }
        // The scan reports the same findings from the archive.
        let a = try CLI.scanJSON([dir.sub("bsd.tar")]).json
        let d = try CLI.scanJSON([dir.sub("App")]).json
        func keys(_ j: [String: Any]) -> [String] {
            (j["findings"] as? [[String: Any]] ?? []).map { "\($0["ruleId"] ?? "-") \($0["path"] ?? "-")" }
        }
        XCTAssertEqual(keys(a), keys(d))
        XCTAssertEqual(
            (a["totals"] as? [String: Any])?["backupFootprint"] as? Int,
            (d["totals"] as? [String: Any])?["backupFootprint"] as? Int)
    }

    /// A Finder-style zip: attributes travel in `__MACOSX/`, which Info-ZIP stores like any
    /// folder. Zip keeps no hard links or FIFOs and times to two seconds.
    func testZipWithMacOSXTreeEqualsTheDirectory() throws {
        try Tool.require("zip", for: "the Finder-style archive is made with Info-ZIP")
        let dir = try TempDir("zip")
        try makeContainer(dir.sub("App"), links: false)
        let direct = try model(dir.sub("App"), mtime: false)
        try Fixture.finderZipTree(in: dir.path)
        try sh("rm -rf App && mv Zipped App && zip -qry app.zip App __MACOSX", in: dir.path)
        assertSameModel(try model(dir.sub("app.zip"), mtime: false), direct, "app.zip")
    }

    func testXcappdataInsideATar() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("sample-containers").path
        try Tool.require("tar", "gzip", for: "the archive is made with tar -z")
        let dir = try TempDir("xc")
        try sh("tar -czf example.tgz -C '\(samples)' Example.xcappdata", in: dir.path)
        let json = try CLI.scanJSON(["--stale-tmp-age", "36500d", dir.sub("example.tgz")]).json
        let c = json["container"] as! [String: Any]
        XCTAssertEqual(c["kind"] as? String, "xcappdata")
        XCTAssertEqual(c["bundleIdentifier"] as? String, "com.example.journal")
        XCTAssertEqual(c["version"] as? String, "2.3 (41)")
        XCTAssertEqual((json["findings"] as! [[String: Any]]).count, 2)
    }

    /// Hostile archives: a clear error or a finding, never a crash and never a write.
    func testHostileArchives() throws {
        try Tool.require("tar", for: "the truncated and empty archives are made with tar")
        let dir = try TempDir("hostile")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/a.txt"), size: 10)
        let script = """
            import tarfile, io, sys
            def add(t, name, data=b"x", kind=tarfile.REGTYPE, link=""):
                i = tarfile.TarInfo(name); i.type = kind; i.linkname = link; i.size = len(data) if kind == \
            tarfile.REGTYPE else 0
                # A folder as real archives store it: TarInfo's default 0o644 would leave it
                # unreadable to a user other than root once materialised, and --verify says so.
                if kind == tarfile.DIRTYPE: i.mode = 0o755
                t.addfile(i, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
            with tarfile.open("evil.tar", "w") as t:
                add(t, "App/Documents/", kind=tarfile.DIRTYPE)
                add(t, "App/Documents/ok.txt")
                add(t, "/etc/evil")
                add(t, "App/../../outside")
                add(t, "App/Documents/twice.txt", b"one")
                add(t, "App/Documents/twice.txt", b"two!")
                add(t, "App/Documents/link", kind=tarfile.LNKTYPE, link="App/nowhere")
                add(t, "App/Documents/up", kind=tarfile.SYMTYPE, link="../../../etc/passwd")
            """
        try python(script, in: dir.path)
        let (json, r) = try CLI.scanJSON([dir.sub("evil.tar")])
        // Members skipped: the scan is incomplete, which fails it unless accepted.
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(json["complete"] as? Bool, false)
        XCTAssertEqual(try CLI.run(["scan", dir.sub("evil.tar"), "--allow-incomplete"]).status, 0)
        let findings = (json["findings"] as! [[String: Any]]).map { "\($0["ruleId"]!) \($0["path"]!)" }
        XCTAssertTrue(findings.contains("unreadable-entry /etc/evil"), "\(findings)")
        XCTAssertTrue(findings.contains("unreadable-entry App/../../outside"), "\(findings)")
        XCTAssertTrue(findings.contains("unreadable-entry App/Documents/twice.txt"), "\(findings)")
        XCTAssertTrue(findings.contains("unreadable-entry Documents/link"), "\(findings)")
        XCTAssertTrue(findings.contains("symlink-escapes-container Documents/up"), "\(findings)")
        let entries = try CLI.inventory(dir.sub("evil.tar")).entries
        XCTAssertEqual(entries["Documents/twice.txt"]?["size"] as? Int, 4, "the later copy counts")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["App", "evil.tar"],
            "nothing extracted")

        // Truncated, not an archive at all, no container inside: exit 2, one line.
        try sh(
            "tar -cf good.tar App && head -c 3000 good.tar > cut.tar && head -c 5000 /dev/urandom > noise.tar && "
                + "mkdir -p empty/x && tar -cf nothing.tar empty",
            in: dir.path)
        for (file, needle) in [
            ("cut.tar", "damaged or truncated"), ("noise.tar", "tar or zip"),
            ("nothing.tar", "holds no app data container"),
        ] {
            let bad = try CLI.run(["scan", dir.sub(file)])
            XCTAssertEqual(bad.status, 2, "\(file): \(bad.stdout)")
            XCTAssertEqual(bad.stderr.split(separator: "\n").count, 1, bad.stderr)
            XCTAssertTrue(bad.stderr.contains(needle), "\(file): \(bad.stderr)")
        }
        // Materialising from it writes inside DIR only: the later copy of a path stored twice,
        // no member with an unsafe path, no link to nothing.
        // Its unsafe members are not read (an incomplete input, exit 1 unless accepted).
        let refused = try CLI.run(["simulate", "restore", dir.sub("evil.tar")])
        XCTAssertEqual(refused.status, 1, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stdout.hasPrefix("INCOMPLETE SCAN: "), refused.stdout)
        let sim = try CLI.run([
            "simulate", "restore", dir.sub("evil.tar"), "--into", dir.sub("out"), "--verify", "--allow-incomplete",
        ])
        XCTAssertEqual(sim.status, 0, sim.stdout + sim.stderr)
        XCTAssertEqual(FileManager.default.contents(atPath: dir.sub("out/Documents/twice.txt")), Data("two!".utf8))
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: dir.sub("out/Documents/up")),
            "../../../etc/passwd")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("out/Documents/link")))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: (dir.path as NSString).deletingLastPathComponent + "/outside"))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains(".sandbox-audit-") }, [])
    }

    /// A member whose header declares more bytes than the archive holds, and one declaring
    /// fewer (the rest is read as the next header): a clear error, not a crash.
    func testDeclaredSizesThatLie() throws {
        let dir = try TempDir("lies")
        let script = """
            import tarfile, io
            def make(name, declared):
                buf = io.BytesIO()
                with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
                    for path in ["App/Documents/", "App/Library/"]:
                        i = tarfile.TarInfo(path); i.type = tarfile.DIRTYPE; t.addfile(i)
                    data = b"x" * 3000
                    i = tarfile.TarInfo("App/Documents/a.bin"); i.size = len(data); t.addfile(i, io.BytesIO(data))
                    data = b"y" * 100
                    i = tarfile.TarInfo("App/Documents/b.bin"); i.size = len(data); t.addfile(i, io.BytesIO(data))
                raw = bytearray(buf.getvalue())
                header = 512 * 2                      # the third member's header
                raw[header + 124:header + 136] = b"%011o\\0" % declared
                raw[header + 148:header + 156] = b" " * 8
                raw[header + 148:header + 156] = b"%06o\\0 " % sum(raw[header:header + 512])
                open(name, "wb").write(raw)
            make("longer.tar", 50_000_000)
            make("shorter.tar", 10)
            """
        try python(script, in: dir.path)
        for file in ["longer.tar", "shorter.tar"] {
            let r = try CLI.run(["scan", dir.sub(file)])
            XCTAssertEqual(r.status, 2, "\(file): \(r.stdout)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("damaged or truncated"), "\(file): \(r.stderr)")
        }
    }

    func testHundredThousandEntries() throws {
        let dir = try TempDir("many")
        let script = """
            import tarfile, io
            with tarfile.open("many.tar", "w") as t:
                for z in ["Documents", "Library/Caches"]:
                    for d in range(250):
                        folder = "App/%s/d%03d" % (z, d)
                        i = tarfile.TarInfo(folder); i.type = tarfile.DIRTYPE; t.addfile(i)
                        for f in range(200):
                            i = tarfile.TarInfo("%s/f%03d" % (folder, f)); i.size = 1; t.addfile(i, io.BytesIO(b"z"))
            """
        try python(script, in: dir.path)
        let (json, r) = try CLI.scanJSON([dir.sub("many.tar")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let zones = json["zones"] as! [[String: Any]]
        XCTAssertEqual(zones.first { $0["zone"] as? String == "documents" }?["files"] as? Int, 50_000)
        XCTAssertEqual(zones.first { $0["zone"] as? String == "caches" }?["files"] as? Int, 50_000)
        XCTAssertEqual((json["totals"] as! [String: Any])["backupFootprint"] as? Int, 50_000)
    }
}
