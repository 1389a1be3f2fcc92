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

/// Exclusion marks held in AppleDouble sidecars, read from real sidecars in real folders and
/// in real zip and tar archives: the same layout gets the same verdict both ways.
final class SidecarTests: XCTestCase {
    /// An AppleDouble file holding the given attributes.
    func sidecar(_ attributes: [(BackupAttribute, [UInt8])]) -> [UInt8] {
        AppleDouble.build(AppleDouble.Parsed(attributes: attributes.map { ($0.0.macName, $0.1) }))
    }
    var exclude: [UInt8] { sidecar([(.exclude, BackupAttribute.canonicalValue)]) }
    var legacy: [UInt8] { sidecar([(.legacy, BackupAttribute.legacyValue)]) }

    /// Per path: kind, who excludes it, whether backed up, and the attributes it carries.
    func verdicts(_ input: String) throws -> (entries: [String: String], root: [String]) {
        let inv = try Audit.inventory(of: input)
        var out: [String: String] = [:]
        for e in inv.entries {
            let marks = e.entry.marks.map { $0.attribute.macName }.sorted().joined(separator: ",")
            out[e.path.display] =
                "\(e.entry.kind) excludedBy=\(e.excludedBy?.display ?? "-") "
                + "backedUp=\(e.backedUp.map { "\($0)" } ?? "-") marks=\(marks)"
        }
        return (out, inv.rootMarks.map { $0.attribute.macName }.sorted())
    }

    func assertSame(
        _ a: (entries: [String: String], root: [String]), _ b: (entries: [String: String], root: [String]),
        _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(a.root, b.root, "\(what): root marks", file: file, line: line)
        XCTAssertEqual(Set(a.entries.keys), Set(b.entries.keys), what, file: file, line: line)
        for (p, v) in a.entries where b.entries[p] != v {
            XCTFail("\(what): \(p)\n  \(v)\n  \(b.entries[p] ?? "missing")", file: file, line: line)
        }
    }

    func findings(_ input: String, _ rule: String) throws -> [String] {
        try audit(input).findings.filter { $0.ruleId == rule }.map { "\($0.path?.display ?? ".") | \($0.message)" }
            .sorted()
    }

    /// Issue 16.2: a folder excluded through `__MACOSX/…/._DIR` stays excluded when the mirror
    /// also holds the folder `__MACOSX/…/DIR/` (Finder and ditto write it as soon as a file
    /// inside has a sidecar).
    func testMirrorFolderDoesNotHideTheFolderSidecar() throws {
        try Tool.require("zip", for: "the Finder-style archives are made with Info-ZIP")
        let dir = try TempDir("mirrordir")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/Drafts/a.md"), size: 40)
        try Fixture.file(dir.sub("App/Library/Application Support/Packs/p.bin"), size: 50)
        let drafts = Array(dir.sub("App/Documents/Drafts").utf8)
        let packs = Array(dir.sub("App/Library/Application Support/Packs").utf8)
        try XAttr.set(path: drafts, name: ArchiveTests.exclude, value: BackupAttribute.canonicalValue)
        try XAttr.set(path: packs, name: ArchiveTests.exclude, value: BackupAttribute.canonicalValue)
        try XAttr.set(
            path: Array(dir.sub("App/Documents/Drafts/a.md").utf8), name: "user.com.apple.MobileBackup", value: [1])
        try XAttr.set(
            path: Array(dir.sub("App/Library/Application Support/Packs/p.bin").utf8),
            name: "user.com.apple.MobileBackup", value: [1])
        let native = try verdicts(dir.sub("App"))
        try Fixture.finderZipTree(in: dir.path)
        try sh("rm -rf App && mv Zipped App && zip -qry app.zip App __MACOSX", in: dir.path)
        XCTAssertTrue(
            Container.isDirectory(dir.sub("__MACOSX/App/Documents/Drafts")), "the mirror holds the folder too")
        XCTAssertTrue(Container.fileExists(dir.sub("__MACOSX/App/Documents/._Drafts")))

        let folder = try verdicts(dir.sub("App"))
        XCTAssertEqual(
            folder.entries["Documents/Drafts"].map { $0.contains("excludedBy=Documents/Drafts ") }, true,
            folder.entries["Documents/Drafts"] ?? "")
        XCTAssertEqual(
            folder.entries["Documents/Drafts/a.md"].map { $0.contains("excludedBy=Documents/Drafts ") }, true)
        XCTAssertEqual(
            folder.entries["Library/Application Support/Packs/p.bin"].map { $0.contains("backedUp=false") }, true)
        assertSame(folder, native, "unzipped folder against the original")
        assertSame(try verdicts(dir.sub("app.zip")), folder, "zip against the unzipped folder")

        // The same with the mirror inside the data root (a zip of the container's contents).
        let inner = try TempDir("mirrorinner")
        try sh(
            "cp -a '\(dir.sub("App"))' C && cp -a '\(dir.sub("__MACOSX/App"))' C/__MACOSX && cd C && zip -qry "
                + "../c.zip .",
            in: inner.path)
        assertSame(try verdicts(inner.sub("C")), folder, "inner mirror")
        assertSame(try verdicts(inner.sub("c.zip")), folder, "zip of the contents")
    }

    /// Issue 16.3: a zip storing the folder `__MACOSX/` itself (Info-ZIP and Finder do) at the
    /// data root: neither it nor its members are entries, and nothing is misplaced at the root.
    func testExplicitMacOSXFolderIsNoEntry() throws {
        try Tool.require("zip", "bsdtar", for: "the archives are made with Info-ZIP and bsdtar")
        let dir = try TempDir("macosxmember")
        try Fixture.container(at: dir.sub("C"))
        try Fixture.file(dir.sub("C/Library/Application Support/big.bin"), size: 60)
        try Fixture.bytes(dir.sub("C/__MACOSX/Library/Application Support/._big.bin"), exclude)
        try sh("cd C && zip -qry ../c.zip . && bsdtar -cf ../c.tar .", in: dir.path)
        let listing = try python(
            "import zipfile,sys; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", [dir.sub("c.zip")])
        XCTAssertTrue(listing.split(separator: "\n").contains("__MACOSX/"), listing)

        for input in [dir.sub("c.zip"), dir.sub("c.tar"), dir.sub("C")] {
            let v = try verdicts(input)
            XCTAssertFalse(v.entries.keys.contains { $0.hasPrefix("__MACOSX") }, "\(input): \(v.entries.keys.sorted())")
            XCTAssertEqual(
                v.entries["Library/Application Support/big.bin"].map { $0.contains("backedUp=false") }, true, input)
            XCTAssertEqual(try findings(input, "misplaced-at-root"), [], input)
        }
        assertSame(try verdicts(dir.sub("c.zip")), try verdicts(dir.sub("C")), "zip against folder")
    }

    /// Issue 16.4: the data root's own sidecar beside it (`../._App`), in the mirror beside it
    /// (`../__MACOSX/._App`), and the mirror `../__MACOSX/App/` (an unzipped
    /// `ditto -c -k --keepParent`): read in folder mode as the archive reading reads them.
    func testSidecarsBesideTheDataRoot() throws {
        try Tool.require("zip", "bsdtar", for: "the archives are made with Info-ZIP and bsdtar")
        // ditto --keepParent: __MACOSX/._App and __MACOSX/App/… beside App.
        let dir = try TempDir("keepparent")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/notes.txt"), size: 30)
        try Fixture.bytes(dir.sub("__MACOSX/._App"), exclude)
        try Fixture.bytes(dir.sub("__MACOSX/App/._Documents"), legacy)
        try Fixture.bytes(dir.sub("__MACOSX/App/Documents/._notes.txt"), legacy)
        try sh("zip -qry app.zip App __MACOSX", in: dir.path)
        let folder = try verdicts(dir.sub("App"))
        XCTAssertEqual(folder.root, [BackupAttribute.exclude.macName])
        XCTAssertEqual(
            folder.entries["Documents/notes.txt"], "file excludedBy=. backedUp=false marks=com.apple.MobileBackup")
        XCTAssertEqual(
            folder.entries["Documents"], "directory excludedBy=. backedUp=false marks=com.apple.MobileBackup")
        assertSame(try verdicts(dir.sub("app.zip")), folder, "ditto zip against the unzipped folder")

        // Only the root carries an attribute: the mirror holds `._App` and no App folder.
        let lone = try TempDir("lonemirror")
        try Fixture.container(at: lone.sub("App"))
        try Fixture.bytes(lone.sub("__MACOSX/._App"), exclude)
        try sh("zip -qry app.zip App __MACOSX", in: lone.path)
        XCTAssertEqual(try verdicts(lone.sub("App")).root, [BackupAttribute.exclude.macName])
        assertSame(try verdicts(lone.sub("app.zip")), try verdicts(lone.sub("App")), "root sidecar only")

        // macOS tar: ._App beside App.
        let tar = try TempDir("besideroot")
        try Fixture.container(at: tar.sub("App"))
        try Fixture.file(tar.sub("App/Library/Application Support/db.bin"), size: 30)
        try Fixture.bytes(tar.sub("._App"), exclude)
        try sh("bsdtar -cf app.tar ._App App", in: tar.path)
        let besideFolder = try verdicts(tar.sub("App"))
        XCTAssertEqual(besideFolder.root, [BackupAttribute.exclude.macName])
        XCTAssertEqual(
            besideFolder.entries["Library/Application Support/db.bin"], "file excludedBy=. backedUp=false marks=")
        assertSame(try verdicts(tar.sub("app.tar")), besideFolder, "tar against folder")
        let inv = try Audit.inventory(of: tar.sub("App"))
        XCTAssertEqual(inv.rootMarks.first?.source, .appleDouble(sidecar: ContainerPath("../._App")))
        XCTAssertEqual(
            try Audit.inventory(of: tar.sub("app.tar")).rootMarks.first?.source,
            .appleDouble(sidecar: ContainerPath("../._App")))

        // An .xcappdata package unzipped from a ditto --keepParent zip.
        let xc = try TempDir("xcmirror")
        try Fixture.container(at: xc.sub("J.xcappdata/AppData"))
        try Fixture.file(xc.sub("J.xcappdata/AppData/Documents/a.txt"), size: 10)
        try Fixture.bytes(xc.sub("__MACOSX/J.xcappdata/._AppData"), exclude)
        try Fixture.bytes(xc.sub("__MACOSX/J.xcappdata/AppData/Documents/._a.txt"), legacy)
        try sh("zip -qry j.zip J.xcappdata __MACOSX", in: xc.path)
        let xcFolder = try verdicts(xc.sub("J.xcappdata"))
        XCTAssertEqual(xcFolder.root, [BackupAttribute.exclude.macName])
        XCTAssertEqual(
            xcFolder.entries["Documents/a.txt"], "file excludedBy=. backedUp=false marks=com.apple.MobileBackup")
        assertSame(try verdicts(xc.sub("j.zip")), xcFolder, "xcappdata zip against folder")

        // Nothing else outside the data root is read: a stray file beside it is no entry, and
        // the walk writes nothing (the parent's listing is unchanged).
        let before = try FileManager.default.contentsOfDirectory(atPath: tar.path).sorted()
        _ = try Audit.inventory(of: tar.sub("App"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tar.path).sorted(), before)
    }

    /// Issue 16.5: sidecars that describe no entry are reported (note), with the nearest
    /// match; one named like an entry but for Unicode normalisation gives it its marks.
    func testOrphanSidecarsAreReported() throws {
        try Tool.require("zip", "bsdtar", for: "the archives are made with Info-ZIP and bsdtar")
        let dir = try TempDir("orphans")
        let nfc = "Caf\u{E9}.txt"
        let nfd = "Cafe\u{301}.txt"
        XCTAssertNotEqual(Array(nfc.utf8), Array(nfd.utf8))
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/notes.txt"), size: 100)
        try Fixture.file(dir.sub("App/Documents/" + nfc), size: 200)
        try Fixture.bytes(dir.sub("App/Documents/._notes.txy"), exclude)  // a deleted file's
        try Fixture.bytes(dir.sub("App/Documents/._" + nfd), exclude)  // NFD against NFC
        try Fixture.bytes(dir.sub("App/Library/Gone/._x.bin"), legacy)  // a folder with nothing else
        try Fixture.bytes(dir.sub("__MACOSX/App/Library/Application Support/._cache.db"), exclude)  // mirror, item gone
        // truncated: unreadable, no orphan
        try Fixture.bytes(dir.sub("App/Documents/._broken"), Array(exclude.prefix(20)))
        try sh("zip -qry app.zip App __MACOSX && bsdtar -cf app.tar App", in: dir.path)

        let walk = try FolderWalk.read(try Container.locate(dir.sub("App")))
        let orphans = walk.orphanSidecars.sorted { $0.sidecar < $1.sidecar }
        XCTAssertEqual(
            orphans.map(\.sidecar.display),
            [
                "../__MACOSX/App/Library/Application Support/._cache.db",
                "Documents/._" + nfd,
                "Documents/._notes.txy",
                "Library/Gone/._x.bin",
            ])
        XCTAssertEqual(
            orphans.map { $0.nearest?.display ?? "-" }, ["-", "Documents/" + nfc, "Documents/notes.txt", "-"])
        XCTAssertEqual(orphans.map(\.sameUnderNormalisation), [false, true, false, false])
        XCTAssertEqual(
            orphans.map(\.size), [exclude.count, exclude.count, exclude.count, legacy.count].map(Int64.init))
        XCTAssertEqual(orphans[2].marks.map(\.attribute), [.exclude])

        let folder = try verdicts(dir.sub("App"))
        // The NFC file is excluded by the NFD sidecar: one name to a Mac.
        XCTAssertEqual(
            folder.entries["Documents/" + nfc],
            "file excludedBy=Documents/\(nfc) backedUp=false marks=\(BackupAttribute.exclude.macName)")
        XCTAssertEqual(folder.entries["Documents/notes.txt"], "file excludedBy=- backedUp=true marks=")
        // Sidecars are no entries and their bytes stay out of the totals.
        let inv = try Audit.inventory(of: dir.sub("App"))
        XCTAssertFalse(inv.entries.contains { $0.path.name.starts(with: AppleDouble.sidecarPrefix) })
        XCTAssertEqual(inv.total.size, 300)
        XCTAssertEqual(inv.sidecarCount, 5)

        let notes = try findings(dir.sub("App"), "orphan-sidecar")
        XCTAssertEqual(notes.count, 4, "\(notes)")
        XCTAssertTrue(
            notes.contains {
                $0.hasPrefix("Documents/._notes.txy |")
                    && $0.contains("nearest by name in that folder: Documents/notes.txt")
            }, "\(notes)")
        XCTAssertTrue(
            notes.contains {
                $0.hasPrefix("Documents/._\(nfd) |") && $0.contains("(NFD)") && $0.contains("(NFC)")
                    && $0.contains("was applied to Documents/\(nfc)")
            }, "\(notes)")
        XCTAssertTrue(
            notes.contains {
                $0.hasPrefix("Library/Gone/._x.bin |") && $0.contains("legacy") && $0.contains("nothing in that folder")
            }, "\(notes)")
        XCTAssertTrue(
            try audit(dir.sub("App")).findings.filter { $0.ruleId == "orphan-sidecar" }.allSatisfy {
                $0.severity == .note
            })

        // The archives: the same orphans, notes and verdicts.
        // A zip's names are read in NFC on every system (ArchiveWalk.zipName): its NFD sidecar
        // names the NFC file exactly, so it is no orphan there; the verdicts are the same.
        let zipWalk = try ArchiveWalk.read(dir.sub("app.zip")).1
        XCTAssertEqual(
            zipWalk.orphanSidecars.map(\.sidecar.display).sorted(),
            orphans.map(\.sidecar.display).filter { $0 != "Documents/._" + nfd })
        assertSame(try verdicts(dir.sub("app.zip")), folder, "zip")
        XCTAssertEqual(
            try findings(dir.sub("app.zip"), "orphan-sidecar"), notes.filter { !$0.hasPrefix("Documents/._\(nfd) |") })
        let tarFindings = try findings(dir.sub("app.tar"), "orphan-sidecar")
        XCTAssertEqual(tarFindings, notes.filter { !$0.hasPrefix("../__MACOSX") })
        XCTAssertEqual(try Audit.inventory(of: dir.sub("app.zip")).total.size, 300)
        let unreadable = try findings(dir.sub("App"), "unreadable-entry")
        XCTAssertEqual(unreadable.map { $0.prefix { $0 != " " } }, ["Documents/._broken"])
        XCTAssertEqual(
            try findings(dir.sub("app.zip"), "unreadable-entry").map { $0.prefix { $0 != " " } }, ["Documents/._broken"]
        )
        XCTAssertEqual(
            try findings(dir.sub("app.tar"), "unreadable-entry").map { $0.prefix { $0 != " " } }, ["Documents/._broken"]
        )
    }
}
