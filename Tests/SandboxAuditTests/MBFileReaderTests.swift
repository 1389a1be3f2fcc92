import Foundation
import XCTest

@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// `MBFileReader` (the direct binary-plist reader of a Manifest.db row's blob) against
/// `PropertyListSerialization` (`MBFile.decodeWithFoundation`): the same MBFile, field by field,
/// on real blobs written by `BackupBuilder`, on blobs edited into odd shapes, and on every
/// one-byte corruption of a few of them.
final class MBFileReaderTests: XCTestCase {
    typealias Item = BackupBuilder.Item

    func item(
        _ path: String, flags: Int64 = 1, size: Int64? = nil, mode: Int64 = 0o100644, modified: Int64 = 1_700_000_000,
        inode: Int64 = 1001, protectionClass: Int64 = 3, target: String? = nil, attributes: [String: [UInt8]]? = nil
    ) -> Item {
        var i = Item(
            domain: "AppDomain-com.example.app", relativePath: path, flags: flags, size: size, mode: mode,
            modified: modified, inode: inode, target: target, protectionClass: protectionClass)
        i.extendedAttributes = attributes
        return i
    }

    /// Every field of `direct` equals `foundation`'s, each named when it does not.
    func assertSameFields(
        _ direct: MBFile, _ foundation: MBFile, _ label: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(direct.size, foundation.size, "\(label): Size", file: file, line: line)
        XCTAssertEqual(direct.mode, foundation.mode, "\(label): Mode", file: file, line: line)
        XCTAssertEqual(direct.lastModified, foundation.lastModified, "\(label): LastModified", file: file, line: line)
        XCTAssertEqual(
            direct.lastStatusChange, foundation.lastStatusChange, "\(label): LastStatusChange", file: file, line: line)
        XCTAssertEqual(direct.birth, foundation.birth, "\(label): Birth", file: file, line: line)
        XCTAssertEqual(direct.inode, foundation.inode, "\(label): InodeNumber", file: file, line: line)
        XCTAssertEqual(direct.userID, foundation.userID, "\(label): UserID", file: file, line: line)
        XCTAssertEqual(direct.groupID, foundation.groupID, "\(label): GroupID", file: file, line: line)
        XCTAssertEqual(
            direct.protectionClass, foundation.protectionClass, "\(label): ProtectionClass", file: file, line: line)
        XCTAssertEqual(direct.flags, foundation.flags, "\(label): Flags", file: file, line: line)
        XCTAssertEqual(direct.relativePath, foundation.relativePath, "\(label): RelativePath", file: file, line: line)
        XCTAssertEqual(direct.target, foundation.target, "\(label): Target", file: file, line: line)
        XCTAssertEqual(
            direct.encryptionKey, foundation.encryptionKey, "\(label): EncryptionKey", file: file, line: line)
        XCTAssertEqual(
            direct.extendedAttributes?.map(\.name), foundation.extendedAttributes?.map(\.name),
            "\(label): ExtendedAttributes names", file: file, line: line)
        XCTAssertEqual(
            direct.extendedAttributes?.map(\.value), foundation.extendedAttributes?.map(\.value),
            "\(label): ExtendedAttributes values", file: file, line: line)
        XCTAssertEqual(
            direct.extendedAttributesProblem, foundation.extendedAttributesProblem,
            "\(label): ExtendedAttributes problem", file: file, line: line)
    }

    /// `MBFile.decode` (direct when it can) gives what Foundation alone gives: the same MBFile or the same refusal.
    func assertDecodeAgrees(_ blob: [UInt8], _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        switch (MBFile.decode(blob), MBFile.decodeWithFoundation(blob)) {
        case (.success(let a), .success(let b)): assertSameFields(a, b, label, file: file, line: line)
        case (.failure(let a), .failure(let b)): XCTAssertEqual(a.reason, b.reason, label, file: file, line: line)
        case (let a, let b): XCTFail("\(label): decode gave \(a), Foundation \(b)", file: file, line: line)
        }
    }

    func direct(_ blob: [UInt8]) -> MBFile? { MBFileReader.decode(blob[...]) }

    func testTheDirectReaderAgreesWithFoundationOnBuiltBlobs() throws {
        let xattrs: [String: [UInt8]] = [
            "com.apple.metadata:com_apple_backup_excludeItem": Array("com.apple.backupd".utf8),
            "com.apple.MobileBackup": [1], "user.empty": [], "user.big": [UInt8](repeating: 0xAB, count: 300),
        ]
        var items: [(Item, [UInt8]?)] = [
            (item("Documents/a.txt", size: 9), nil),
            (item("", flags: 2, mode: 0o40755), nil),
            (item("Documents/dir", flags: 2, mode: 0o40755), nil),
            (item("Documents/link", flags: 4, size: 5, mode: 0o120755, target: "a.txt"), nil),
            (
                item(
                    "Documents/long-link", flags: 4, mode: 0o120755, target: String(repeating: "d/", count: 200) + "x"),
                nil
            ),
            (item("Documents/caf\u{E9} \u{65E5}\u{672C}.txt", size: 3), nil),
            (item("Library/Preferences/x.plist", size: 0, protectionClass: 1, attributes: xattrs), nil),
            (item("Documents/encrypted", size: 33, protectionClass: 2), [UInt8](repeating: 7, count: 44)),
            (item("Documents/p4", protectionClass: 4, attributes: [:]), nil),
            (item("Documents/p0", protectionClass: 0), nil),
            (item("Documents/p-neg", protectionClass: -1), nil),
            (item("Documents/p-big", protectionClass: Int64(UInt32.max) + 1), nil),
            (item("Documents/old", modified: -86_400 * 365 * 40, inode: 0), nil),
            (item("Documents/future", modified: Int64.max, inode: Int64.max), nil),
            (item("Documents/min", size: Int64.min, mode: -1, modified: Int64.min + 86_400, inode: -5), nil),
            (item("Documents/mode-wide", mode: Int64(UInt32.max) + 1), nil),
            (item("Documents/mode-max", mode: Int64(UInt32.max)), nil),
        ]
        for size: Int64 in [1, 127, 128, 255, 256, 65_535, 65_536, 1 << 31, (1 << 32) - 1, 1 << 32, Int64.max, -1] {
            items.append((item("Documents/size-\(size)", size: size), nil))
        }
        for (i, (item, key)) in items.enumerated() {
            let blob = [UInt8](try BackupBuilder.mbFile(item, encryptionKey: key))
            let label = "item \(i) \(item.relativePath)"
            let foundation = try MBFile.decodeWithFoundation(blob).get()
            guard let read = direct(blob) else {
                XCTFail("\(label): the direct reader left a well-formed blob to Foundation")
                continue
            }
            assertSameFields(read, foundation, label)
            assertDecodeAgrees(blob, label)
        }
        // The values themselves, not only the agreement: a built blob says what was built.
        let built = try XCTUnwrap(
            direct(
                [UInt8](
                    try BackupBuilder.mbFile(
                        item("Library/Preferences/x.plist", size: 0, protectionClass: 1, attributes: xattrs),
                        encryptionKey: nil))))
        XCTAssertEqual(built.relativePath, "Library/Preferences/x.plist")
        XCTAssertEqual(built.protectionClass, 1)
        // Only the attributes the tool reads (the backup attributes) are kept; the others skipped.
        XCTAssertEqual(
            built.extendedAttributes?.map(\.name),
            ["com.apple.MobileBackup", "com.apple.metadata:com_apple_backup_excludeItem"])
        XCTAssertEqual(
            built.extendedAttributes?.first { $0.name == "com.apple.metadata:com_apple_backup_excludeItem" }?.value,
            xattrs["com.apple.metadata:com_apple_backup_excludeItem"])
        XCTAssertEqual(built.extendedAttributes?.first { $0.name == "com.apple.MobileBackup" }?.value, [1])
        let negative = try XCTUnwrap(
            direct([UInt8](try BackupBuilder.mbFile(item("n", size: -1, modified: -3), encryptionKey: nil))))
        XCTAssertNil(negative.size)
        XCTAssertEqual(negative.lastModified, -3)
    }

    /// The blob of `item` with its archive edited by `edit` (the `$objects` array: 1 is the MBFile).
    func edited(_ item: Item, key: [UInt8]? = nil, _ edit: (inout [Any], inout [String: Any]) throws -> Void) throws
        -> [UInt8]
    {
        let blob = try BackupBuilder.mbFile(item, encryptionKey: key)
        var archive = try XCTUnwrap(
            try PropertyListSerialization.propertyList(from: blob, format: nil) as? [String: Any])
        var objects = try XCTUnwrap(archive["$objects"] as? [Any])
        try edit(&objects, &archive)
        archive["$objects"] = objects
        return [UInt8](try PropertyListSerialization.data(fromPropertyList: archive, format: .binary, options: 0))
    }

    func testOddArchivesDecodeAsFoundationDecodesThem() throws {
        let base = item("Documents/a.txt", size: 9, target: "t", attributes: ["user.a": [1, 2]])
        func root(_ objects: inout [Any], _ body: (inout [String: Any]) throws -> Void) throws {
            var r = try XCTUnwrap(objects[1] as? [String: Any])
            try body(&r)
            objects[1] = r
        }
        var cases: [(String, [UInt8])] = []
        for key in [
            "Size", "Mode", "LastModified", "LastStatusChange", "Birth", "InodeNumber", "UserID", "GroupID",
            "ProtectionClass", "Flags", "RelativePath", "Target", "ExtendedAttributes", "$class",
        ] {
            cases.append(("no \(key)", try edited(base) { o, _ in try root(&o) { $0[key] = nil } }))
        }
        cases.append(("Size a string", try edited(base) { o, _ in try root(&o) { $0["Size"] = "9" } }))
        cases.append(("Size a real", try edited(base) { o, _ in try root(&o) { $0["Size"] = 9.5 } }))
        cases.append(("Mode a boolean", try edited(base) { o, _ in try root(&o) { $0["Mode"] = true } }))
        cases.append(
            ("Size a UID", try edited(base) { o, _ in try root(&o) { $0["Size"] = try BackupBuilder.uid(3) } }))
        cases.append(
            ("Size a date", try edited(base) { o, _ in try root(&o) { $0["Size"] = Date(timeIntervalSince1970: 5) } }))
        cases.append(
            ("RelativePath inline", try edited(base) { o, _ in try root(&o) { $0["RelativePath"] = "inline/path" } }))
        cases.append(
            ("RelativePath inline $null", try edited(base) { o, _ in try root(&o) { $0["RelativePath"] = "$null" } }))
        cases.append(
            (
                "RelativePath to $null",
                try edited(base) { o, _ in try root(&o) { $0["RelativePath"] = try BackupBuilder.uid(0) } }
            ))
        cases.append(
            (
                "RelativePath out of range",
                try edited(base) { o, _ in try root(&o) { $0["RelativePath"] = try BackupBuilder.uid(200) } }
            ))
        cases.append(("RelativePath to a number", try edited(base) { o, _ in o[3] = 42 }))
        cases.append(
            (
                "RelativePath a CF$UID dictionary",
                try edited(base) { o, _ in try root(&o) { $0["RelativePath"] = ["CF$UID": 3] } }
            ))
        cases.append(
            ("Target as data", try edited(base) { o, _ in try root(&o) { $0["Target"] = Data([0x61, 0xFF]) } }))
        cases.append(
            (
                "Target as NSData",
                try edited(base) { o, _ in try root(&o) { $0["Target"] = ["NS.data": Data([1, 2, 3])] } }
            ))
        cases.append(
            (
                "Target as NSData by UID",
                try edited(base) { o, _ in
                    o.append(Data([9, 8]))
                    let at = o.count - 1
                    try root(&o) { $0["Target"] = ["NS.data": try BackupBuilder.uid(at)] }
                }
            ))
        cases.append(
            (
                "Target NS.bytes",
                try edited(base) { o, _ in try root(&o) { $0["Target"] = ["NS.data": 5, "NS.bytes": "bytes"] } }
            ))
        cases.append(
            (
                "Target a dictionary without NS.data",
                try edited(base) { o, _ in try root(&o) { $0["Target"] = ["other": "x"] } }
            ))
        cases.append(
            (
                "ExtendedAttributes not a plist",
                try edited(base) { o, _ in try root(&o) { $0["ExtendedAttributes"] = Data("garbage".utf8) } }
            ))
        cases.append(
            ("ExtendedAttributes a number", try edited(base) { o, _ in try root(&o) { $0["ExtendedAttributes"] = 7 } }))
        cases.append(("root not a dictionary", try edited(base) { o, _ in o[1] = "root" }))
        cases.append(("no $top", try edited(base) { _, a in a["$top"] = nil }))
        cases.append(("$top root not a UID", try edited(base) { _, a in a["$top"] = ["root": 1] }))
        cases.append(
            (
                "no $objects",
                try edited(base) { o, a in
                    o = []
                    a["$objects"] = nil
                }
            ))
        cases.append(
            ("unicode keys and values", try edited(base) { o, _ in try root(&o) { $0["Caf\u{E9}"] = "\u{263A}" } }))
        cases.append(("a surrogate pair", try edited(base) { o, _ in o[3] = "Documents/\u{1F600}.txt" }))
        cases.append(("a null-like string", try edited(base) { o, _ in try root(&o) { $0["Extra"] = "\u{0}" } }))
        let xml = try PropertyListSerialization.data(
            fromPropertyList: ["$objects": ["$null"]], format: .xml, options: 0)
        cases.append(("an XML plist", [UInt8](xml)))
        for (label, blob) in cases { assertDecodeAgrees(blob, label) }
        // The direct reader itself read the ordinary shapes (not left them all to Foundation).
        XCTAssertNotNil(direct(cases.first { $0.0 == "no Size" }!.1))
        XCTAssertNotNil(direct(cases.first { $0.0 == "Target as NSData by UID" }!.1))
        XCTAssertNil(direct(cases.first { $0.0 == "Size a string" }!.1))
    }

    /// Paths outside the Basic Multilingual Plane (emoji, musical symbols, flags: UTF-16
    /// surrogate pairs in the blob) are read by the direct reader, so no platform's Foundation
    /// decides them (on Darwin, Foundation's UIDs are opaque CF objects), and a backup holding
    /// them lists every row. An unpaired surrogate is still left to Foundation.
    func testNonBMPPathsAreReadDirectlyAndEveryRowIsListed() throws {
        let paths = [
            "Documents/\u{1F600} notes.md", "Documents/\u{1D11E} score.txt", "Library/\u{1F1EB}\u{1F1F7} flag.txt",
            "Documents/mixed caf\u{E9} \u{65E5} \u{1F680}.bin", "Documents/\u{10FFFF}", "Documents/plain.txt",
        ]
        for path in paths {
            let blob = [UInt8](
                try BackupBuilder.mbFile(
                    item(path, size: 3, attributes: ["com.apple.MobileBackup": [1]]), encryptionKey: nil))
            let read = try XCTUnwrap(direct(blob), "\(path): left to Foundation")
            XCTAssertEqual(read.relativePath, path)
            XCTAssertEqual(read.extendedAttributes?.map(\.name), ["com.apple.MobileBackup"])
            assertSameFields(read, try MBFile.decodeWithFoundation(blob).get(), path)
        }
        // An unpaired high surrogate (D83D, then "a"): not read directly.
        let lone = try edited(item("Documents/x", size: 1)) { o, _ in o[3] = "Documents/\u{1F600}" }
        guard let at = lone.indices.dropLast(1).first(where: { lone[$0] == 0xD8 && lone[$0 + 1] == 0x3D }) else {
            return XCTFail("no surrogate pair in the blob")
        }
        var broken = lone
        broken[at + 2] = 0x00
        broken[at + 3] = 0x61
        XCTAssertNil(direct(broken))
        assertDecodeAgrees(broken, "an unpaired surrogate")

        let dir = try TempDir("nonbmp")
        var b = BackupBuilder()
        for path in paths { b.file("AppDomain-com.example.app", path, size: 3) }
        try b.write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: "com.example.app"))
        let files = Set(
            result.inventory.entries.filter { $0.entry.kind == .file }.map {
                String(decoding: $0.path.bytes, as: UTF8.self)
            })
        XCTAssertEqual(files, Set(paths), "\(result.inventory.problems)")
        XCTAssertTrue(result.inventory.problems.isEmpty, "\(result.inventory.problems)")
    }

    /// A row recording thousands of extended attributes costs what their bytes cost to look at:
    /// only the names the tool reads (the backup attributes) are decoded, the others compared by
    /// length and skipped, none made a Foundation object. Measured against the Foundation route
    /// (what every row's `ExtendedAttributes` took before) on the same blob, in the same process.
    func testThousandsOfAttributesCostTheirBytesNotAFoundationObjectEach() throws {
        var attributes: [String: [UInt8]] = [
            "com.apple.metadata:com_apple_backup_excludeItem": Array("com.apple.backupd".utf8)
        ]
        for i in 0..<2_000 { attributes["user.attribute\(10_000 + i)"] = [0x76] }
        let blob = [UInt8](
            try BackupBuilder.mbFile(item("Documents/a", size: 1, attributes: attributes), encryptionKey: nil))
        XCTAssertLessThanOrEqual(blob.count, MBFile.maximumBlobSize)
        let read = try XCTUnwrap(direct(blob))
        XCTAssertEqual(read.extendedAttributes?.map(\.name), ["com.apple.metadata:com_apple_backup_excludeItem"])
        XCTAssertEqual(read.extendedAttributes?.first?.value, Array("com.apple.backupd".utf8))
        assertDecodeAgrees(blob, "2,000 attributes")
        func seconds(_ runs: Int, _ body: () -> Void) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<runs { body() }
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(runs)
        }
        let directCost = seconds(20) { _ = MBFile.decode(blob) }
        let foundationCost = seconds(5) { _ = MBFile.decodeWithFoundation(blob) }
        print(
            "MBFileReaderTests: a row with 2,001 attributes (\(blob.count) bytes): direct "
                + "\(Int(directCost * 1e6)) µs, Foundation \(Int(foundationCost * 1e6)) µs"
        )
        XCTAssertLessThan(directCost * 5, foundationCost, "direct \(directCost) s, Foundation \(foundationCost) s")
    }

    /// A UID parsed by Foundation is read without its type's name (which differs between
    /// Foundation on Linux and on Darwin): written back as a binary plist and read there.
    func testAUIDFromFoundationIsReadWithoutItsTypesName() throws {
        func be64(_ v: UInt64) -> [UInt8] {
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
        }
        for value: UInt64 in [0, 1, 5, 255, 256, 65_535, 65_536, 16_777_216, UInt64(UInt32.max)] {
            let size = value < 0x100 ? 1 : value < 0x1_0000 ? 2 : 4
            let uidBytes = (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
            // bplist00, an array of one reference at 8, the UID at 10, the offset table after it.
            let table = 10 + 1 + size
            let bytes =
                Array("bplist00".utf8) + [0xA1, 0x01, 0x80 | UInt8(size - 1)] + uidBytes + [8, 10]
                + [0, 0, 0, 0, 0, 0, 1, 1] + be64(2) + be64(0) + be64(UInt64(table))
            let array = try XCTUnwrap(
                try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [Any])
            XCTAssertEqual(MBFile.uid(array.first), Int(value), "UID \(value)")
        }
        XCTAssertEqual(MBFile.uid(["CF$UID": 7] as [String: Any]), 7)
        for other: Any in ["7", Data([7]), NSNumber(value: 7), 7, true, Date(timeIntervalSince1970: 7), [7], ["a": 7]] {
            XCTAssertNil(MBFile.uid(other), "\(other)")
        }
    }
}
