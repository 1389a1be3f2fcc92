import Foundation
import XCTest
@testable import SandboxAudit
#if canImport(Glibc)
import Glibc
#endif

/// Exclusion marks held in AppleDouble sidecars, read from real sidecars in real folders and
/// in real zip and tar archives: the same layout gets the same verdict both ways.
final class SidecarTests: XCTestCase {
    func sh(_ command: String, in dir: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        let err = Pipe()
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "\(command): \(String(decoding: e, as: UTF8.self))")
    }

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
            out[e.path.display] = "\(e.entry.kind) excludedBy=\(e.excludedBy?.display ?? "-") backedUp=\(e.backedUp.map { "\($0)" } ?? "-") marks=\(marks)"
        }
        return (out, inv.rootMarks.map { $0.attribute.macName }.sorted())
    }

    func assertSame(_ a: (entries: [String: String], root: [String]), _ b: (entries: [String: String], root: [String]), _ what: String,
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.root, b.root, "\(what): root marks", file: file, line: line)
        XCTAssertEqual(Set(a.entries.keys), Set(b.entries.keys), what, file: file, line: line)
        for (p, v) in a.entries where b.entries[p] != v {
            XCTFail("\(what): \(p)\n  \(v)\n  \(b.entries[p] ?? "missing")", file: file, line: line)
        }
    }

    func findings(_ input: String, _ rule: String) throws -> [String] {
        try audit(input).findings.filter { $0.ruleId == rule }.map { "\($0.path?.display ?? ".") | \($0.message)" }.sorted()
    }

    /// Issue 16.2: a folder excluded through `__MACOSX/…/._DIR` stays excluded when the mirror
    /// also holds the folder `__MACOSX/…/DIR/` (Finder and ditto write it as soon as a file
    /// inside has a sidecar).
    func testMirrorFolderDoesNotHideTheFolderSidecar() throws {
        let dir = try TempDir("mirrordir")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/Drafts/a.md"), size: 40)
        try Fixture.file(dir.sub("App/Library/Application Support/Packs/p.bin"), size: 50)
        let drafts = Array(dir.sub("App/Documents/Drafts").utf8), packs = Array(dir.sub("App/Library/Application Support/Packs").utf8)
        try XAttr.set(path: drafts, name: ArchiveTests.exclude, value: BackupAttribute.canonicalValue)
        try XAttr.set(path: packs, name: ArchiveTests.exclude, value: BackupAttribute.canonicalValue)
        try XAttr.set(path: Array(dir.sub("App/Documents/Drafts/a.md").utf8), name: "user.com.apple.MobileBackup", value: [1])
        try XAttr.set(path: Array(dir.sub("App/Library/Application Support/Packs/p.bin").utf8), name: "user.com.apple.MobileBackup", value: [1])
        let native = try verdicts(dir.sub("App"))
        try Fixture.finderZipTree(in: dir.path)
        try sh("rm -rf App && mv Zipped App && zip -qry app.zip App __MACOSX", in: dir.path)
        XCTAssertTrue(Container.isDirectory(dir.sub("__MACOSX/App/Documents/Drafts")), "the mirror holds the folder too")
        XCTAssertTrue(Container.fileExists(dir.sub("__MACOSX/App/Documents/._Drafts")))

        let folder = try verdicts(dir.sub("App"))
        XCTAssertEqual(folder.entries["Documents/Drafts"].map { $0.contains("excludedBy=Documents/Drafts ") }, true, folder.entries["Documents/Drafts"] ?? "")
        XCTAssertEqual(folder.entries["Documents/Drafts/a.md"].map { $0.contains("excludedBy=Documents/Drafts ") }, true)
        XCTAssertEqual(folder.entries["Library/Application Support/Packs/p.bin"].map { $0.contains("backedUp=false") }, true)
        assertSame(folder, native, "unzipped folder against the original")
        assertSame(try verdicts(dir.sub("app.zip")), folder, "zip against the unzipped folder")

        // The same with the mirror inside the data root (a zip of the container's contents).
        let inner = try TempDir("mirrorinner")
        try sh("cp -a '\(dir.sub("App"))' C && cp -a '\(dir.sub("__MACOSX/App"))' C/__MACOSX && cd C && zip -qry ../c.zip .", in: inner.path)
        assertSame(try verdicts(inner.sub("C")), folder, "inner mirror")
        assertSame(try verdicts(inner.sub("c.zip")), folder, "zip of the contents")
    }

    /// Issue 16.3: a zip storing the folder `__MACOSX/` itself (Info-ZIP and Finder do) at the
    /// data root: neither it nor its members are entries, and nothing is misplaced at the root.
    func testExplicitMacOSXFolderIsNoEntry() throws {
        let dir = try TempDir("macosxmember")
        try Fixture.container(at: dir.sub("C"))
        try Fixture.file(dir.sub("C/Library/Application Support/big.bin"), size: 60)
        try Fixture.bytes(dir.sub("C/__MACOSX/Library/Application Support/._big.bin"), exclude)
        try sh("cd C && zip -qry ../c.zip . && bsdtar -cf ../c.tar .", in: dir.path)
        let listing = try python("import zipfile,sys; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", [dir.sub("c.zip")])
        XCTAssertTrue(listing.split(separator: "\n").contains("__MACOSX/"), listing)

        for input in [dir.sub("c.zip"), dir.sub("c.tar"), dir.sub("C")] {
            let v = try verdicts(input)
            XCTAssertFalse(v.entries.keys.contains { $0.hasPrefix("__MACOSX") }, "\(input): \(v.entries.keys.sorted())")
            XCTAssertEqual(v.entries["Library/Application Support/big.bin"].map { $0.contains("backedUp=false") }, true, input)
            XCTAssertEqual(try findings(input, "misplaced-at-root"), [], input)
        }
        assertSame(try verdicts(dir.sub("c.zip")), try verdicts(dir.sub("C")), "zip against folder")
    }
}
