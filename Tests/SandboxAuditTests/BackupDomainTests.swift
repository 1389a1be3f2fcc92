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

/// MobileBackup's path sets, per container role, and an app made of several containers:
/// real folders, real attributes, real archives, and the built binary.
final class BackupDomainTests: XCTestCase {
    static let exclude = "user.com.apple.metadata:com_apple_backup_excludeItem"

    func tar(_ folder: String, into archive: String, in dir: String) throws {
        try sh("bsdtar --xattrs -cf '\(archive)' '\(folder)'", in: dir)
    }

    /// The verdicts of every entry, by path.
    func verdicts(_ inv: Inventory) -> [String: [Bool?]] {
        Dictionary(
            uniqueKeysWithValues: inv.entries.map {
                ($0.path.display, [$0.backedUp, $0.survivesRestore, $0.survivesUpdate])
            })
    }

    func makeAppContainer(_ root: String) throws {
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 100)
        try Fixture.file(root + "/Library/Preferences/com.example.app.plist", size: 200)
        try Fixture.file(root + "/Library/SplashBoard/Snapshots/sceneID/main@3x.ktx", size: 300)
        try Fixture.file(root + "/Library/Saved Application State/com.example.app.savedState/data.data", size: 400)
        try Fixture.file(root + "/Library/SyncedPreferences/com.example.app.plist", size: 500)
        try Fixture.file(root + "/Library/Caches/feed.json", size: 600)
        try Fixture.file(root + "/Downloads/episode.mp3", size: 700)
        try Fixture.file(root + "/GeoJSON", size: 800)
        try Fixture.file(root + "/tmp/upload", size: 900)
    }

    func testAppContainerFollowsMobileBackupInFolderAndArchive() throws {
        let dir = try TempDir("paths")
        try makeAppContainer(dir.sub("App"))
        let folder = try Audit.inventory(of: dir.sub("App"))
        let v = verdicts(folder)
        // [backedUp, survivesRestore, survivesUpdate]
        XCTAssertEqual(v["Documents/notes.txt"], [true, true, true])
        XCTAssertEqual(v["Library/Preferences/com.example.app.plist"], [true, true, true])
        XCTAssertEqual(v["Library/SplashBoard/Snapshots/sceneID/main@3x.ktx"], [false, false, true])
        XCTAssertEqual(v["Library/Saved Application State/com.example.app.savedState/data.data"], [false, false, true])
        XCTAssertEqual(v["Library/SyncedPreferences/com.example.app.plist"], [false, false, true])
        XCTAssertEqual(v["Library/Caches/feed.json"], [false, false, true])
        XCTAssertEqual(v["Downloads/episode.mp3"], [false, false, false])
        XCTAssertEqual(v["Downloads"], [false, false, false])
        XCTAssertEqual(v["GeoJSON"], [true, true, false])
        XCTAssertEqual(v["tmp/upload"], [false, false, false])
        XCTAssertEqual(folder.entry(at: ContainerPath("Library/SplashBoard"))?.zone, .systemLibrary)
        XCTAssertEqual(folder.backupFootprint, 100 + 200 + 800)
        XCTAssertEqual(folder.keptOnRestore, 100 + 200 + 800)
        XCTAssertEqual(folder.keptOnUpdate, 100 + 200 + 300 + 400 + 500 + 600)

        try Tool.require("bsdtar", for: "the archive half of the test makes a tar with it")
        try tar("App", into: "app.tar", in: dir.path)
        let archived = try Audit.inventory(of: dir.sub("app.tar"))
        XCTAssertEqual(verdicts(archived), v, "the archive reading gives the same verdicts")
    }

    func testExclusionOnTheDataRootCoversEveryTopLevelItem() throws {
        let dir = try TempDir("rootmark")
        let root = dir.sub("App")
        try makeAppContainer(root)
        try XAttr.set(path: Array(root.utf8), name: Self.exclude, value: BackupAttribute.canonicalValue)
        let inv = try Audit.inventory(of: root)
        for e in inv.entries where !e.isSystem {
            XCTAssertEqual(e.excludedBy, .root, e.path.display)
            XCTAssertEqual(e.backedUp, false, e.path.display)
        }
        XCTAssertEqual(inv.backupFootprint, 0)
        try Tool.require("bsdtar", for: "the archive half of the test makes a tar with it")
        try tar("App", into: "app.tar", in: dir.path)
        let archived = try Audit.inventory(of: dir.sub("app.tar"))
        XCTAssertEqual(archived.backupFootprint, 0)
        XCTAssertTrue(archived.entries.filter { !$0.isSystem }.allSatisfy { $0.excludedBy == .root })
    }

    func makeGroupContainer(_ root: String, metadata: Bool = true) throws {
        try Fixture.file(root + "/ChatStorage.sqlite", size: 4096)
        try Fixture.file(root + "/tmp/outbox.json", size: 50)
        try Fixture.file(root + "/Library/Preferences/group.com.example.shared.plist", size: 60)
        try Fixture.file(root + "/Library/Caches/thumbs/a.jpg", size: 70)
        try Fixture.file(root + "/Library/SplashBoard/x", size: 80)
        if metadata {
            let meta = try PropertyListSerialization.data(
                fromPropertyList: ["MCMMetadataIdentifier": "group.com.example.shared", "MCMMetadataContentClass": 7],
                format: .binary, options: 0)
            try Fixture.bytes(root + "/" + Container.simulatorMetadata, Array(meta))
        }
    }

    func testGroupContainerIsBackedUpFromItsRoot() throws {
        let dir = try TempDir("group")
        let root = dir.sub("Group")
        try makeGroupContainer(root)
        let inv = try Audit.inventory(of: root)
        XCTAssertEqual(inv.container.role, .group)
        XCTAssertEqual(inv.container.roleSource, "metadata")
        XCTAssertEqual(inv.domain, "AppDomainGroup-group.com.example.shared")
        let v = verdicts(inv)
        XCTAssertEqual(v["ChatStorage.sqlite"], [true, true, true])
        XCTAssertEqual(v["tmp/outbox.json"], [true, true, true], "tmp is an ordinary folder in a group container")
        XCTAssertEqual(v["Library/Preferences/group.com.example.shared.plist"], [true, true, true])
        XCTAssertEqual(v["Library/Caches/thumbs/a.jpg"], [false, false, true])
        XCTAssertEqual(v["Library/SplashBoard/x"], [false, false, true])
        XCTAssertTrue(inv.entry(at: ContainerPath(Container.simulatorMetadata))?.isSystem == true)
        XCTAssertEqual(inv.backupFootprint, 4096 + 50 + 60)
        // The rules that make sense there: no misplaced-at-root for the shared store.
        let r = try audit(root)
        XCTAssertFalse(
            r.findings.contains { $0.ruleId == "misplaced-at-root" }, r.findings.map(\.message).joined(separator: "\n"))
        XCTAssertTrue(r.findings.allSatisfy { $0.domain == "AppDomainGroup-group.com.example.shared" })
    }

    func testGroupRoleFromOptionAndFromFolder() throws {
        let dir = try TempDir("grouprole")
        // Without metadata and without Documents, Library or tmp: refused unless --kind group.
        let bare = dir.sub("copy")
        try Fixture.file(bare + "/Shared.sqlite", size: 10)
        let refused = try CLI.run(["inventory", bare])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("--kind group"), refused.stderr)
        let lines = try CLI.run(["inventory", "--kind", "group", bare])
        XCTAssertEqual(lines.status, 0, lines.stderr)
        XCTAssertTrue(lines.stdout.contains("\"domain\":\"AppDomainGroup-unidentified\""), lines.stdout)
        XCTAssertTrue(lines.stdout.contains("\"backedUp\":true"), lines.stdout)
        // A copy with a Library but no Documents, tmp or metadata is read as an app's container,
        // with a note saying how to read it as a group's.
        let copy = dir.sub("groupcopy")
        try makeGroupContainer(copy, metadata: false)
        try FileManager.default.removeItem(atPath: copy + "/tmp")
        let (json, _) = try CLI.scanJSON([copy])
        XCTAssertTrue(
            (json["notes"] as? [String] ?? []).contains { $0.contains("--kind group") }, "\(json["notes"] ?? "")")
        XCTAssertEqual((try CLI.scanJSON(["--kind", "group", copy]).json["notes"] as? [String]), [])
        // The folder it sits in says group.
        let placed = dir.sub("Containers/Shared/AppGroup/0A1B")
        try makeGroupContainer(placed, metadata: false)
        let inv = try Audit.inventory(of: placed)
        XCTAssertEqual(inv.container.role, .group)
        XCTAssertEqual(inv.container.roleSource, "folder")
        // An archive of a group container, with --kind group.
        try Tool.require("bsdtar", for: "the archive half of the test makes a tar with it")
        try tar("copy", into: "group.tar", in: dir.path)
        let archived = try Audit.inventory(of: dir.sub("group.tar"), role: .group)
        XCTAssertEqual(archived.entries.map(\.path.display), ["Shared.sqlite"])
        XCTAssertEqual(archived.backupFootprint, 10)
    }

    /// A Simulator device: the app, one extension, its group, and another app's containers.
    func makeDevice(_ device: String) throws {
        let containers = device + "/data/Containers"
        func meta(_ root: String, _ id: String, _ cls: Int?) throws {
            var m: [String: Any] = ["MCMMetadataIdentifier": id]
            if let cls { m["MCMMetadataContentClass"] = cls }
            try Fixture.bytes(
                root + "/" + Container.simulatorMetadata,
                Array(try PropertyListSerialization.data(fromPropertyList: m, format: .binary, options: 0)))
        }
        let app = containers + "/Data/Application/1111"
        try makeAppContainer(app)
        try meta(app, "com.example.app", 2)
        let ext = containers + "/Data/PluginKitPlugin/2222"
        try Fixture.container(at: ext)
        try Fixture.file(ext + "/Library/Application Support/share.log", size: 1000)
        try meta(ext, "com.example.app.ShareExtension", nil)
        let group = containers + "/Shared/AppGroup/3333"
        try makeGroupContainer(group)
        let other = containers + "/Data/Application/4444"
        try Fixture.container(at: other)
        try Fixture.file(other + "/Documents/theirs.bin", size: 123_456)
        try meta(other, "org.other.app", 2)
        let otherGroup = containers + "/Shared/AppGroup/5555"
        try Fixture.file(otherGroup + "/x", size: 1)
        try meta(otherGroup, "group.com.example.widgets", 7)
    }

    func testDeviceFolderWithAppAndGroups() throws {
        let dir = try TempDir("device")
        let device = dir.sub("Devices/ABCD")
        try makeDevice(device)

        let inv = try CLI.run([
            "inventory", "--app", "com.example.app", "--app-group", "group.com.example.shared", device,
        ])
        XCTAssertEqual(inv.status, 0, inv.stderr)
        var domains: [String] = []
        for line in inv.stdout.split(separator: "\n") {
            let o = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let d = o["domain"] as! String
            if domains.last != d { domains.append(d) }
            XCTAssertFalse((o["path"] as! String).contains("theirs"), "another app's container is never read")
        }
        XCTAssertEqual(
            domains,
            [
                "AppDomain-com.example.app", "AppDomainPlugin-com.example.app.ShareExtension",
                "AppDomainGroup-group.com.example.shared",
            ])

        for path in [device, device + "/data", device + "/data/Containers"] {
            let (json, r) = try CLI.scanJSON([
                "--app", "com.example.app", "--app-group", "group.com.example.shared", path,
            ])
            // Downloads and GeoJSON at the app's root: misplaced-at-root, an error
            XCTAssertEqual(r.status, 1, r.stderr)
            let each = (json["domains"] as! [[String: Any]]).map {
                (($0["domain"] as! String), (($0["totals"] as! [String: Any])["backupFootprint"] as! Int))
            }
            XCTAssertEqual(each.map(\.0), domains)
            XCTAssertEqual(each.map(\.1), [1100, 1000, 4096 + 50 + 60])
            XCTAssertEqual((json["totals"] as! [String: Any])["backupFootprint"] as? Int, 1100 + 1000 + 4096 + 50 + 60)
            let findings = json["findings"] as! [[String: Any]]
            XCTAssertTrue(findings.allSatisfy { domains.contains($0["domain"] as! String) })
            XCTAssertTrue(
                findings.contains {
                    $0["domain"] as? String == domains[0] && $0["ruleId"] as? String == "misplaced-at-root"
                })
            XCTAssertFalse(
                findings.contains {
                    $0["domain"] as? String == domains[2] && $0["ruleId"] as? String == "misplaced-at-root"
                })
            // The other group sharing the app's prefix is named in a note.
            XCTAssertTrue(
                (json["notes"] as! [String]).contains { $0.contains("group.com.example.widgets") },
                "\(json["notes"] ?? "")")
        }

        // The policy's appGroups and budgets.domains.
        let policy = dir.sub("policy.yml")
        try Fixture.bytes(
            policy,
            Array(
                ("appGroups: [group.com.example.shared]\nbudgets:\n  domains:"
                    + "\n    AppDomainGroup-group.com.example.shared: 1kB\n").utf8))
        let (json, r) = try CLI.scanJSON(["--app", "com.example.app", "--config", policy, device])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual((json["domains"] as! [[String: Any]]).count, 3)
        let budget = (json["budgets"] as! [[String: Any]]).first { $0["scope"] as? String == "domain" }
        XCTAssertEqual(budget?["measured"] as? Int, 4096 + 50 + 60)
        XCTAssertEqual(budget?["exceeded"] as? Bool, true)

        // Text names each domain and each finding's domain.
        let text = try CLI.run(["scan", "--app", "com.example.app", "--app-group", "group.com.example.shared", device])
        XCTAssertTrue(text.stdout.contains("AppDomainGroup-group.com.example.shared  group container"), text.stdout)
        XCTAssertTrue(text.stdout.contains("misplaced-at-root  AppDomain-com.example.app: Downloads"), text.stdout)

        // Unknown app: exit 2, the count and the command that lists the apps (which does);
        // unknown group: exit 2, listing the groups there.
        let noApp = try CLI.run(["scan", "--app", "com.example.nope", device])
        XCTAssertEqual(noApp.status, 2)
        XCTAssertTrue(
            noApp.stderr.contains("it holds 2 app data containers; `sandbox-audit apps \(device)` lists them"),
            noApp.stderr)
        let apps = try CLI.run(["apps", device])
        XCTAssertEqual(apps.status, 0, apps.stderr)
        XCTAssertTrue(
            apps.stdout.contains("\ncom.example.app  ") && apps.stdout.contains("\norg.other.app  "), apps.stdout)
        let noGroup = try CLI.run(["scan", "--app", "com.example.app", "--app-group", "group.nope", device])
        XCTAssertEqual(noGroup.status, 2)
        XCTAssertTrue(noGroup.stderr.contains("group.com.example.shared"), noGroup.stderr)
        let noOption = try CLI.run(["scan", device])
        XCTAssertEqual(noOption.status, 2)
        XCTAssertTrue(noOption.stderr.contains("--app"), noOption.stderr)
    }

    func testSimulateRestoreIntoWritesEachDomain() throws {
        let dir = try TempDir("simdomains")
        let device = dir.sub("Devices/ABCD")
        try makeDevice(device)
        let out = dir.sub("restored")
        let r = try CLI.run([
            "simulate", "restore", "--app", "com.example.app", "--app-group", "group.com.example.shared", device,
            "--into", out, "--verify",
        ])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let app = try Audit.inventory(of: out + "/AppDomain-com.example.app")
        let paths = Set(app.entries.map(\.path.display))
        XCTAssertTrue(paths.contains("Documents/notes.txt"))
        XCTAssertTrue(paths.contains("GeoJSON"))
        XCTAssertFalse(
            paths.contains("Library/SplashBoard/Snapshots/sceneID/main@3x.ktx"),
            "restore leaves out what it does not restore")
        XCTAssertFalse(paths.contains("Downloads"))
        let group = try Audit.inventory(of: out + "/AppDomainGroup-group.com.example.shared", role: .group)
        let gpaths = Set(group.entries.map(\.path.display))
        XCTAssertTrue(gpaths.contains("ChatStorage.sqlite") && gpaths.contains("tmp/outbox.json"))
        XCTAssertFalse(gpaths.contains("Library/Caches/thumbs/a.jpg"))
        XCTAssertTrue(
            FileManager.default.fileExists(
                atPath: out + "/AppDomainPlugin-com.example.app.ShareExtension/Library/Application Support/share.log"))
    }

    /// A domain that fails after others were written: the domains already at DIR are removed
    /// through descriptors (read-only folders made writable first, as a user other than root
    /// must), and so is the DIR this run made. Nothing is left.
    func testSimulateIntoRemovesTheWrittenDomainsWhenALaterOneFails() throws {
        let asNobody = geteuid() == 0
        if asNobody { try Tool.require("setpriv", for: "runs the tool as a user other than root") }
        let dir = try TempDir("simfail")
        chmod(dir.path, 0o777)
        let device = dir.sub("Devices/ABCD")
        try makeDevice(device)
        let app = device + "/data/Containers/Data/Application/1111"
        for f in 0..<3 { try Fixture.file(app + "/Documents/ro/sub/f\(f)", size: 10) }
        chmod(app + "/Documents/ro/sub", 0o555)
        chmod(app + "/Documents/ro", 0o555)
        let unreadable = device + "/data/Containers/Shared/AppGroup/3333/zz-unreadable.bin"
        try Fixture.file(unreadable, size: 10)
        chmod(unreadable, 0)
        let out = dir.sub("out")
        let r = try CLI.run(
            [
                "simulate", "update", "--app", "com.example.app", "--app-group", "group.com.example.shared",
                device, "--into", out,
            ], asNobody: asNobody)
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        // The group is written last: the app's and the extension's domains were at DIR before it failed.
        XCTAssertTrue(
            r.stderr.contains("nothing written to \(out)/AppDomainGroup-group.com.example.shared")
                && r.stderr.contains("zz-unreadable.bin"), r.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.path), ["Devices"],
            "no DIR, no domain, no temporary tree")
    }

    func testExcludedByHasAnExactForm() throws {
        let dir = try TempDir("exact")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try NonUTF8Names.require(in: root, for: "a folder named with a Latin-1 byte has its exact excludedBy form")
        // A folder named with a Latin-1 byte, and one with a literal backslash.
        for name in [Array("Documents/caf".utf8) + [0xE9], Array("Documents/a\\x41".utf8)] {
            let folder = Array(root.utf8) + [UInt8(ascii: "/")] + name
            let made = (folder + [0]).withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { mkdir($0, 0o755) }
            }
            XCTAssertEqual(made, 0)
            try XAttr.set(path: folder, name: Self.exclude, value: BackupAttribute.canonicalValue)
        }
        let (entries, _, _) = try CLI.inventory(root)
        let latin = entries["Documents/caf\\xE9"]
        XCTAssertEqual(
            latin?["excludedByBase64"] as? String, Data(Array("Documents/caf".utf8) + [0xE9]).base64EncodedString())
        let backslash = entries["Documents/a\\x41"]
        XCTAssertEqual(backslash?["pathBase64"] as? String, Data("Documents/a\\x41".utf8).base64EncodedString())
        XCTAssertEqual(backslash?["excludedByBase64"] as? String, Data("Documents/a\\x41".utf8).base64EncodedString())
        XCTAssertNil(entries["Documents"]?["excludedByBase64"])
    }
}
