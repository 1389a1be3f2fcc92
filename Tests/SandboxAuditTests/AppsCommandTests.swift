import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditSystem

/// Issue 37 item 5: `sandbox-audit apps BACKUP | DEVICE_FOLDER | --simulator DEVICE` lists the
/// apps with their extensions and App Groups (text and JSON), run as the built executable on a
/// real backup folder (BackupBuilder) and a real device set; the errors about a missing or
/// unknown --app point to it instead of listing every app.
final class AppsCommandTests: XCTestCase {
    typealias B = BackupFolderTests
    typealias S = SimulatorDeviceTests

    func json(_ r: CLI.Result) throws -> [String: Any] {
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any], r.stdout)
    }

    func ids(_ list: Any?, _ key: String = "identifier") -> [String] {
        (list as? [[String: Any]] ?? []).compactMap { $0[key] as? String }
    }

    func testABackupsAppsWithTheirExtensionsGroupsAndRows() throws {
        let dir = try TempDir("apps")
        var builder = try B.standard()
        builder.installedApplications = (builder.installedApplications ?? []) + ["com.example.nodata"]
        // A group named after the app, and an extension of no listed app.
        builder.file("AppDomainGroup-group.com.example.app", "a.bin", size: 10)
        builder.file("AppDomainPlugin-org.gone.keyboard", "b.bin", size: 10)
        try builder.write(to: dir.sub("B"))
        let before = try FolderSnapshot(dir.sub("B"))

        let j = try json(try CLI.run(["apps", dir.sub("B"), "--format", "json"]))
        XCTAssertEqual(j["schemaVersion"] as? Int, 1)
        XCTAssertEqual(j["kind"] as? String, "backup")
        XCTAssertTrue(
            (j["source"] as? String ?? "").hasPrefix("backup of Test iPhone, iOS 17.5.1"), "\(j["source"] ?? "")")
        let apps = try XCTUnwrap(j["apps"] as? [[String: Any]])
        XCTAssertEqual(ids(apps, "bundleIdentifier"), ["com.example.app", "com.example.nodata", "com.other.tool"])
        let app = apps[0]
        XCTAssertEqual(app["domain"] as? String, B.appDomain)
        // Rows of Manifest.db for the domain: the builder's items of it (folders included).
        let rows = builder.items.filter { $0.domain == B.appDomain }.count
        XCTAssertEqual(app["items"] as? Int, rows)
        // Which app fills the backup: its files' bytes, as their MBFile records give them.
        let bytes = builder.items.filter { $0.domain == B.appDomain && $0.flags == 1 }.reduce(Int64(0)) {
            $0 + ($1.size ?? Int64($1.bytes.count))
        }
        XCTAssertEqual(app["backedUpBytes"] as? Int, Int(bytes))
        XCTAssertEqual(app["filesOfUnknownSize"] as? Int, 0)
        XCTAssertTrue(apps[1]["backedUpBytes"] is NSNull, "no domain: nothing backed up")
        XCTAssertEqual(ids(app["extensions"]), ["com.example.app.widget"])
        XCTAssertEqual((app["extensions"] as? [[String: Any]])?.first?["domain"] as? String, B.pluginDomain)
        XCTAssertEqual(ids(app["appGroups"]), ["group.com.example.app"])
        XCTAssertTrue(apps[1]["domain"] is NSNull, "listed by Info.plist only")
        XCTAssertEqual(
            ids(j["appGroups"]), ["group.com.example.app", "group.com.example.other", "group.com.example.shared"])
        XCTAssertEqual(ids(j["unattributedExtensions"]), ["org.gone.keyboard"])

        let text = try CLI.run(["apps", dir.sub("B")])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.hasPrefix("3 apps in the backup of Test iPhone"), text.stdout)
        XCTAssertTrue(
            text.stdout.contains(
                "\ncom.example.app  AppDomain-com.example.app, "
                    + "\(rows) items, \(ByteSize.format(bytes)) backed up\n"
                    + "  extension  com.example.app.widget  AppDomainPlugin-com.example.app.widget, "
            ), text.stdout)
        XCTAssertTrue(
            text.stdout.contains("\n  app group  group.com.example.app  AppDomainGroup-group.com.example.app, "),
            text.stdout)
        XCTAssertTrue(
            text.stdout.contains("com.example.nodata  no domain (listed in the backup's Info.plist only"), text.stdout)
        XCTAssertTrue(text.stdout.contains("extensions of no listed app:\n  org.gone.keyboard"), text.stdout)
        XCTAssertTrue(
            text.stdout.hasSuffix("audit one: sandbox-audit scan BACKUP --app BUNDLE_ID [--app-group GROUP_ID]\n"),
            text.stdout)
        XCTAssertEqual(try FolderSnapshot(dir.sub("B")), before, "nothing written into the backup folder")

        // The error for a missing --app is one short line pointing here.
        let missing = try CLI.run(["scan", dir.sub("B")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(
            missing.stderr,
            "sandbox-audit: error: \(dir.sub("B")) is a backup folder: name the app with --app BUNDLE_ID; it holds 3 "
                + "apps; `sandbox-audit apps \(dir.sub("B"))` lists them\n"
        )
    }

    /// A backup holding hundreds of apps: the error stays one short line (it listed them all).
    func testTheErrorForAMissingAppStaysShortOnABackupOfManyApps() throws {
        let dir = try TempDir("apps")
        var builder = BackupBuilder()
        for i in 0..<300 {
            builder.file("AppDomain-com.vendor\(i).application-with-a-long-name", "Documents/a", size: 1)
        }
        try builder.write(to: dir.sub("B"))
        let r = try CLI.run(["scan", dir.sub("B"), "--app", "com.example.app"])
        XCTAssertEqual(r.status, 2)
        XCTAssertLessThan(r.stderr.count, 200 + dir.sub("B").count * 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("it holds 300 apps; `sandbox-audit apps "), r.stderr)
        let listed = try json(try CLI.run(["apps", dir.sub("B"), "--format", "json"]))
        XCTAssertEqual((listed["apps"] as? [Any])?.count, 300)
    }

    func testADeviceSetsAppsByFolderAndBySimulator() throws {
        let dir = try TempDir("apps")
        let home = try S.home(dir)
        let device = home + "/Library/Developer/CoreSimulator/Devices/" + S.booted
        // An extension of the other app, and one whose app is not installed.
        let containers = device + "/data/Containers"
        for (uuid, id) in [("6666", "org.other.app.widget"), ("7777", "org.gone.app.widget")] {
            try Fixture.container(at: containers + "/Data/PluginKitPlugin/" + uuid)
            try S.plist(
                containers + "/Data/PluginKitPlugin/\(uuid)/" + Container.simulatorMetadata,
                ["MCMMetadataIdentifier": id])
        }
        for (args, env, kind) in [
            ([device], [String: String](), "DEVICE_FOLDER"),
            (["--simulator", "booted"], ["HOME": home], "--simulator DEVICE"),
        ] {
            let j = try json(try CLI.run(["apps", "--format", "json"] + args, environment: env))
            XCTAssertEqual(j["kind"] as? String, "simulator")
            let apps = try XCTUnwrap(j["apps"] as? [[String: Any]])
            XCTAssertEqual(ids(apps, "bundleIdentifier"), [S.app, "org.other.app"], "\(args)")
            XCTAssertEqual(apps[0]["path"] as? String, containers + "/Data/Application/1111")
            XCTAssertEqual(apps[0]["domain"] as? String, "AppDomain-" + S.app)
            XCTAssertTrue(apps[0]["items"] is NSNull)
            XCTAssertEqual(ids(apps[0]["extensions"]), [S.app + ".ShareExtension"])
            XCTAssertEqual(
                (apps[0]["extensions"] as? [[String: Any]])?.first?["path"] as? String,
                containers + "/Data/PluginKitPlugin/2222")
            XCTAssertEqual(ids(apps[1]["extensions"]), ["org.other.app.widget"])
            XCTAssertEqual(ids(j["appGroups"]), [S.group, "group.com.example.widgets"])
            XCTAssertEqual(ids(j["unattributedExtensions"]), ["org.gone.app.widget"])

            let text = try CLI.run(["apps"] + args, environment: env)
            XCTAssertEqual(text.status, 0, text.stderr)
            XCTAssertTrue(
                text.stdout.contains(
                    "\n\(S.app)  \(containers)/Data/Application/"
                        + "1111\n  extension  \(S.app).ShareExtension  \(containers)/Data/PluginKitPlugin/2222\n"
                ), text.stdout)
            XCTAssertTrue(
                text.stdout.hasSuffix("audit one: sandbox-audit scan \(kind) --app BUNDLE_ID [--app-group GROUP_ID]\n"),
                text.stdout)
        }
        let simulator = try json(
            try CLI.run(["apps", "--simulator", "booted", "--format", "json"], environment: ["HOME": home]))
        XCTAssertTrue(
            (simulator["source"] as? String ?? "").contains("iPhone 17 (\(S.booted)), iOS 26.1, Booted"),
            "\(simulator["source"] ?? "")")

        // A device folder without --app points here.
        let r = try CLI.run(["scan", device])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(
            r.stderr,
            "sandbox-audit: error: \(device) is a Simulator device folder: name the app with --app BUNDLE_ID "
                + "(`sandbox-audit apps \(device)` lists its apps)\n"
        )
    }

    func testUsageAndInputErrorsAreOneLine() throws {
        let dir = try TempDir("apps")
        try Fixture.container(at: dir.sub("Lone"))
        for (args, status, needle) in [
            (["apps"], Int32(2), "missing PATH (a backup folder or a Simulator device folder) or --simulator DEVICE"),
            (["apps", dir.sub("Lone"), "--simulator", "booted"], 2, "give PATH or --simulator DEVICE, not both"),
            (
                ["apps", dir.sub("Lone")], 2,
                "\(dir.sub("Lone")) is not a backup folder (no Manifest.db), a Simulator device folder"
            ),
            (["apps", dir.sub("nothing")], 2, "is not a backup folder (no Manifest.db), a Simulator device folder"),
            (["apps", "--simulator", "booted", "--device-set", dir.sub("Lone")], 2, "booted"),
        ] {
            let r = try CLI.run(args, environment: ["HOME": dir.path])
            XCTAssertEqual(r.status, status, "\(args): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains(needle), "\(args): \(r.stderr)")
            XCTAssertEqual(
                r.stderr.filter { $0 == "\n" }.count,
                r.stderr.hasPrefix("Error:") ? r.stderr.filter { $0 == "\n" }.count : 1,
                "\(args): one line: \(r.stderr)")
        }
        // An encrypted backup needs its password, as for scan.
        var b = BackupBuilder()
        b.file(B.appDomain, "Documents/a.txt", size: 10)
        try b.write(to: dir.sub("E"), encryption: TestBackupEncryptor(password: "pw").builderEncryption)
        let locked = try CLI.run(["apps", dir.sub("E")])
        XCTAssertEqual(locked.status, 2)
        XCTAssertTrue(locked.stderr.contains("is an encrypted backup: give its password"), locked.stderr)
        let open = try CLI.run(
            ["apps", dir.sub("E"), "--format", "json"], environment: ["SANDBOX_AUDIT_BACKUP_PASSWORD": "pw"])
        XCTAssertEqual(ids(try json(open)["apps"], "bundleIdentifier"), [B.app])
    }
}
