import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 35 item 2: a binary plist holding a set (marker 0xC), which Foundation on Linux reads
/// and then crashes bridging (SIGSEGV), in every place the tool reads a plist from: each run of
/// the built binary ends with an exit code (0, 1 or 2), never a signal.
final class PlistMarkerTests: XCTestCase {
    typealias T = BackupFolderTests

    /// 46 bytes: a set holding the integer 1.
    static let set: [UInt8] = {
        var b = Array("bplist00".utf8) + [0xC1, 0x01, 0x10, 0x01] + [8, 10]
        b += [UInt8](repeating: 0, count: 6) + [1, 1]
        for v: UInt64 in [2, 0, 12] { for k in (0..<8).reversed() { b.append(UInt8(v >> (8 * UInt64(k)) & 0xFF)) } }
        return b
    }()

    /// A binary plist of `objects` (object 0 at the top), one-byte offsets and references.
    static func plist(_ objects: [[UInt8]]) -> [UInt8] {
        var b = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects {
            offsets.append(b.count)
            b += o
        }
        let table = b.count
        for o in offsets { b.append(UInt8(o)) }
        b += [UInt8](repeating: 0, count: 6) + [1, 1]
        for v in [UInt64(objects.count), 0, UInt64(table)] {
            for k in (0..<8).reversed() { b.append(UInt8(v >> (8 * UInt64(k)) & 0xFF)) }
        }
        return b
    }

    /// The run ended with `status` (not a signal), and no trap was reported.
    func assertExits(
        _ r: CLI.Result, _ status: Int32, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(r.status, status, "\(what): \(r.stderr)", file: file, line: line)
        XCTAssertFalse(
            r.stderr.contains("Fatal error") || r.stderr.contains("Segmentation"), "\(what): \(r.stderr)", file: file,
            line: line)
    }

    func testBoundedPlistRefusesEveryMarkerFoundationCannotBridge() throws {
        XCTAssertEqual(Self.set.count, 46)
        XCTAssertThrowsError(try BoundedPlist.check(Self.set)) { XCTAssertTrue("\($0)".contains("set"), "\($0)") }
        XCTAssertNil(BoundedPlist.object(Self.set))
        let refused: [String: [[UInt8]]] = [
            "empty set": [[0xC0]],
            "set in an array": [[0xA1, 1], [0xC1, 2], [0x10, 1]],
            "set as a dictionary value": [[0xD1, 1, 2], [0x51, 0x41], [0xC1, 3], [0x10, 1]],
            "null": [[0x00]], "fill in an array": [[0xA1, 1], [0x0F]],
            "one-byte real": [[0x20, 1]], "16-byte real": [[0x24] + [UInt8](repeating: 0, count: 16)],
            "16-byte UID": [[0x8F] + [UInt8](repeating: 1, count: 16)],
            "ordered set": [[0xB1, 1], [0x10, 1]], "UTF-8 string": [[0x72, 0x41, 0x42]], "0x9": [[0x90]],
            "integer key": [[0xD1, 1, 2], [0x10, 1], [0x10, 1]], "data key": [[0xD1, 1, 2], [0x41, 1], [0x10, 1]],
            "array key": [[0xD1, 1, 2], [0xA0], [0x10, 1]], "UID key": [[0xD1, 1, 2], [0x80, 1], [0x10, 1]],
        ]
        for (what, objects) in refused.sorted(by: { $0.key < $1.key }) {
            XCTAssertThrowsError(try BoundedPlist.check(Self.plist(objects)), what)
        }
        let accepted: [String: [[UInt8]]] = [
            "false": [[0x08]], "16-byte integer": [[0x14] + [UInt8](repeating: 1, count: 16)],
            "float": [[0x22, 0, 0, 0, 0]],
            "date": [[0x33] + [UInt8](repeating: 0, count: 8)],
            "UTF-16 key": [[0xD1, 1, 2], [0x61, 0, 0x41], [0x10, 1]],
            "UID": [[0x80, 1]], "array of data": [[0xA1, 1], [0x42, 1, 2]],
        ]
        for (what, objects) in accepted.sorted(by: { $0.key < $1.key }) {
            XCTAssertNotNil(BoundedPlist.object(Self.plist(objects)), what)
        }
        // xcrun's text plists, only where allowed, and nested no deeper than the limit.
        let text = Array("{ \"a\" = { b = (1, \"}\", /* ( */ 2); }; }".utf8)
        XCTAssertNil(BoundedPlist.object(text))
        XCTAssertNotNil(BoundedPlist.dictionary(text, openStep: true))
        XCTAssertThrowsError(
            try BoundedPlist.check(
                Array((String(repeating: "(", count: 10_000) + String(repeating: ")", count: 10_000)).utf8),
                openStep: true))
    }

    func testASetInAFolderContainersPlistsIsRefusedNotACrash() throws {
        let dir = try TempDir("set")
        // The container's metadata plist.
        try Fixture.container(at: dir.sub("meta"))
        try Fixture.bytes(dir.sub("meta/" + Container.simulatorMetadata), Self.set)
        // the app unidentified, nothing missed
        assertExits(try CLI.run(["scan", dir.sub("meta")]), 0, "metadata plist")
        assertExits(try CLI.run(["inventory", dir.sub("meta")]), 0, "metadata plist, inventory")
        // The native exclude attribute: an unrecognised value.
        try Fixture.container(at: dir.sub("xattr"))
        try Fixture.file(dir.sub("xattr/Library/Application Support/a.bin"), size: 10)
        try XAttr.set(
            path: Array(dir.sub("xattr/Library/Application Support/a.bin").utf8),
            name: BackupAttribute.exclude.nativeName, value: Self.set)
        let x = try CLI.run(["scan", "--format", "json", dir.sub("xattr")])
        assertExits(x, 0, "exclude attribute")  // a warning
        XCTAssertTrue(x.stdout.contains("unrecognised-exclusion-value"), x.stdout)
        assertExits(try CLI.run(["attributes", dir.sub("xattr/Library/Application Support/a.bin")]), 0, "attributes")
        // A sidecar holding it.
        try Fixture.container(at: dir.sub("side"))
        try Fixture.file(dir.sub("side/Library/Application Support/a.bin"), size: 10)
        try Fixture.bytes(
            dir.sub("side/Library/Application Support/._a.bin"),
            AppleDouble.build(.init(attributes: [(BackupAttribute.exclude.rawValue, Self.set)])))
        assertExits(try CLI.run(["scan", dir.sub("side")]), 0, "sidecar")
        // AppDataInfo.plist of an .xcappdata package.
        try Fixture.container(at: dir.sub("App.xcappdata/AppData"))
        try Fixture.bytes(dir.sub("App.xcappdata/" + Container.appDataInfo), Self.set)
        assertExits(try CLI.run(["scan", dir.sub("App.xcappdata")]), 0, "AppDataInfo.plist")
        // The app's Preferences plist.
        try Fixture.container(at: dir.sub("prefs"))
        try Fixture.bytes(dir.sub("prefs/Library/Preferences/com.example.app.plist"), Self.set)
        assertExits(
            // a warning: not parsed
            try CLI.run(["scan", "--user-defaults-warning-size", "1", dir.sub("prefs")]), 0, "Preferences plist")
        // --app-info: refused in one line.
        try Fixture.bytes(dir.sub("Info.plist"), Self.set)
        let info = try CLI.run(["scan", dir.sub("meta"), "--app-info", dir.sub("Info.plist")])
        assertExits(info, 2, "--app-info")
        XCTAssertEqual(info.stderr.split(separator: "\n").count, 1, info.stderr)
    }

    func testASetInAnArchivesMetadataMemberIsRefusedNotACrash() throws {
        let dir = try TempDir("set")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.bytes(dir.sub("App/" + Container.simulatorMetadata), Self.set)
        try Tool.require("tar", for: "the archive is made with tar")
        try sh("tar -cf app.tar App", in: dir.path)
        assertExits(try CLI.run(["scan", dir.sub("app.tar")]), 0, "tar metadata member")
        assertExits(try CLI.run(["inventory", dir.sub("app.tar")]), 0, "tar metadata member, inventory")
    }

    func testASetInABackupsPlistsAndBlobsIsRefusedNotACrash() throws {
        let dir = try TempDir("set")
        func backup(_ name: String, encrypted: Bool = false, _ change: (inout BackupBuilder) -> Void = { _ in }) throws
            -> String
        {
            var b = BackupBuilder()
            b.file(T.appDomain, "Documents/a.txt", size: 10)
            change(&b)
            try b.write(
                to: dir.sub(name), encryption: encrypted ? TestBackupEncryptor(password: "pw").builderEncryption : nil)
            return dir.sub(name)
        }
        try "pw\n".write(toFile: dir.sub("pw"), atomically: true, encoding: .utf8)
        for plist in ["Manifest.plist", "Info.plist", "Status.plist"] {
            let b = try backup(plist)
            try Fixture.bytes(b + "/" + plist, Self.set)
            for command in ["scan", "inventory"] {
                // The plist is refused and left out; the app's rows are all read.
                assertExits(try CLI.run([command, b, "--app", T.app]), 0, "\(plist), \(command)")
            }
        }
        let attributes = try backup("xattrs") { b in
            b.file(T.appDomain, "Library/Application Support/x.bin", size: 10)
            b.items[b.items.count - 1].extendedAttributesBytes = Self.set
        }
        // unreadable: incomplete
        assertExits(try CLI.run(["scan", attributes, "--app", T.app]), 1, "MBFile ExtendedAttributes")
        for encrypted in [false, true] {
            let b = try backup(encrypted ? "blob-encrypted" : "blob", encrypted: encrypted) { b in
                b.file(T.appDomain, "Library/Application Support/y.bin", size: 10)
                b.items[b.items.count - 1].blob = Self.set
            }
            let r = try CLI.run(["scan", b, "--app", T.app, "--password-file", dir.sub("pw")])
            assertExits(r, 1, "MBFile blob\(encrypted ? " of an encrypted backup" : "")")  // unreadable: incomplete
            XCTAssertTrue(r.stdout.contains("y.bin"), "the row is reported: \(r.stdout)")
        }
    }

    func testASetInASimulatorDevicePlistOrXcrunsOutputIsRefusedNotACrash() throws {
        let dir = try TempDir("set")
        let home = try SimulatorDeviceTests.home(dir)
        let env = ["HOME": home]
        // Another device's device.plist: the booted one is still found.
        try Fixture.bytes(
            home + "/Library/Developer/CoreSimulator/Devices/\(SimulatorDeviceTests.shutdown)/device.plist", Self.set)
        assertExits(
            try CLI.run(["scan", "--simulator", "booted", "--app", SimulatorDeviceTests.app], environment: env), 0,
            "another device.plist")
        // xcrun printing the set: the groups are guessed as without xcrun.
        let bin = dir.sub("bin")
        try Fixture.mkdirs(bin)
        try Fixture.bytes(dir.sub("out.plist"), Self.set)
        try Fixture.bytes(bin + "/xcrun", Array("#!/bin/sh\ncat '\(dir.sub("out.plist"))'\n".utf8))
        chmod(bin + "/xcrun", 0o755)
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let x = try CLI.run(
            ["scan", "--simulator", "booted", "--app", SimulatorDeviceTests.app],
            environment: ["HOME": home, "PATH": path])
        assertExits(x, 0, "xcrun output")  // groups guessed: a note
        // The booted device's own device.plist: the device cannot be read.
        try Fixture.bytes(
            home + "/Library/Developer/CoreSimulator/Devices/\(SimulatorDeviceTests.booted)/device.plist", Self.set)
        assertExits(
            try CLI.run(["scan", "--simulator", "booted", "--app", SimulatorDeviceTests.app], environment: env), 2,
            "booted device.plist")  // the device cannot be read: an input error
        assertExits(
            try CLI.run(
                ["inventory", "--simulator", SimulatorDeviceTests.booted, "--app", SimulatorDeviceTests.app],
                environment: env), 2, "booted device.plist, by UDID")
    }
}
