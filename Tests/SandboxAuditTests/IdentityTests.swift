import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Identity is checked, never assumed (issue 34, item 3; issue 35, items 7 and 9): an extension
/// belongs to the installed app with the longest bundle identifier it extends, on a device
/// folder, a Simulator device and in a backup; `--app-info` must be the audited app's; a
/// group named by a guess says so; two data containers naming the app are refused; what
/// cannot be read of a device set is named; input strings reach the terminal escaped.
final class IdentityTests: XCTestCase {
    typealias S = SimulatorDeviceTests

    func domains(_ json: [String: Any]) -> [String] {
        (json["domains"] as? [[String: Any]] ?? []).map { $0["domain"] as! String }
    }
    func notes(_ json: [String: Any]) -> [String] { json["notes"] as? [String] ?? [] }
    func footprint(_ json: [String: Any]) -> Int? { (json["totals"] as? [String: Any])?["backupFootprint"] as? Int }

    /// `com.example.app` and `com.example.app.pro` side by side, the pro app's widget holding 5 MB.
    func flavourDevice(_ dir: TempDir) throws -> String {
        let set = dir.sub("set")
        let device = try S.device(set, S.booted, name: "iPhone 17", state: 3)
        let containers = device + "/data/Containers"
        try Fixture.container(at: containers + "/Data/Application/6666")
        try S.plist(
            containers + "/Data/Application/6666/" + Container.simulatorMetadata,
            ["MCMMetadataIdentifier": "com.example.app.pro", "MCMMetadataContentClass": 2])
        try Fixture.container(at: containers + "/Data/PluginKitPlugin/7777")
        try S.plist(
            containers + "/Data/PluginKitPlugin/7777/" + Container.simulatorMetadata,
            ["MCMMetadataIdentifier": "com.example.app.pro.widget"])
        try Fixture.file(
            containers + "/Data/PluginKitPlugin/7777/Library/Application Support/widget.bin", size: 5_000_000)
        return set
    }

    func testAnotherFlavoursExtensionIsNotTheAppsOnADevice() throws {
        let dir = try TempDir("flavour")
        let set = try flavourDevice(dir)
        for input in [["--simulator", "booted", "--device-set", set], [set + "/" + S.booted]] {
            let (json, r) = try CLI.scanJSON(input + ["--app", S.app])
            XCTAssertEqual(r.status, 0, "\(input): \(r.stderr)")  // the app's own containers hold no error
            XCTAssertEqual(domains(json), S.domains.dropLast().map { $0 }, "\(input)")
            XCTAssertTrue(
                notes(json).contains {
                    $0.contains(
                        "extension com.example.app.pro.widget not audited with com.example.app: it belongs to "
                            + "com.example.app.pro"
                    )
                }, "\(notes(json))")
            XCTAssertLessThan(footprint(json) ?? Int.max, 1_000_000)
            let (pro, _) = try CLI.scanJSON(input + ["--app", "com.example.app.pro"])
            XCTAssertEqual(
                domains(pro), ["AppDomain-com.example.app.pro", "AppDomainPlugin-com.example.app.pro.widget"])
        }
    }

    func flavourBackup(_ folder: String, extraPlugins: Int = 0) throws {
        var b = BackupBuilder()
        b.installedApplications = [S.app, "com.example.app.pro"]
        b.file("AppDomain-com.example.app", "Documents/mine.bin", size: 3000)
        b.file("AppDomain-com.example.app.pro", "Documents/pro.bin", size: 10)
        b.file("AppDomainPlugin-com.example.app.ShareExtension", "Library/share.log", size: 100)
        b.file("AppDomainPlugin-com.example.app.pro.widget", "Library/widget.bin", size: 5_000_000)
        try b.write(to: folder)
        guard extraPlugins > 0 else { return }
        let db = try SQLiteFile(folder + "/Manifest.db")
        try db.transaction {
            for i in 0..<extraPlugins where extraPlugins > 0 {
                try db.execute(
                    "INSERT INTO Files SELECT fileID || ?, ?, relativePath, flags, file FROM Files WHERE domain = "
                        + "'AppDomainPlugin-com.example.app.ShareExtension' AND flags = 2 LIMIT 1",
                    [.text(String(i)), .text("AppDomainPlugin-com.example.app.ext\(i)")])
            }
        }
        try db.close()
    }

    func testAnotherFlavoursExtensionIsNotTheAppsInABackup() throws {
        let dir = try TempDir("flavour-backup")
        try flavourBackup(dir.sub("B"))
        let (json, r) = try CLI.scanJSON([dir.sub("B"), "--app", S.app])
        XCTAssertEqual(r.status, 0, r.stderr)  // the pro widget's 5 MB is not the app's: no error
        XCTAssertEqual(domains(json), ["AppDomain-com.example.app", "AppDomainPlugin-com.example.app.ShareExtension"])
        XCTAssertTrue(
            notes(json).contains {
                $0.contains(
                    "AppDomainPlugin-com.example.app.pro.widget not audited with com.example.app: it belongs to "
                        + "com.example.app.pro"
                )
            }, "\(notes(json))")
        XCTAssertEqual(footprint(json), 3100)
    }

    /// The real iOS 14 case: `--app com.apple.siri` took the extension of
    /// `com.apple.siri.parsec.HashtagImagesApp`, whose app is in the same backup.
    func testSiriDoesNotTakeTheHashtagImagesAppsExtension() throws {
        let dir = try TempDir("siri")
        var b = BackupBuilder()
        b.installedApplications = ["com.apple.siri.parsec.HashtagImagesApp"]
        b.file("AppDomain-com.apple.siri", "Library/Preferences/com.apple.siri.plist", size: 10)
        b.file("AppDomain-com.apple.siri.parsec.HashtagImagesApp", "Documents/x", size: 10)
        b.file(
            "AppDomainPlugin-com.apple.siri.parsec.HashtagImagesApp.HashtagImagesExtension", "Library/Caches/y",
            size: 10)
        b.file("AppDomainPlugin-com.apple.siri.Intents", "Library/z", size: 10)
        try b.write(to: dir.sub("B"))
        let (json, r) = try CLI.scanJSON([dir.sub("B"), "--app", "com.apple.siri"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(domains(json), ["AppDomain-com.apple.siri", "AppDomainPlugin-com.apple.siri.Intents"])
        XCTAssertTrue(
            notes(json).contains {
                $0.contains(
                    "AppDomainPlugin-com.apple.siri.parsec.HashtagImagesApp.HashtagImagesExtension not audited with "
                        + "com.apple.siri: it belongs to com.apple.siri.parsec.HashtagImagesApp"
                )
            }, "\(notes(json))")
    }

    /// Extension domains are joined to their app in linear time (issue 35, item 7: 40,000
    /// domains took 8.75 s): four times the domains take about four times as long, not sixteen.
    func testManyExtensionDomainsAreJoinedInLinearTime() throws {
        var seconds: [Double] = []
        for n in [2_500, 10_000] {
            let dir = try TempDir("many-plugins")
            try flavourBackup(dir.sub("B"), extraPlugins: n)
            let start = Date()
            let r = try CLI.run(["scan", dir.sub("B"), "--app", S.app, "--format", "json"])
            seconds.append(Date().timeIntervalSince(start))
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(
                domains((try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any]) ?? [:]).count, n + 2)
        }
        print(
            "extension domains: 2,500 in \(String(format: "%.2f", seconds[0])) s, 10,000 in "
                + "\(String(format: "%.2f", seconds[1])) s"
        )
        XCTAssertLessThan(seconds[1], 7 * seconds[0] + 1, "4x the domains cost more than 7x the time: not linear")
    }

    /// `--app-info` must be the audited app's: an App Clip's or another app's Info.plist given
    /// for the main app's container exits 2 naming both identifiers; the app's own is taken;
    /// the clip's own container takes the clip's Info.plist (footprint 0 B).
    func testAppInfoOfAnotherAppOrItsClipExitsTwoNamingBoth() throws {
        let dir = try TempDir("appinfo-id")
        let set = dir.sub("set")
        let device = try S.device(set, S.booted, name: "iPhone 17", state: 3)
        let clipContainer = device + "/data/Containers/Data/Application/9999"
        try Fixture.container(at: clipContainer)
        try S.plist(
            clipContainer + "/" + Container.simulatorMetadata,
            ["MCMMetadataIdentifier": "com.example.app.Clip", "MCMMetadataContentClass": 2])
        try Fixture.file(clipContainer + "/Documents/clip.bin", size: 700)
        try S.plist(
            dir.sub("Clip.plist"), ["CFBundleIdentifier": "com.example.app.Clip", "NSAppClip": [:] as [String: Any]])
        try S.plist(dir.sub("App.plist"), ["CFBundleIdentifier": S.app])
        try S.plist(
            dir.sub("Widget.plist"),
            [
                "CFBundleIdentifier": "com.example.app.widget",
                "NSExtension": ["NSExtensionPointIdentifier": "com.apple.widgetkit-extension"],
            ])
        try S.plist(dir.sub("NoID.plist"), ["UIFileSharingEnabled": true])
        let app = device + "/data/Containers/Data/Application/1111"
        for (input, plist, what) in [
            ([app], "Clip.plist", "com.example.app.Clip (an App Clip)"),
            (
                ["--simulator", "booted", "--device-set", set, "--app", S.app], "Clip.plist",
                "com.example.app.Clip (an App Clip)"
            ),
            ([app, "--app", S.app], "Widget.plist", "com.example.app.widget (an app extension)"),
        ] {
            for command in ["scan", "inventory"] {
                let r = try CLI.run([command] + input + ["--app-info", dir.sub(plist)])
                XCTAssertEqual(r.status, 2, "\(command) \(input) \(plist): \(r.stderr)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
                XCTAssertTrue(
                    r.stderr.contains("is the Info.plist of \(what), not of com.example.app, the app audited"), r.stderr
                )
            }
        }
        let none = try CLI.run(["scan", app, "--app-info", dir.sub("NoID.plist")])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("names no app (no CFBundleIdentifier)"), none.stderr)
        let (own, r) = try CLI.scanJSON([app, "--app-info", dir.sub("App.plist")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(footprint(own), 1000)
        let (clip, c) = try CLI.scanJSON([clipContainer, "--app-info", dir.sub("Clip.plist")])
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertEqual(footprint(clip), 0)
    }

    /// The groups not named: those named after the app first, the ones only a prefix matches
    /// labelled as guessed.
    func testGuessedGroupsAreLabelledAsGuessed() throws {
        let dir = try TempDir("groups")
        let set = dir.sub("set")
        let device = try S.device(set, S.booted, name: "iPhone 17", state: 3)
        let g = device + "/data/Containers/Shared/AppGroup/8888"
        try Fixture.mkdirs(g + "/Library")
        try S.plist(
            g + "/" + Container.simulatorMetadata,
            ["MCMMetadataIdentifier": "group.com.example.app.shared", "MCMMetadataContentClass": 7])
        let (json, _) = try CLI.scanJSON(["--simulator", "booted", "--device-set", set, "--app", S.app])
        let note = notes(json).first { $0.contains("App Group containers not audited") } ?? ""
        XCTAssertTrue(
            note.hasSuffix(
                "group.com.example.app.shared (named after the app); group.com.example.shared, "
                    + "group.com.example.widgets (guessed: only the prefix group.com.example matches; which groups "
                    + "an app uses is in its entitlements)"
            ), note)
    }

    /// Two data containers naming the app on one device: refused, both named, with how to choose.
    func testTwoDataContainersOfTheAppAreRefusedNamingBoth() throws {
        let dir = try TempDir("two")
        let set = dir.sub("set")
        let device = try S.device(set, S.booted, name: "iPhone 17", state: 3)
        let second = device + "/data/Containers/Data/Application/2222"
        try Fixture.container(at: second)
        try S.plist(
            second + "/" + Container.simulatorMetadata, ["MCMMetadataIdentifier": S.app, "MCMMetadataContentClass": 2])
        for input in [["--simulator", "booted", "--device-set", set], [device]] {
            let r = try CLI.run(["scan"] + input + ["--app", S.app])
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(
                r.stderr.contains("2 data containers of com.example.app in") && r.stderr.contains("Application/1111, ")
                    && r.stderr.contains("Application/2222"), r.stderr)
            XCTAssertTrue(r.stderr.contains("simctl get_app_container"), r.stderr)
        }
    }

    /// Device parts that cannot be read are named ("cannot read device.plist"), not taken for
    /// "no device is booted"; a device name and UDID with terminal escapes and U+202E print escaped.
    func testUnreadableDevicePartsAreNamedAndInputStringsEscaped() throws {
        let dir = try TempDir("unreadable")
        let set = dir.sub("set")
        let device = try S.device(set, S.booted, name: "iPhone 17", state: 3)
        chmod(device + "/device.plist", 0o600)
        chmod(set, 0o755)
        let r = try CLI.run(
            ["scan", "--simulator", "booted", "--device-set", set, "--app", S.app], asNobody: geteuid() == 0)
        if geteuid() == 0 {
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(
                r.stderr.contains("no Simulator device is booted")
                    && r.stderr.contains("these could not be read: \(device)/device.plist (permission denied)"),
                r.stderr)
        }
        try Fixture.bytes(device + "/device.plist", Array("not a plist".utf8))
        let bad = try CLI.run(["scan", "--simulator", "booted", "--device-set", set, "--app", S.app])
        XCTAssertTrue(bad.stderr.contains("\(device)/device.plist (not a property list dictionary"), bad.stderr)

        let hostile = "iPhone\u{1B}]0;owned\u{07}\u{202E}"
        try S.plist(device + "/device.plist", ["UDID": S.booted, "name": hostile, "state": 1])
        for spec in ["booted", "x\u{1B}[31mred\u{202E}"] {
            let e = try CLI.run(["scan", "--simulator", spec, "--device-set", set, "--app", S.app])
            XCTAssertEqual(e.status, 2)
            XCTAssertFalse(
                e.stderr.contains("\u{1B}") || e.stderr.contains("\u{202E}") || e.stderr.contains("\u{07}"), e.stderr)
        }
        let weird = dir.sub("set\u{1B}[2J")
        let missing = try CLI.run(["scan", "--simulator", "booted", "--device-set", weird, "--app", S.app])
        XCTAssertEqual(missing.status, 2)
        XCTAssertFalse(missing.stderr.contains("\u{1B}"), missing.stderr)
    }

    /// What xcrun prints reaches the terminal escaped: a group identifier with ESC, BEL and
    /// U+202E in the note.
    func testXcrunsGroupNamesAreEscapedInTheNote() throws {
        let dir = try TempDir("xcrun-escape")
        let home = try S.home(dir)
        let bin = dir.sub("bin")
        try Fixture.mkdirs(bin)
        let listapps =
            "{ \"com.example.app\" = { GroupContainers = { \"group.\u{1B}]0;owned\u{07}\u{202E}x\" = \"file:///x/\"; "
            + "}; }; }"
        try Fixture.bytes(dir.sub("listapps.txt"), Array(listapps.utf8))
        try Fixture.bytes(bin + "/xcrun", Array("#!/bin/sh\ncat '\(dir.sub("listapps.txt"))'\n".utf8))
        chmod(bin + "/xcrun", 0o755)
        let env = ["HOME": home, "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        let r = try CLI.run(["scan", "--simulator", "booted", "--app", S.app, "--color", "never"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)  // groups left out are a note, not a failure
        XCTAssertTrue(r.stdout.contains("(xcrun simctl listapps) not audited"), r.stdout)
        XCTAssertFalse(
            r.stdout.contains("\u{1B}") || r.stdout.contains("\u{07}") || r.stdout.contains("\u{202E}"), r.stdout)
    }
}
