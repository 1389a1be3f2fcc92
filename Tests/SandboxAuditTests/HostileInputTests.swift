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

/// Issue 15, "no input costs more than its size": reference bombs, shared-range sidecars,
/// oversized files, writers that keep what they do not change, and the minor items. Real files
/// and real attributes in temporary folders; the CLI as a subprocess, measured.
final class HostileInputTests: XCTestCase {
    static let excludeName = BackupAttribute.exclude.nativeName

    // MARK: inputs

    /// A binary plist of `n` arrays, each holding two references to the next, then a string:
    /// 2^n objects once expanded.
    static func bomb(_ n: Int = 70) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for i in 0..<n {
            offsets.append(out.count)
            out += [0xA2, UInt8(i + 1), UInt8(i + 1)]
        }
        offsets.append(out.count)
        out += [0x51, UInt8(ascii: "x")]
        let table = out.count
        for o in offsets { out.append(UInt8(o)) }
        out += [UInt8](repeating: 0, count: 6) + [1, 1]
        for v in [UInt64(offsets.count), 0, UInt64(table)] {
            for k in (0..<8).reversed() { out.append(UInt8(v >> (8 * UInt64(k)) & 0xFF)) }
        }
        return out
    }

    /// A sidecar of about 1 MiB whose `count` attribute entries all point at one shared range.
    static func sharedRangeSidecar(count: Int = 65_535) -> [UInt8] {
        var b = [UInt8]()
        func p32(_ v: Int) {
            b += [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        func p16(_ v: Int) { b += [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let entrySize = 12  // 11 bytes + a 1-byte name (NUL), padded to 12
        let tableEnd = 26 + 24 + 32 + 2 + 36 + count * entrySize
        let total = 1 << 20
        let valueLength = total - tableEnd
        p32(0x0005_1607)
        p32(0x0002_0000)
        b += [UInt8](repeating: 0, count: 16)
        p16(2)
        p32(9)
        p32(50)
        p32(total - 50)
        p32(2)
        p32(total)
        p32(0)
        b += [UInt8](repeating: 0, count: 32) + [0, 0]
        p32(0x4154_5452)
        p32(0)
        p32(total)
        p32(tableEnd)
        p32(valueLength)
        b += [UInt8](repeating: 0, count: 12)
        p16(0)
        p16(count)
        for _ in 0..<count {
            p32(tableEnd)
            p32(valueLength)
            p16(0)
            b += [1, 0]
        }
        b += [UInt8](repeating: 0x41, count: valueLength)
        return b
    }

    /// The run ended as `exit` says, within 10 s and 300 MB.
    func assertCheap(_ m: Measured, _ what: String, exit: Int32, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(m.result.status, exit, "\(what): \(m.result.stderr)", file: file, line: line)
        XCTAssertLessThan(m.seconds, 10, "\(what): \(m.seconds) s", file: file, line: line)
        XCTAssertGreaterThan(m.peakMB, 0, "\(what): no RSS measured", file: file, line: line)
        XCTAssertLessThan(m.peakMB, 300, "\(what): \(m.peakMB) MB", file: file, line: line)
        print(
            "measured \(what): \(String(format: "%.2f", m.seconds)) s, \(String(format: "%.1f", m.peakMB)) MB peak RSS")
    }

    func findings(_ m: Measured) -> [[String: Any]] {
        let json = (try? JSONSerialization.jsonObject(with: m.result.stdoutBytes)) as? [String: Any]
        return json?["findings"] as? [[String: Any]] ?? []
    }

    func ruleIDs(_ m: Measured) -> [String] { findings(m).compactMap { $0["ruleId"] as? String } }

    // MARK: bounded plists

    func testBoundedPlistRefusesBombsCyclesAndDepthButReadsRealPlists() throws {
        let b = Self.bomb()
        XCTAssertLessThanOrEqual(b.count, 409)
        XCTAssertThrowsError(try BoundedPlist.check(b)) { XCTAssertTrue("\($0)".contains("expands"), "\($0)") }
        XCTAssertEqual(AttributeValueClass.classify(b), .other)
        // An array holding itself.
        var cyclic = Array("bplist00".utf8) + [0xA1, 0x00, 0x08] + [UInt8](repeating: 0, count: 6) + [1, 1]
        for v: UInt64 in [1, 0, 10] {
            for k in (0..<8).reversed() { cyclic.append(UInt8(v >> (8 * UInt64(k)) & 0xFF)) }
        }
        XCTAssertThrowsError(try BoundedPlist.check(cyclic)) { XCTAssertTrue("\($0)".contains("cycle"), "\($0)") }
        let deep =
            "<?xml version=\"1.0\"?><plist>" + String(repeating: "<array>", count: 10_000)
            + String(repeating: "</array>", count: 10_000) + "</plist>"
        XCTAssertThrowsError(try BoundedPlist.check(Array(deep.utf8)))
        XCTAssertThrowsError(try BoundedPlist.check(Array("com.apple.backupd".utf8)))
        XCTAssertThrowsError(try BoundedPlist.check([UInt8](repeating: 0x20, count: 100), maximumSize: 10))
        // What real writers produce still reads.
        XCTAssertEqual(AttributeValueClass.classify(BackupAttribute.canonicalValue), .canonical)
        let dict: [String: Any] = [
            "MCMMetadataIdentifier": "com.example.app", "list": [1, 2, 3], "shared": ["a", "a", "a"],
            "data": Data(count: 1000),
        ]
        for format in [PropertyListSerialization.PropertyListFormat.binary, .xml] {
            let data = try PropertyListSerialization.data(fromPropertyList: dict, format: format, options: 0)
            XCTAssertEqual(
                BoundedPlist.dictionary([UInt8](data))?["MCMMetadataIdentifier"] as? String, "com.example.app",
                "\(format)")
        }
    }

    func testBombAsExcludeAttributeValueIsAFinding() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/Application Support/a.bin"), size: 10)
        try XAttr.set(
            path: Array(dir.sub("Library/Application Support/a.bin").utf8), name: Self.excludeName, value: Self.bomb())
        let m = try Measured.run(["scan", "--format", "json", dir.path])
        assertCheap(m, "bomb as the exclude attribute value", exit: 0)  // a warning
        XCTAssertTrue(ruleIDs(m).contains("unrecognised-exclusion-value"), "\(ruleIDs(m))")
        let a = try Measured.run(["attributes", dir.sub("Library/Application Support/a.bin")])
        assertCheap(a, "bomb read by attributes", exit: 0)
        XCTAssertTrue(a.result.stdout.contains("[other]"), a.result.stdout)
    }

    func testBombInsideASidecarIsAFinding() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/Application Support/a.bin"), size: 10)
        try Fixture.bytes(
            dir.sub("Library/Application Support/._a.bin"),
            AppleDouble.build(.init(attributes: [(BackupAttribute.exclude.rawValue, Self.bomb())])))
        let m = try Measured.run(["scan", "--format", "json", dir.path])
        assertCheap(m, "bomb in a ._ sidecar", exit: 0)  // a warning
        XCTAssertTrue(ruleIDs(m).contains("unrecognised-exclusion-value"), "\(ruleIDs(m))")
    }

    func testBombInAPaxRecordIsAFinding() throws {
        let dir = try TempDir()
        try python(
            """
            import io, sys, tarfile
            bomb = bytes.fromhex(sys.argv[2])
            with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
                for d in ("App/Documents", "App/Library", "App/Library/Application Support"):
                    ti = tarfile.TarInfo(d); ti.type = tarfile.DIRTYPE; t.addfile(ti)
                ti = tarfile.TarInfo("App/Library/Application Support/a.bin"); ti.size = 1
                ti.pax_headers = {"SCHILY.xattr.user.com.apple.metadata:com_apple_backup_excludeItem": \
            bomb.decode("latin-1")}
                t.addfile(ti, io.BytesIO(b"x"))
            """, [dir.sub("app.tar"), ByteText.hexString(Self.bomb())])
        let m = try Measured.run(["scan", "--format", "json", dir.sub("app.tar")])
        assertCheap(m, "bomb in a pax record", exit: 0)  // a warning
        XCTAssertTrue(ruleIDs(m).contains("unrecognised-exclusion-value"), "\(ruleIDs(m)) \(m.result.stderr)")
    }

    func testBombAsIdentityPlistsLeavesTheAppUnidentified() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("sim"))
        try Fixture.bytes(dir.sub("sim/" + Container.simulatorMetadata), Self.bomb())
        let sim = try Measured.run(["scan", "--format", "json", dir.sub("sim")])
        assertCheap(sim, "bomb as the metadata plist", exit: 0)  // the app unidentified, nothing missed
        XCTAssertEqual(
            ((try JSONSerialization.jsonObject(with: sim.result.stdoutBytes) as? [String: Any])?["container"]
                as? [String: Any])?["bundleIdentifier"] as? String, nil)

        try Fixture.container(at: dir.sub("App.xcappdata/AppData"))
        try Fixture.bytes(dir.sub("App.xcappdata/" + Container.appDataInfo), Self.bomb())
        assertCheap(try Measured.run(["scan", dir.sub("App.xcappdata")]), "bomb as AppDataInfo.plist", exit: 0)

        // Over the size limit: a 3 GB sparse metadata plist is not read.
        try Fixture.file(dir.sub("sim/" + Container.simulatorMetadata), size: 3_000_000_000)
        assertCheap(try Measured.run(["scan", dir.sub("sim")]), "3 GB sparse metadata plist", exit: 0)
    }

    func testBombAsPreferencesPlistIsAFinding() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.bytes(dir.sub("Library/Preferences/com.example.app.plist"), Self.bomb())
        let m = try Measured.run(["scan", "--format", "json", "--user-defaults-warning-size", "1", dir.path])
        assertCheap(m, "bomb as a Preferences plist", exit: 0)  // a warning: it could not be parsed
        let f = findings(m).first { $0["ruleId"] as? String == "large-user-defaults" }
        XCTAssertTrue((f?["message"] as? String)?.contains("could not be parsed") == true, "\(findings(m))")
        assertCheap(try Measured.run(["simulate", "all", dir.path]), "bomb as a Preferences plist, simulate", exit: 0)
    }

    // MARK: bounded AppleDouble

    func testSharedRangeSidecarIsRefusedCheaply() throws {
        let sidecar = Self.sharedRangeSidecar()
        XCTAssertEqual(sidecar.count, 1 << 20)
        XCTAssertThrowsError(try AppleDouble.parse(sidecar)) {
            XCTAssertTrue("\($0)".contains("overlap") || "\($0)".contains("limit"), "\($0)")
        }
        XCTAssertThrowsError(try AppleDouble.parse(Self.sharedRangeSidecar(count: 3000))) {
            XCTAssertTrue("\($0)".contains("overlap"), "\($0)")
        }

        let dir = try TempDir()
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/a"), size: 1)
        try Fixture.bytes(dir.sub("App/Documents/._a"), sidecar)
        let m = try Measured.run(["scan", "--format", "json", dir.sub("App")])
        assertCheap(m, "1 MiB sidecar with 65,535 shared entries", exit: 1)  // unreadable: the scan is incomplete
        XCTAssertTrue(ruleIDs(m).contains("unreadable-entry"), "\(ruleIDs(m))")
        assertCheap(
            try Measured.run(["attributes", dir.sub("App/Documents/a")]), "shared-range sidecar, attributes", exit: 0)

        try Tool.require("tar", for: "the archive is made with tar")
        try sh("tar -cf app.tar App", in: dir.path)
        let t = try Measured.run(["scan", "--format", "json", dir.sub("app.tar")])
        assertCheap(t, "shared-range sidecar in a tar member", exit: 1)  // unreadable: the scan is incomplete
        XCTAssertTrue(ruleIDs(t).contains("unreadable-entry"), "\(ruleIDs(t))")
    }

    /// An archive of many large sidecars costs memory for what they say, not for their size:
    /// each is reduced to its backup attributes (or its parse error) as it is read.
    func testManyLargeSidecarsInACompressedArchiveStayCheap() throws {
        try Tool.require("tar", "xz", for: "the compressed archive is made with tar -J")
        let dir = try TempDir()
        let big = AppleDouble.build(
            AppleDouble.Parsed(attributes: [
                ("com.apple.quarantine", [UInt8](repeating: 0, count: 1_000_000)),
                (BackupAttribute.exclude.macName, BackupAttribute.canonicalValue),
            ]))
        try Fixture.container(at: dir.sub("App"))
        for i in 0..<300 {
            try Fixture.file(dir.sub("App/Documents/f\(i)"), size: 1)
            try Fixture.bytes(dir.sub("App/Documents/._f\(i)"), i % 3 == 0 ? Self.sharedRangeSidecar(count: 3000) : big)
        }
        try sh("tar -cJf app.tar.xz App", in: dir.path)
        let m = try Measured.run(["scan", "--format", "json", dir.sub("app.tar.xz")])
        assertCheap(m, "300 sidecars of 1 MB in a .tar.xz", exit: 1)  // 100 unreadable: the scan is incomplete
        XCTAssertEqual(ruleIDs(m).filter { $0 == "unreadable-entry" }.count, 100)
        let inv = try Audit.inventory(of: dir.sub("app.tar.xz"))
        XCTAssertEqual(
            inv.entries.filter { $0.excludedBy != nil && $0.path.display.hasPrefix("Documents/f") }.count, 200)
    }

    /// A 5,000-deep chain of 255-byte names (20 MB on disk) cost depth × path length (6.3 GB)
    /// before the path limit; now the folder past it is a finding.
    func testDeepChainOfLongNamesIsBounded() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("App"))
        var fd = open(dir.sub("App/Documents"), O_RDONLY | O_DIRECTORY)
        let name = String(repeating: "n", count: 255)
        for _ in 0..<5000 {
            XCTAssertEqual(mkdirat(fd, name, 0o755), 0)
            let next = openat(fd, name, O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
        }
        close(fd)
        let m = try Measured.run(["scan", "--format", "json", dir.sub("App")])
        assertCheap(m, "5,000-deep chain of 255-byte names", exit: 1)  // the folder past the path limit is missed
        let found = findings(m).filter { $0["ruleId"] as? String == "unreadable-entry" }
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue((found.first?["message"] as? String ?? "").contains("limit"), "\(found)")
        XCTAssertLessThan((found.first?["path"] as? String ?? "").utf8.count, Walker.maximumPathLength + 256)
    }

    func testAppleDoubleEntriesMustLieInRange() {
        var b = AppleDouble.build(.init(attributes: [("a", [1, 2, 3])]))
        XCTAssertNoThrow(try AppleDouble.parse(b))
        b[26 + 8 + 3] = 0xFF  // the Finder info entry's length now runs past the end
        XCTAssertThrowsError(try AppleDouble.parse(b))
    }

    // MARK: writers keep what they do not change

    /// A sidecar as macOS writes one, with a resource fork, Finder info, a non-UTF-8 attribute
    /// name and attribute flags.
    static func richSidecar() -> AppleDouble.Parsed {
        var p = AppleDouble.Parsed(finderInfo: Array("TEXTttxt".utf8) + [UInt8](repeating: 7, count: 24))
        p.filler = Array("Mac OS X        ".utf8)
        p.resourceFork = (0..<180).map { UInt8($0 & 0xFF) }
        p.entries = [
            .init(name: [0xFF, 0xFE], value: [1, 2, 3, 4, 5], flags: 0x0001),
            .init(name: Array("com.apple.quarantine".utf8), value: Array("0081;5f1;Safari;".utf8)),
            .init(name: Array("com.apple.lastuseddate#PS".utf8), value: [UInt8](repeating: 0xAB, count: 16)),
        ]
        p.otherEntries = [(id: 4, bytes: Array("a comment".utf8))]
        return p
    }
}

/// docs/limits.md states the limits the code enforces.
final class LimitsDocTests: XCTestCase {
    func testLimitsDocumentMatchesTheCode() throws {
        let doc = try String(contentsOfFile: DocsTests.repo + "/docs/limits.md", encoding: .utf8)
        XCTAssertEqual(AttributeValueClass.maximumPlistSize, 64 * 1024)
        XCTAssertEqual(ArchiveWalk.Reader.maximumAttributeValue, 64 * 1024)
        XCTAssertTrue(doc.contains("\(ArchiveWalk.Reader.maximumAttributes) attributes kept per member"))
        XCTAssertEqual(AppleDouble.maximumSize, 1 << 20)
        XCTAssertTrue(
            doc.contains(
                "at most \(AppleDouble.maximumEntries) entries and "
                    + "\(groupedDigits(Int64(AppleDouble.maximumAttributes))) attributes"
            ))
        XCTAssertEqual(Container.maximumIdentityPlistSize, 1 << 20)
        XCTAssertEqual(LargeUserDefaults.maximumParsedSize, 16 << 20)
        XCTAssertEqual(PolicyFile.maximumSize, 1 << 20)
        XCTAssertTrue(doc.contains("deeper than \(BoundedPlist.maximumDepth)"))
        XCTAssertEqual(BoundedPlist.maximumExpandedObjects(for: 0), 100_000)
        XCTAssertEqual(BoundedPlist.maximumExpandedObjects(for: 4), 100_001)
        XCTAssertEqual(BoundedPlist.maximumExpandedBytes(for: 1), (1 << 20) + 4)
        XCTAssertTrue(doc.contains("scripts/fuzz.sh --duration"))
        XCTAssertTrue(
            doc.contains("at most \(groupedDigits(Int64(Walker.maximumPathLength))) bytes below the data root"))
        let readme = try String(contentsOfFile: DocsTests.repo + "/README.md", encoding: .utf8)
        XCTAssertTrue(readme.contains("(docs/limits.md)"))
    }
}

final class AppleDoubleLayoutTests: XCTestCase {
    /// Finder info followed by bytes that are not an ATTR block: kept on a rewrite that adds
    /// nothing, refused by one that would have to replace them.
    func testUnknownFinderInfoTailIsKeptOrRefused() throws {
        var p = AppleDouble.Parsed()
        p.finderInfoTail = [9, 9, 9, 9]
        p.resourceFork = [1, 2, 3]
        let bytes = AppleDouble.build(p)
        let back = try AppleDouble.parse(bytes)
        XCTAssertEqual(back.finderInfoTail, [9, 9, 9, 9])
        XCTAssertEqual(back.resourceFork, [1, 2, 3])
        let dir = try TempDir()
        try Fixture.file(dir.sub("a"), size: 1)
        try Fixture.bytes(dir.sub("._a"), bytes)
        XCTAssertThrowsError(
            try BackupMarker.set(.exclude, value: BackupAttribute.canonicalValue, on: dir.sub("a"), carrier: .sidecar))
        XCTAssertEqual(
            try FileDescriptor.currentDirectory.readFile(dir.sub("._a").utf8, limit: AppleDouble.maximumSize), bytes)
    }

    func testLongAttributeNamesRoundTrip() throws {
        var p = AppleDouble.Parsed()
        p.entries = [
            .init(name: [UInt8](repeating: 0x61, count: 254), value: [1]),
            .init(name: [UInt8](repeating: 0x62, count: 255), value: [2]),
        ]
        XCTAssertEqual(try AppleDouble.parse(AppleDouble.build(p)).entries, p.entries)
    }
}
