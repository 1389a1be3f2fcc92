import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

final class AttributeTests: XCTestCase {
    func testCanonicalValueIsWhatFoundationWrites() throws {
        XCTAssertEqual(BackupAttribute.canonicalValue.count, 61)
        let written = try PropertyListSerialization.data(
            fromPropertyList: "com.apple.backupd", format: .binary, options: 0)
        XCTAssertEqual(AttributeValueClass.classify(Array(written)), .canonical)
        XCTAssertEqual(AttributeValueClass.classify(BackupAttribute.canonicalValue), .canonical)
    }

    func testValueClasses() throws {
        XCTAssertEqual(AttributeValueClass.classify(Array("com.apple.backupd".utf8)), .string)
        XCTAssertEqual(AttributeValueClass.classify(BackupAttribute.sampleValue(.plistOther)), .plistOther)
        let binaryTrue = try PropertyListSerialization.data(fromPropertyList: true, format: .binary, options: 0)
        XCTAssertEqual(AttributeValueClass.classify(Array(binaryTrue)), .plistOther)
        XCTAssertEqual(AttributeValueClass.classify(Array("true".utf8)), .other)
        XCTAssertEqual(AttributeValueClass.classify([]), .other)
        XCTAssertEqual(AttributeValueClass.classify([0x01]), .other)
        XCTAssertEqual(AttributeValueClass.classify(Array("com.apple.backupd\n".utf8)), .other)
        XCTAssertEqual(AttributeValueClass.classify(Array("bplist00garbage".utf8)), .other)
        XCTAssertEqual(AttributeValueClass.classify(Array("<?xml version=\"1.0\"?><broken".utf8)), .other)
    }

    func testBothSpellingsOfBothNames() {
        XCTAssertEqual(
            BackupAttribute(attributeName: Array("com.apple.metadata:com_apple_backup_excludeItem".utf8)), .exclude)
        XCTAssertEqual(
            BackupAttribute(attributeName: Array("user.com.apple.metadata:com_apple_backup_excludeItem".utf8)), .exclude
        )
        XCTAssertEqual(BackupAttribute(attributeName: Array("com.apple.MobileBackup".utf8)), .legacy)
        XCTAssertEqual(BackupAttribute(attributeName: Array("user.com.apple.MobileBackup".utf8)), .legacy)
        XCTAssertNil(BackupAttribute(attributeName: Array("user.com.apple.quarantine".utf8)))
    }

    func testAppleDoubleLayoutMatchesXNU() throws {
        let bytes = AppleDouble.build(
            .init(attributes: [
                ("com.apple.metadata:com_apple_backup_excludeItem", BackupAttribute.canonicalValue),
                ("com.apple.MobileBackup", [1]),
            ]))
        XCTAssertEqual(AppleDouble.be32(bytes, 0), 0x0005_1607)
        XCTAssertEqual(AppleDouble.be32(bytes, 4), 0x0002_0000)
        XCTAssertEqual(AppleDouble.be16(bytes, 24), 2)
        XCTAssertEqual(AppleDouble.be32(bytes, 26), 9)  // Finder info entry
        XCTAssertEqual(AppleDouble.be32(bytes, 30), 50)  // right after the two entries
        XCTAssertEqual(AppleDouble.be32(bytes, 38), 2)  // resource fork entry
        XCTAssertEqual(AppleDouble.be32(bytes, 42), UInt32(bytes.count))
        XCTAssertEqual(AppleDouble.be32(bytes, 84), 0x4154_5452)  // "ATTR" after 32 bytes of Finder info + 2 pad
        XCTAssertEqual(AppleDouble.be32(bytes, 92), UInt32(bytes.count))  // total size
        XCTAssertEqual(AppleDouble.be16(bytes, 118), 2)  // num_attrs
        XCTAssertEqual(120 % 4, 0)
        let parsed = try AppleDouble.parse(bytes)
        XCTAssertEqual(
            parsed.attributes.map(\.name),
            ["com.apple.metadata:com_apple_backup_excludeItem", "com.apple.MobileBackup"])
        XCTAssertEqual(parsed.attributes.map(\.value), [BackupAttribute.canonicalValue, [1]])
    }

    func testAppleDoubleWithFinderInfoOnly() throws {
        var bytes = AppleDouble.build(.init())
        // Remove the ATTR block: a ._ file with Finder info alone.
        bytes = Array(bytes[0..<82])
        bytes.replaceSubrange(30..<34, with: [0, 0, 0, 50])
        bytes.replaceSubrange(34..<38, with: [0, 0, 0, 32])
        bytes.replaceSubrange(42..<46, with: [0, 0, 0, 82])  // empty resource fork at the end
        XCTAssertEqual(try AppleDouble.parse(bytes).attributes.count, 0)
    }

    func testMalformedAppleDoubleIsAnErrorNotACrash() {
        let good = AppleDouble.build(.init(attributes: [("com.apple.MobileBackup", [1])]))
        for cut in [4, 20, 30, 60, 100, good.count - 1] {
            let truncated = Array(good.prefix(cut))
            XCTAssertThrowsError(try AppleDouble.parse(truncated), "cut at \(cut)")
        }
        XCTAssertThrowsError(try AppleDouble.parse(Array("plain".utf8))) { error in
            XCTAssertEqual(error as? AppleDouble.ParseError, .notAppleDouble)
        }
        // A value offset pointing past the end.
        var lying = good
        lying[120..<124] = [0x7F, 0, 0, 0]
        XCTAssertThrowsError(try AppleDouble.parse(lying))
    }

    func testMarkerRoundTripNativeAndSidecar() throws {
        let dir = try TempDir()
        let file = dir.sub("a.bin")
        try Fixture.file(file, size: 1)
        try BackupMarker.set(.exclude, value: BackupAttribute.canonicalValue, on: file, carrier: .native)
        try BackupMarker.set(.legacy, value: [1], on: file, carrier: .sidecar)
        let marks = try BackupMarker.read(file)
        XCTAssertEqual(marks.map(\.source.kind).sorted(), ["appledouble", "native"])
        // The platform's own spelling: `user.` + the macOS name on Linux, the macOS name on Darwin.
        XCTAssertEqual(
            try XAttr.value(.path(Array(file.utf8)), name: BackupAttribute.exclude.nativeName),
            BackupAttribute.canonicalValue)
        XCTAssertTrue(try BackupMarker.clear(.exclude, on: file, carrier: .native))
        XCTAssertFalse(try BackupMarker.clear(.exclude, on: file, carrier: .native))
        XCTAssertTrue(try BackupMarker.clear(.legacy, on: file, carrier: .sidecar))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("._a.bin")), "an empty sidecar is removed")
        XCTAssertEqual(try BackupMarker.read(file).count, 0)
    }

    func testSidecarWriterRefusesToOverwriteForeignFile() throws {
        let dir = try TempDir()
        try Fixture.file(dir.sub("notes"), size: 1)
        try Fixture.bytes(dir.sub("._notes"), Array("not AppleDouble".utf8))
        XCTAssertThrowsError(
            try BackupMarker.set(
                .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("notes"), carrier: .sidecar))
        XCTAssertEqual(try String(contentsOfFile: dir.sub("._notes"), encoding: .utf8), "not AppleDouble")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["._notes", "notes"],
            "no temporary file left")
    }
}
