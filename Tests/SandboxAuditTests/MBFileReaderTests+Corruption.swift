import Foundation
import XCTest

@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

extension MBFileReaderTests {
    /// An 8-byte offset past `Int.max` for an object nothing refers to: `BoundedPlist.check`
    /// follows references and passes it, and the direct reader once trapped converting it to an
    /// `Int` (the scan crashed). It now leaves the bytes to Foundation, which refuses them, as a
    /// row's blob and as its `ExtendedAttributes`: each row is reported and the scan goes on.
    func testAnOffsetPastIntMaxIsLeftToFoundationNotATrap() throws {
        func be64(_ v: UInt64) -> [UInt8] {
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
        }
        // bplist00, an empty dictionary at 8 (the top), the offset table (8-byte offsets: 8 and
        // 2^63), the trailer (offsets of 8 bytes, references of 1, 2 objects, top 0, table at 9).
        let hostile =
            Array("bplist00".utf8) + [0xD0] + be64(8) + be64(1 << 63) + [0, 0, 0, 0, 0, 0, 8, 1] + be64(2) + be64(0)
            + be64(9)
        XCTAssertEqual(try BoundedPlist.check(hostile), .binary)
        XCTAssertNil(direct(hostile))
        XCTAssertNil(MBFileReader.readAttributes(hostile))
        assertDecodeAgrees(hostile, "an offset past Int.max")

        let dir = try TempDir("offset")
        var b = BackupBuilder()
        b.file("AppDomain-com.example.app", "Documents/blob.bin", size: 3)
        b.items[b.items.count - 1].blob = hostile
        b.file("AppDomain-com.example.app", "Documents/xattrs.bin", size: 3)
        b.items[b.items.count - 1].extendedAttributesBytes = hostile
        b.file("AppDomain-com.example.app", "Documents/plain.txt", size: 3)
        try b.write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: "com.example.app"))
        let files = Set(
            result.inventory.entries.filter { $0.entry.kind == .file }.map {
                String(decoding: $0.path.bytes, as: UTF8.self)
            })
        XCTAssertEqual(files, ["Documents/xattrs.bin", "Documents/plain.txt"])
        let problems = result.inventory.problems.map { "\($0.path.display): \($0.reason)" }
        XCTAssertTrue(
            problems.contains { $0.hasPrefix("Documents/blob.bin: its MBFile blob is not a property list") },
            "\(problems)")
        XCTAssertTrue(
            problems.contains { $0.hasPrefix("Documents/xattrs.bin: its ExtendedAttributes is not a property list") },
            "\(problems)")
    }

    /// An empty UTF-16 string (marker 0x60: writers write an empty string as ASCII) is refused
    /// by CoreFoundation, which allocates its characters and takes the NULL of a 0-byte
    /// allocation for a failure. The direct reader once read it as "" (one-byte corruptions of
    /// an offset table sometimes made one: `testEveryOneByteCorruption…` failed now and then);
    /// it now leaves it to Foundation.
    func testAnEmptyUTF16StringIsLeftToFoundation() throws {
        let blob = [UInt8](try BackupBuilder.mbFile(item("\u{263A}", size: 1), encryptionKey: nil))
        guard
            let at = blob.indices.dropLast(2).first(where: {
                blob[$0] == 0x61 && blob[$0 + 1] == 0x26 && blob[$0 + 2] == 0x3A
            })
        else {
            return XCTFail("no UTF-16 path in the blob")
        }
        XCTAssertEqual(direct(blob)?.relativePath, "\u{263A}")
        var empty = blob
        empty[at] = 0x60
        XCTAssertNil(direct(empty))
        assertDecodeAgrees(empty, "an empty UTF-16 string")
    }

    /// Every single-byte corruption of real blobs: the direct path never answers differently
    /// from Foundation (the same MBFile, or the same refusal), and never traps.
    func testEveryOneByteCorruptionDecodesAsFoundationDecodesIt() throws {
        let blobs = [
            [UInt8](
                try BackupBuilder.mbFile(
                    item("Documents/a.txt", size: 70_000, target: "x", attributes: ["user.a": [1]]),
                    encryptionKey: [1, 2, 3, 4])),
            [UInt8](try BackupBuilder.mbFile(item("caf\u{E9}", flags: 2, size: -2, mode: 0o40755), encryptionKey: nil)),
            // Non-BMP paths (surrogate pairs) and the backup attributes among others.
            [UInt8](
                try BackupBuilder.mbFile(
                    item(
                        "Documents/\u{1F600}\u{1D11E}", size: 5,
                        attributes: [
                            "com.apple.metadata:com_apple_backup_excludeItem": Array("com.apple.backupd".utf8),
                            "user.other": [2],
                        ]), encryptionKey: nil)),
        ]
        var directCount = 0
        for (n, blob) in blobs.enumerated() {
            for at in blob.indices {
                for value: UInt8 in [0x00, 0xFF, blob[at] ^ 0x01, blob[at] &+ 0x10] where value != blob[at] {
                    var bytes = blob
                    bytes[at] = value
                    if direct(bytes) != nil { directCount += 1 }
                    assertDecodeAgrees(bytes, "blob \(n), byte \(at) = \(value)")
                }
            }
        }
        XCTAssertGreaterThan(
            directCount, 0, "no corrupted blob was read directly: the comparison tested nothing of the reader")
    }
}
