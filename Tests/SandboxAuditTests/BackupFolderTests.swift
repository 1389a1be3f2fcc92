import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// A backup folder as input, read through the library: real Manifest.db files, real MBFile
/// blobs and real `XX/FILEID` files written by `BackupBuilder`.
final class BackupFolderTests: XCTestCase {
    static let app = "com.example.app"
    static let group = "group.com.example.shared"
    static let appDomain = "AppDomain-com.example.app"
    static let pluginDomain = "AppDomainPlugin-com.example.app.widget"
    static let groupDomain = "AppDomainGroup-group.com.example.shared"

    /// A preferences plist of 600,000 bytes and more: one large value, one small.
    static func largePreferences() throws -> [UInt8] {
        let object: [String: Any] = ["avatarImage": Data(repeating: 0xAB, count: 600_000), "launchCount": 3]
        return [UInt8](try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0))
    }

    /// An app with a widget and two App Groups, another app, and a system domain.
    static func standard() throws -> BackupBuilder {
        var b = BackupBuilder()
        b.installedApplications = [app, "com.other.tool"]
        b.file(appDomain, "Documents/notes.txt", Array("hello".utf8))
        b.file(appDomain, "Library/Application Support/catalogue.bin", size: 5000)
        b.symlink(appDomain, "Documents/latest", to: "notes.txt")
        b.file(appDomain, "Library/Preferences/com.example.app.plist", try largePreferences())
        b.file(pluginDomain, "Library/Preferences/com.example.app.widget.plist", size: 100)
        b.file(groupDomain, "shared.sqlite", size: 3000)
        b.file("AppDomainGroup-group.com.example.other", "cache.bin", size: 10)
        b.file("AppDomain-com.other.tool", "Documents/a.txt", size: 10)
        b.file("HomeDomain", "Library/Preferences/com.apple.springboard.plist", size: 40)
        return b
    }

    func testMBFileBlobDecodesEveryKeyTheBuilderWrote() throws {
        var item = BackupBuilder.Item(
            domain: Self.appDomain, relativePath: "Documents/a link", flags: 4, size: 9, mode: 0o120755,
            modified: 1_712_345_678, inode: 4242, target: "notes.txt")
        item.protectionClass = 2
        let blob = try BackupBuilder.mbFile(item, encryptionKey: [3, 0, 0, 0] + Array(repeating: 0xEE, count: 40))
        let decoded = try MBFile.decode([UInt8](blob)).get()
        XCTAssertEqual(decoded.size, 9)
        XCTAssertEqual(decoded.mode, 0o120755)
        XCTAssertEqual(decoded.lastModified, 1_712_345_678)
        XCTAssertEqual(decoded.birth, 1_712_345_678 - 86_400)
        XCTAssertEqual(decoded.inode, 4242)
        XCTAssertEqual(decoded.userID, 501)
        XCTAssertEqual(decoded.protectionClass, 2)
        XCTAssertEqual(decoded.relativePath, "Documents/a link")
        XCTAssertEqual(decoded.target, Array("notes.txt".utf8))
        XCTAssertEqual(decoded.encryptionKey, [3, 0, 0, 0] + Array(repeating: 0xEE, count: 40))
        // The blob as Python's plistlib (what mvt and iOSbackup read blobs with) sees it.
        let dir = try TempDir("mbfile")
        try blob.write(to: URL(fileURLWithPath: dir.sub("blob")))
        let seen = try python(
            """
            import plistlib, sys
            a = plistlib.load(open(sys.argv[1], "rb"))
            o = a["$objects"]
            root = o[a["$top"]["root"].data]
            cls = o[root["$class"].data]
            key = o[root["EncryptionKey"].data]
            print(a["$archiver"], a["$version"], o[0], cls["$classname"], ",".join(cls["$classes"]), \
            o[root["RelativePath"].data],
                  o[root["Target"].data], root["Size"], root["InodeNumber"], len(key["NS.data"]))
            """, [dir.sub("blob")])
        XCTAssertEqual(
            seen, "NSKeyedArchiver 100000 $null MBFile MBFile,NSObject Documents/a link notes.txt 9 4242 44\n")
        // Not a plist, a plist that is no archive, and one over the size cap: refused, never a crash.
        XCTAssertThrowsError(try MBFile.decode(Array("not a plist".utf8)).get())
        let plain = try PropertyListSerialization.data(fromPropertyList: ["Size": 3], format: .binary, options: 0)
        XCTAssertThrowsError(try MBFile.decode([UInt8](plain)).get())
        XCTAssertThrowsError(try MBFile.decode([UInt8](repeating: 0, count: MBFile.maximumBlobSize + 1)).get())
    }

    func testTheAppsDomainsAreItsContainersAndEveryEntryIsBackedUp() throws {
        let dir = try TempDir("backup")
        try Self.standard().write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app, appGroups: [Self.group]))
        XCTAssertEqual(result.inventories.map(\.domain), [Self.appDomain, Self.pluginDomain, Self.groupDomain])
        XCTAssertEqual(result.inventories.map(\.container.role), [.app, .extension, .group])
        XCTAssertEqual(result.inventory.container.kind, .backup)
        XCTAssertEqual(
            result.inventory.container.kindDescription, "backup of Test iPhone, iOS 17.5.1, 2024-11-07T17:20:00Z")
        let paths = result.inventory.entries.map(\.path.display)
        XCTAssertEqual(
            paths,
            [
                "Documents", "Documents/latest", "Documents/notes.txt", "Library", "Library/Application Support",
                "Library/Application Support/catalogue.bin", "Library/Preferences",
                "Library/Preferences/com.example.app.plist",
            ])
        XCTAssertTrue(result.inventories.allSatisfy { $0.entries.allSatisfy { $0.backedUp == true } })
        let link = try XCTUnwrap(result.inventory.entry(at: ContainerPath("Documents/latest")))
        XCTAssertEqual(link.entry.kind, .symlink)
        XCTAssertEqual(link.entry.symlinkTarget, Array("notes.txt".utf8))
        XCTAssertEqual(
            result.inventory.entry(at: ContainerPath("Documents/notes.txt"))?.entry.modifiedSeconds, 1_700_000_000)
        // 5 + 5000 + the plist (the link adds 0, as a real backup records it); the group's
        // 3000 and the widget's 100.
        let plist = Int64(try Self.largePreferences().count)
        XCTAssertEqual(result.inventory.backupFootprint, 5 + 5000 + plist)
        XCTAssertEqual(result.backupFootprint, 5 + 5000 + plist + 100 + 3000)
        XCTAssertTrue(result.complete, "\(result.missed)")
        // The other group sharing the app's prefix is named in a note, as a guess.
        XCTAssertEqual(
            result.notes,
            [
                "App Group domains in the backup not audited (add --app-group ID or appGroups: in the policy file if "
                    + "the app uses them): AppDomainGroup-group.com.example.other"
                    + " (guessed: only the prefix group.com.example matches; which groups an app uses is in its "
                    + "entitlements)"
            ])
    }

    func testAContentRuleReadsTheBytesFromTheBackupFolder() throws {
        let dir = try TempDir("backup")
        try Self.standard().write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        let f = try XCTUnwrap(result.findings.first { $0.ruleId == "large-user-defaults" })
        XCTAssertEqual(f.path?.display, "Library/Preferences/com.example.app.plist")
        // The key names come from parsing the bytes at XX/FILEID.
        XCTAssertTrue(f.message.contains("\"avatarImage\""), f.message)
        XCTAssertTrue(result.complete)
    }

    func testMissingFileBytesAreANoteAndAnIncompleteScan() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(
            Self.appDomain, "Library/Preferences/com.example.app.plist", try Self.largePreferences(), storeBytes: false)
        try b.write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        let id = BackupBuilder.fileID(Self.appDomain, "Library/Preferences/com.example.app.plist")
        XCTAssertFalse(result.complete)
        XCTAssertEqual(result.missed.map(\.path.display), ["Library/Preferences/com.example.app.plist"])
        XCTAssertTrue(result.missed[0].why.contains("\(id.prefix(2))/\(id) is missing"), result.missed[0].why)
        XCTAssertEqual(
            result.notes,
            [
                "the backup holds no bytes for 1 file of AppDomain-com.example.app (listed in Manifest.db, missing "
                    + "from the backup folder): the rules that read them did not check them (see unreadable-entry)"
            ])
        // The size still comes from the MBFile: the finding is there, without key names.
        XCTAssertTrue(result.findings.contains { $0.ruleId == "large-user-defaults" })
    }

    func testAnEncryptedBackupNeedsItsPasswordAndIsReadInMemoryWithIt() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Library/Preferences/com.example.app.plist", try Self.largePreferences())
        b.file(Self.appDomain, "Documents/a.txt", size: 33)
        try b.write(to: dir.sub("B"), encryption: TestBackupEncryptor(password: "correct horse").builderEncryption)
        XCTAssertThrowsError(try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))) { error in
            XCTAssertEqual(
                "\(error)",
                "\(dir.sub("B")) is an encrypted backup: give its password with --password-file FILE or in the "
                    + "environment variable SANDBOX_AUDIT_BACKUP_PASSWORD"
            )
        }
        let before = try FolderSnapshot(dir.sub("B"))
        XCTAssertThrowsError(
            try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app, password: "correct hors"))
        ) { error in
            XCTAssertEqual("\(error)", "\(dir.sub("B")): wrong password for the encrypted backup")
        }
        let result = try Audit.run(
            dir.sub("B"), selection: ContainerSelection(app: Self.app, password: "correct horse"))
        XCTAssertEqual(result.inventory.entries.first { $0.path.display == "Documents/a.txt" }?.entry.size, 33)
        XCTAssertTrue(result.inventory.container.kindDescription.hasSuffix(", encrypted"))
        let f = try XCTUnwrap(result.findings.first { $0.ruleId == "large-user-defaults" })
        XCTAssertTrue(f.message.contains("\"avatarImage\""), f.message)
        XCTAssertTrue(result.complete, "\(result.missed)")
        XCTAssertEqual(try FolderSnapshot(dir.sub("B")), before)
    }

    func testHostileManifestsAreOneLineErrors() throws {
        let dir = try TempDir("backup")
        try Self.standard().write(to: dir.sub("B"))
        func refused(_ contains: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(
                try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app)), file: file, line: line
            ) { error in
                XCTAssertTrue(error is InputError, "\(error)", file: file, line: line)
                XCTAssertTrue("\(error)".contains(contains), "\(error)", file: file, line: line)
                XCTAssertFalse("\(error)".contains("\n"), file: file, line: line)
            }
        }
        let db = dir.sub("B/Manifest.db")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: db)))
        // Pages overwritten past the header: SQLite sees a malformed database.
        for i in 100..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: db))
        refused("Manifest.db")
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: db))
        refused("is not a SQLite database")
        try? FileManager.default.removeItem(atPath: db)
        var other = BackupBuilder()
        other.file(Self.appDomain, "Documents/a", size: 1)
        try other.write(to: dir.sub("C"))
        try python(
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('DROP TABLE Files'); c.commit()",
            [dir.sub("C/Manifest.db")])
        XCTAssertThrowsError(try Audit.run(dir.sub("C"), selection: ContainerSelection(app: Self.app))) { error in
            XCTAssertTrue("\(error)".hasSuffix("Manifest.db: it has no Files table"), "\(error)")
        }
    }

    func testADatabaseLastWrittenInWALModeIsReadWithoutAFileBesideIt() throws {
        let dir = try TempDir("backup")
        try Self.standard().write(to: dir.sub("B"))
        try python(
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(c.execute('PRAGMA "
                + "journal_mode=WAL').fetchone()[0]); c.close()",
            [dir.sub("B/Manifest.db")])
        let header = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir.sub("B/Manifest.db"))).prefix(20))
        XCTAssertEqual(header[18], 2)
        let before = try FolderSnapshot(dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        XCTAssertEqual(result.inventory.entries.count, 8)
        XCTAssertEqual(try FolderSnapshot(dir.sub("B")), before)
    }

    func testHostileRowsAreReportedAndNeverReadOutsideTheFolder() throws {
        let dir = try TempDir("backup")
        try Data("secret".utf8).write(to: URL(fileURLWithPath: dir.sub("outside.plist")))
        var b = BackupBuilder()
        b.file(Self.appDomain, "Documents/ok.txt", size: 3)
        var notPlist = BackupBuilder.Item(
            domain: Self.appDomain, relativePath: "Documents/garbled", flags: 1, mode: 0o100644)
        notPlist.blob = Array("this is not a property list".utf8)
        var upward = BackupBuilder.Item(
            domain: Self.appDomain, relativePath: "../../outside.plist", flags: 1, bytes: [1], mode: 0o100644)
        upward.fileID = String(repeating: "a", count: 40)
        let absolute = BackupBuilder.Item(
            domain: Self.appDomain, relativePath: "/etc/passwd", flags: 1, bytes: [1], mode: 0o100644)
        // A fileID that names a path: never opened.
        var named = BackupBuilder.Item(
            domain: Self.appDomain, relativePath: "Library/Preferences/com.example.app.plist", flags: 1,
            size: 700_000, mode: 0o100644, storeBytes: false)
        named.fileID = "../outside.plist"
        b.items += [notPlist, upward, absolute, named]
        try b.write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        let problems = result.inventory.problems.map { "\($0.path.display): \($0.reason)" }
        XCTAssertEqual(problems.count, 4, "\(problems)")
        XCTAssertTrue(
            problems.contains("../../outside.plist: its relativePath leads out of the domain with ..: not read"),
            "\(problems)")
        XCTAssertTrue(problems.contains("/etc/passwd: its relativePath is absolute: not read"), "\(problems)")
        XCTAssertTrue(
            problems.contains { $0.hasPrefix("Documents/garbled: its MBFile blob is not a property list") },
            "\(problems)")
        XCTAssertTrue(
            problems.contains(
                "Library/Preferences/com.example.app.plist: its fileID is not 40 hexadecimal digits: its bytes are "
                    + "not looked for"
            ), "\(problems)")
        XCTAssertFalse(result.complete)
        // The named file is listed from its MBFile; its content read fails inside the backup.
        let f = try XCTUnwrap(result.findings.first { $0.ruleId == "large-user-defaults" })
        XCTAssertFalse(f.message.contains("secret"))
        XCTAssertEqual(
            result.inventory.entries.map(\.path.display),
            ["Documents", "Documents/ok.txt", "Library/Preferences/com.example.app.plist"])
    }

    func testAnXXFolderThatIsASymlinkIsNotFollowed() throws {
        let dir = try TempDir("backup")
        var b = BackupBuilder()
        b.file(Self.appDomain, "Library/Preferences/com.example.app.plist", try Self.largePreferences())
        try b.write(to: dir.sub("B"))
        let id = BackupBuilder.fileID(Self.appDomain, "Library/Preferences/com.example.app.plist")
        let xx = dir.sub("B/" + id.prefix(2))
        try FileManager.default.moveItem(atPath: xx, toPath: dir.sub("elsewhere"))
        try FileManager.default.createSymbolicLink(atPath: xx, withDestinationPath: dir.sub("elsewhere"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: Self.app))
        XCTAssertFalse(result.complete)
        let f = try XCTUnwrap(result.findings.first { $0.ruleId == "large-user-defaults" })
        XCTAssertFalse(f.message.contains("avatarImage"), f.message)
    }
}

/// Every path below a folder with its type, size, mode, mtime and bytes: equal before and after
/// a read-only scan.
struct FolderSnapshot: Equatable {
    let entries: [String]

    init(_ root: String) throws {
        var out: [String] = []
        let names = (FileManager.default.subpaths(atPath: root) ?? []).sorted()
        for name in [""] + names {
            let path = name.isEmpty ? root : root + "/" + name
            let a = try FileManager.default.attributesOfItem(atPath: path)
            let bytes =
                (a[.type] as? FileAttributeType) == .typeRegular
                ? (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() : Data()
            let mtime = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            out.append(
                "\(name) \(a[.type] ?? "") \(a[.size] ?? "") \(a[.posixPermissions] ?? "") \(mtime) \(bytes.hashValue)")
        }
        entries = out
    }
}
