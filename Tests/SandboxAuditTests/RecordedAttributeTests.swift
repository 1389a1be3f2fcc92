import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Every attribute a backup records (MBFile `ExtendedAttributes`), and the two scoped exclusion
/// names wherever attributes are read: backups, folders, sidecars, archives.
final class RecordedAttributeTests: XCTestCase {
    typealias T = BackupFolderTests
    static let mobileBackup = Array("com.apple.MobileBackup".utf8)

    func testMBFileExtendedAttributesAreDecoded() throws {
        var item = BackupBuilder.Item(domain: T.appDomain, relativePath: "Library/Media", flags: 2, mode: 0o40755)
        item.extendedAttributes = [
            BackupAttribute.cloudExclude.macName: Self.mobileBackup, "com.apple.assetsd.UUID": [1, 2, 3],
        ]
        let decoded = try MBFile.decode([UInt8](try BackupBuilder.mbFile(item, encryptionKey: nil))).get()
        // Only the names the tool reads (the backup attributes) are decoded; the others are skipped.
        XCTAssertEqual(decoded.extendedAttributes?.map(\.name), [BackupAttribute.cloudExclude.macName])
        XCTAssertEqual(decoded.extendedAttributes?.map(\.value), [Self.mobileBackup])
        XCTAssertNil(decoded.extendedAttributesProblem)
        // No key: nil, no problem.
        item.extendedAttributes = nil
        let plain = try MBFile.decode([UInt8](try BackupBuilder.mbFile(item, encryptionKey: nil))).get()
        XCTAssertNil(plain.extendedAttributes)
        XCTAssertNil(plain.extendedAttributesProblem)
    }

    /// Hostile values: not a plist, and a plist reference bomb inside the blob. The row is read,
    /// its attributes are not, and the scan says so.
    func testUnreadableExtendedAttributesAreAProblemNotACrash() throws {
        let bomb = try XCTUnwrap(BoundedPlistBomb.bytes)
        for (label, bytes) in [("text", Array("not a plist".utf8)), ("bomb", bomb)] {
            XCTAssertEqual(
                MBFile.decodeAttributes(bytes).failureReason,
                "its ExtendedAttributes is not a property list of names and values", label)
        }
        XCTAssertEqual(MBFile.decodeAttributes(nil).failureReason, "its ExtendedAttributes is not data")
    }

    func testBackupRecordsShowInTheInventoryAndExcludeNothing() throws {
        let dir = try TempDir("recorded")
        var b = try T.standard()
        b.directory(T.appDomain, "Library/Media")
        b.file(T.appDomain, "Library/Media/a.jpg", size: 100)
        for i in b.items.indices where b.items[i].domain == T.appDomain {
            if b.items[i].relativePath == "Library/Media" {
                b.items[i].extendedAttributes = [
                    BackupAttribute.cloudExclude.macName: Self.mobileBackup,
                    BackupAttribute.unencryptedExclude.macName: Self.mobileBackup,
                ]
            }
            if b.items[i].relativePath == "Documents/notes.txt" {
                b.items[i].extendedAttributes = [BackupAttribute.exclude.macName: BackupAttribute.canonicalValue]
            }
        }
        try b.write(to: dir.sub("B"))
        let r = try CLI.run(["inventory", dir.sub("B"), "--app", T.app])
        XCTAssertEqual(r.status, 0, r.stderr)
        var lines: [String: [String: Any]] = [:]
        for line in r.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            if o["domain"] as? String == T.appDomain { lines[o["path"] as! String] = o }
        }
        let media = try XCTUnwrap(lines["Library/Media"]?["attributes"] as? [[String: Any]])
        XCTAssertEqual(
            media.map { $0["attribute"] as? String },
            [BackupAttribute.cloudExclude.macName, BackupAttribute.unencryptedExclude.macName])
        XCTAssertEqual(media.map { $0["source"] as? String }, ["manifest", "manifest"])
        XCTAssertTrue((media[0]["meaning"] as? String ?? "").contains("iCloud backups only"), "\(media)")
        XCTAssertEqual(lines["Library/Media"]?["backedUp"] as? Bool, true)
        XCTAssertEqual(lines["Library/Media/a.jpg"]?["backedUp"] as? Bool, true)
        // The exclusion a row records is named, yet what the backup holds is backed up.
        let notes = try XCTUnwrap(lines["Documents/notes.txt"]?["attributes"] as? [[String: Any]])
        XCTAssertEqual(notes.map { $0["valueClass"] as? String }, ["canonical"])
        XCTAssertEqual(lines["Documents/notes.txt"]?["backedUp"] as? Bool, true)
        XCTAssertEqual(lines["Documents/notes.txt"]?["excluded"] as? Bool, false)
        let (json, _) = try CLI.scanJSON([dir.sub("B"), "--app", T.app])
        let scoped = (json["findings"] as? [[String: Any]] ?? []).filter {
            $0["ruleId"] as? String == "scoped-exclusion-attribute"
        }
        XCTAssertEqual(scoped.map { $0["path"] as? String }, ["Library/Media"])
        XCTAssertEqual(scoped.map { $0["severity"] as? String }, ["note"])
    }

    /// A folder's native attributes and a tar archive's: the same two names, recognised, no verdict changed.
    func testScopedNamesInFoldersAndArchivesChangeNoVerdict() throws {
        let dir = try TempDir("scoped")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Library/Application Support/a.bin"), size: 50)
        try BackupMarker.set(
            .cloudExclude, value: Self.mobileBackup, on: dir.sub("App/Library/Application Support/a.bin"),
            carrier: .native)
        try Fixture.file(dir.sub("App/Documents/b.bin"), size: 60)
        try BackupMarker.set(
            .unencryptedExclude, value: Self.mobileBackup, on: dir.sub("App/Documents/b.bin"), carrier: .sidecar)
        var inputs = [dir.sub("App")]
        if Tool.find("bsdtar") != nil || GNUTar.command != nil {
            let tar = GNUTar.command.map { "\($0) --xattrs --xattrs-include='*'" } ?? "bsdtar --xattrs"
            try sh("\(tar) -cf app.tar App", in: dir.path)
            inputs.append(dir.sub("app.tar"))
        }
        for input in inputs {
            let (entries, _, r) = try CLI.inventory(input)
            XCTAssertEqual(r.status, 0, r.stderr)
            for (path, attribute) in [
                ("Library/Application Support/a.bin", BackupAttribute.cloudExclude),
                ("Documents/b.bin", .unencryptedExclude),
            ] {
                let e = try XCTUnwrap(entries[path], "\(input): \(path)")
                XCTAssertEqual(
                    (e["attributes"] as? [[String: Any]])?.map { $0["attribute"] as? String }, [attribute.macName],
                    "\(input): \(path)")
                XCTAssertEqual(e["excluded"] as? Bool, false, "\(input): \(path)")
                XCTAssertEqual(e["backedUp"] as? Bool, true, "\(input): \(path)")
            }
            let findings = (try CLI.scanJSON([input]).json["findings"] as? [[String: Any]] ?? []).filter {
                $0["ruleId"] as? String == "scoped-exclusion-attribute"
            }
            XCTAssertEqual(
                findings.compactMap { $0["path"] as? String }.sorted(),
                ["Documents/b.bin", "Library/Application Support/a.bin"], input)
        }
    }
}

extension Result where Failure == MBFile.Refusal {
    var failureReason: String? { if case .failure(let r) = self { return r.reason } else { return nil } }
}

/// A binary plist whose one array refers to itself: the reference loop BoundedPlist refuses.
enum BoundedPlistBomb {
    static var bytes: [UInt8]? {
        func be64(_ v: UInt64) -> [UInt8] {
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
        }
        // Object 0 at offset 8: an array of one reference, to object 0. Offset table at 10.
        return Array("bplist00".utf8) + [0xA1, 0x00, 8] + [0, 0, 0, 0, 0, 0, 1, 1] + be64(1) + be64(0) + be64(10)
    }
}

extension RecordedAttributeTests {
    /// An absolute link into the old container's path is named as such: a note, not a verdict.
    func testAbsoluteLinkIntoTheOldContainerIsANoteNamingTheCase() throws {
        let dir = try TempDir("link")
        try Fixture.container(at: dir.path)
        try Fixture.mkdirs(dir.sub("Library/WebKit"))
        try FileManager.default.createSymbolicLink(
            atPath: dir.sub("Library/WebKit/store"),
            withDestinationPath: "/var/mobile/Containers/Data/Application/0A1B/Library/WebKit/x")
        try FileManager.default.createSymbolicLink(atPath: dir.sub("Documents/etc"), withDestinationPath: "/etc/hosts")
        let found = try audit(dir.path).findings.filter { $0.ruleId == "symlink-escapes-container" }
        XCTAssertEqual(found.map { $0.path?.display }, ["Documents/etc", "Library/WebKit/store"])
        XCTAssertEqual(found.map(\.severity), [.note, .note])
        XCTAssertEqual(found[0].message, "symlink to /etc/hosts points outside the container")
        XCTAssertTrue(
            found[1].message.hasPrefix(
                "absolute symlink to /var/mobile/Containers/Data/Application/0A1B/Library/WebKit/x, a container path "
                    + "of the device it was made on: backed up: whether iOS restores absolute links is open"
            ), found[1].message)
    }
}

extension RecordedAttributeTests {
    /// A row whose ExtendedAttributes cannot be read is still an entry, without attributes, and
    /// the scan names what it missed; a reference loop there neither hangs nor crashes.
    func testARowWithUnreadableAttributesIsKeptAndReported() throws {
        let dir = try TempDir("hostile-attributes")
        var b = try T.standard()
        for i in b.items.indices
        where b.items[i].domain == T.appDomain && b.items[i].relativePath == "Documents/notes.txt" {
            b.items[i].extendedAttributesBytes = try XCTUnwrap(BoundedPlistBomb.bytes)
        }
        try b.write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: T.app))
        let entry = try XCTUnwrap(result.inventory.entry(at: ContainerPath("Documents/notes.txt")))
        XCTAssertEqual(entry.entry.marks, [])
        XCTAssertEqual(entry.protectionClass, .completeUntilFirstUserAuthentication)
        XCTAssertFalse(result.complete)
        XCTAssertEqual(result.missed.map(\.path.display), ["Documents/notes.txt"])
        XCTAssertTrue(
            result.missed.first?.why.contains(
                "its ExtendedAttributes is not a property list of names and values: its attributes are not read")
                == true,
            "\(result.missed)")
    }
}
