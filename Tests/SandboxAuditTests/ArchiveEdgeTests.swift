import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Archives whose members' paths the scan, the inventory, `simulate --into` and the ncdu export
/// must read alike: a path stored as a file with members below it, `./` and `//` in member
/// paths, zip names in NFC on every system; names ncdu must tell apart.
final class ArchiveEdgeTests: XCTestCase {
    /// A pax tar of `members` (name, content or nil for a folder), names stored exactly.
    func tar(_ path: String, _ members: [(String, String?)]) throws {
        let spec = members.map { "\($0.0)\u{1F}\($0.1 ?? "\u{1E}")" }.joined(separator: "\u{1D}")
        _ = try python(
            """
            import io, sys, tarfile
            out, spec = sys.argv[1], sys.argv[2]
            with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
                for item in spec.split("\\x1d"):
                    name, content = item.split("\\x1f")
                    info = tarfile.TarInfo(name)
                    info.mtime = 1_700_000_000
                    if content == "\\x1e":
                        info.type = tarfile.DIRTYPE; info.mode = 0o755
                        t.addfile(info)
                    else:
                        data = content.encode(); info.size = len(data); info.mode = 0o644
                        t.addfile(info, io.BytesIO(data))
            """, [path, spec])
    }

    static let base: [(String, String?)] = [
        ("Documents", nil), ("Library", nil), ("Library/Preferences", nil), ("tmp", nil),
    ]

    /// `Documents/a` stored as a file, and `Documents/a/b` below it: one entry (the file), the
    /// member below it left out with a problem naming the path, in every reading.
    func testAFileAndMembersBelowItAreOneEntryAndAProblemEverywhere() throws {
        let dir = try TempDir("fileandfolder")
        try tar(
            dir.sub("a.tar"),
            Self.base + [
                ("Documents/a", "0123456789"), ("Documents/a/b", String(repeating: "x", count: 20)),
                ("Documents/c", nil), ("Documents/c/d", "d"),
            ])
        let (json, r) = try CLI.scanJSON([dir.sub("a.tar"), "--allow-incomplete"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let missed = try XCTUnwrap(json["missed"] as? [[String: Any]])
        XCTAssertEqual(missed.compactMap { $0["path"] as? String }, ["Documents/a"], "\(missed)")
        XCTAssertTrue(
            (missed.first?["why"] as? String ?? "").contains("stores this path as a file and holds members below it"),
            "\(missed)")
        let inventory = try CLI.inventory(dir.sub("a.tar")).entries
        XCTAssertEqual(inventory["Documents/a"]?["kind"] as? String, "file", "\(inventory)")
        XCTAssertNil(inventory["Documents/a/b"])
        XCTAssertNotNil(inventory["Documents/c/d"])
        let documents = try XCTUnwrap(json["totals"] as? [String: Any])
        XCTAssertEqual(documents["files"] as? Int, 2, "a and c/d, counted once each")

        // --into writes the one entry: Documents/a a file of 10 bytes.
        let out = dir.sub("out")
        let s = try CLI.run(["simulate", "update", dir.sub("a.tar"), "--into", out])
        // the member below the file is missed: incomplete, without --allow-incomplete
        XCTAssertEqual(s.status, 1, s.stderr)
        var isFolder: ObjCBool = false
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: out + "/Documents/a", isDirectory: &isFolder), s.stdout + s.stderr)
        XCTAssertFalse(isFolder.boolValue)
        XCTAssertEqual(try String(contentsOfFile: out + "/Documents/a", encoding: .utf8), "0123456789")
        XCTAssertEqual(try String(contentsOfFile: out + "/Documents/c/d", encoding: .utf8), "d")

        // ncdu: `a` once, a file (its info object, not a folder array).
        let ncdu = try CLI.run(["scan", dir.sub("a.tar"), "--allow-incomplete", "--output", "ncdu=-"])
        XCTAssertEqual(ncdu.stdout.components(separatedBy: #"{"name":"a","#).count - 1, 1, ncdu.stdout)
        XCTAssertFalse(ncdu.stdout.contains(#"[{"name":"a","#), ncdu.stdout)
        XCTAssertTrue(ncdu.stdout.contains(#"{"name":"a","asize":10"#), ncdu.stdout)
    }

    /// `./`, `//` and `/./` in member paths: the scan and --into place them alike.
    func testDotAndDoubleSlashMemberPathsAreReadAlikeByTheScanAndInto() throws {
        let dir = try TempDir("dotslash")
        try tar(
            dir.sub("d.tar"),
            [
                ("./Documents", nil), ("./Library", nil), ("Library//Preferences", nil), ("./tmp/", nil),
                ("./Documents/x.txt", "x"), ("Documents//y.txt", "yy"), ("Documents/./z.txt", "zzz"),
                (".//Documents/w.txt", "wwww"),
            ])
        let inventory = try CLI.inventory(dir.sub("d.tar")).entries
        for p in ["Documents/x.txt", "Documents/y.txt", "Documents/z.txt", "Documents/w.txt", "Library/Preferences"] {
            XCTAssertNotNil(inventory[p], "\(p): \(inventory.keys.sorted())")
        }
        XCTAssertFalse(
            inventory.keys.contains { $0.contains("//") || $0.contains("/./") }, "\(inventory.keys.sorted())")
        let out = dir.sub("out")
        let s = try CLI.run(["simulate", "update", dir.sub("d.tar"), "--into", out])
        XCTAssertEqual(s.status, 0, s.stderr)
        for (p, text) in [("x", "x"), ("y", "yy"), ("z", "zzz"), ("w", "wwww")] {
            XCTAssertEqual(try String(contentsOfFile: out + "/Documents/\(p).txt", encoding: .utf8), text)
        }
    }

    /// ncdu's names: the one-byte name 0xFF and the four-character name `\xFF` differ.
    func testNcduTellsAByteFromItsEscape() throws {
        let dir = try TempDir("ncduname")
        try NonUTF8Names.require(in: dir.path, for: "the one-byte name 0xFF beside the four characters \\xFF")
        try Fixture.container(at: dir.sub("c"))
        let documents = dir.sub("c/Documents/")
        try Data("a".utf8).write(to: URL(fileURLWithPath: documents + #"\xFF"#))
        let raw = Array(documents.utf8) + [0xFF]
        let fd = raw.withUnsafeBufferPointer { b in
            Array(b + [0]).withUnsafeBufferPointer {
                open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o644)
            }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        let r = try CLI.run(["scan", dir.sub("c"), "--output", "ncdu=-"])
        XCTAssertTrue(r.stdout.contains(#"{"name":"\\xFF","#), r.stdout)
        XCTAssertTrue(r.stdout.contains(#"{"name":"\\\\xFF","#), r.stdout)
        XCTAssertEqual(NcduReport.nameText([0xFF]), #"\xFF"#)
        XCTAssertEqual(NcduReport.nameText(Array(#"\xFF"#.utf8)), #"\\xFF"#)
    }

    /// A zip whose member name is stored in NFD (as a Mac writes "Café"): read as NFC on every
    /// system (Apple's libarchive gives NFD, Linux's NFC), so a Linux baseline and a Mac scan
    /// name the same bytes; a tar's NFD name stays as stored.
    func testZipNamesAreNFCOnEverySystem() throws {
        let nfd = "Documents/Cafe\u{0301}.txt"
        let nfc = "Documents/Caf\u{00E9}.txt"
        XCTAssertNotEqual(Array(nfd.utf8), Array(nfc.utf8))
        // What Apple's libarchive hands over for the zip below, and what Linux's does.
        XCTAssertEqual(ArchiveWalk.zipName(Array(nfd.utf8)), Array(nfc.utf8))
        XCTAssertEqual(ArchiveWalk.zipName(Array(nfc.utf8)), Array(nfc.utf8))
        XCTAssertEqual(ArchiveWalk.zipName([0x61, 0xFF]), [0x61, 0xFF], "not UTF-8: kept")
        let dir = try TempDir("nfdzip")
        _ = try python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                for d in ["Documents/", "Library/", "Library/Preferences/", "tmp/"]:
                    z.writestr(d, "")
                z.writestr(sys.argv[2], "bonjour")
            names = zipfile.ZipFile(sys.argv[1]).namelist()
            assert sys.argv[2] in names, names
            """, [dir.sub("nfd.zip"), nfd])
        let r = try CLI.run(["inventory", dir.sub("nfd.zip")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdoutBytes.range(of: Data(nfc.utf8)) != nil, r.stdout)
        XCTAssertNil(r.stdoutBytes.range(of: Data(nfd.utf8)), r.stdout)
        // A tar's name is its stored bytes: NFD stays NFD.
        try tar(dir.sub("nfd.tar"), Self.base + [(nfd, "bonjour")])
        let t = try CLI.run(["inventory", dir.sub("nfd.tar")])
        XCTAssertTrue(t.stdoutBytes.range(of: Data(nfd.utf8)) != nil, t.stdout)
    }

    /// `simulate --into` reads the archive again and numbers the members the scan kept, and no
    /// other: past the scan's path budget (64 MiB) it stops where the scan stopped. It numbered
    /// every member before, 453 MB against the scan's 161 MB on 12,000 files with 30 kB paths
    /// (release build; the 16,000-deep, 20,000-file archive: 1,085 MB and 60.6 s, now 283 MB).
    func testIntoCostsWhatTheScanDoesPastThePathBudget() throws {
        let dir = try TempDir("intobound")
        _ = try python(
            """
            import gzip, sys, tarfile
            out, levels, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
            with gzip.open(out, "wb", compresslevel=1) as g:
                with tarfile.open(fileobj=g, mode="w|", format=tarfile.PAX_FORMAT) as t:
                    for d in ("Documents", "Library", "tmp"):
                        info = tarfile.TarInfo(d); info.type = tarfile.DIRTYPE; t.addfile(info)
                    path = "Documents"
                    for i in range(levels):
                        path += "/" + "d" * 250
                        info = tarfile.TarInfo(path); info.type = tarfile.DIRTYPE; t.addfile(info)
                    for j in range(files):
                        t.addfile(tarfile.TarInfo(path + "/f%05d" % j))
            """, [dir.sub("long.tar.gz"), "120", "9000"])
        let scan = try Measured.run(["scan", dir.sub("long.tar.gz")])
        XCTAssertTrue(
            scan.result.stdout.contains("paths add up to more than 64 MiB"), scan.result.stdout.prefix(3000).description
        )
        let into = try Measured.run(["simulate", "restore", dir.sub("long.tar.gz"), "--into", dir.sub("out")])
        // The scan is incomplete (the path budget), which exits 1.
        XCTAssertEqual(into.result.status, 1, into.result.stderr)
        XCTAssertTrue(into.result.stdout.contains("materialised into"), into.result.stdout.suffix(500).description)
        XCTAssertLessThanOrEqual(into.peakMB, scan.peakMB + 40, "--into \(into.peakMB) MB, the scan \(scan.peakMB) MB")
        XCTAssertLessThanOrEqual(into.peakMB, 300)
    }
}
