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

/// `--simulator DEVICE` on fake device sets laid out as on a Mac: the default set and
/// XCTestDevices under a fake HOME, booted, shut-down and clone devices, an app with an
/// extension and a group, another app.
final class SimulatorDeviceTests: XCTestCase {
    static let app = "com.example.app"
    static let group = "group.com.example.shared"
    static let booted = "A1A1A1A1-0000-4000-8000-000000000001"
    static let shutdown = "B2B2B2B2-0000-4000-8000-000000000002"
    static let clone = "C3C3C3C3-0000-4000-8000-000000000003"
    static let domains = [
        "AppDomain-com.example.app", "AppDomainPlugin-com.example.app.ShareExtension",
        "AppDomainGroup-group.com.example.shared",
    ]

    static func plist(_ path: String, _ value: [String: Any]) throws {
        try Fixture.bytes(
            path, Array(try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)))
    }

    /// A device folder `set/udid` with its device.plist; `apps` puts the two apps, the
    /// extension and the groups on it.
    static func device(_ set: String, _ udid: String, name: String, state: Int, apps: Bool = true) throws -> String {
        let folder = set + "/" + udid
        try plist(
            folder + "/device.plist",
            [
                "UDID": udid, "name": name, "state": state,
                "runtime": "com.apple.CoreSimulator.SimRuntime.iOS-26-1",
                "deviceType": "com.apple.CoreSimulator.SimDeviceType.iPhone-17",
            ])
        let containers = folder + "/data/Containers"
        try Fixture.mkdirs(containers + "/Data/Application")
        guard apps else { return folder }
        func container(_ path: String, _ id: String, _ cls: Int?, group: Bool = false) throws {
            if group { try Fixture.mkdirs(path + "/Library/Preferences") } else { try Fixture.container(at: path) }
            var meta: [String: Any] = ["MCMMetadataIdentifier": id]
            if let cls { meta["MCMMetadataContentClass"] = cls }
            try plist(path + "/" + Container.simulatorMetadata, meta)
        }
        try container(containers + "/Data/Application/1111", app, 2)
        try Fixture.file(containers + "/Data/Application/1111/Documents/mine.bin", size: 1000)
        try container(containers + "/Data/PluginKitPlugin/2222", app + ".ShareExtension", nil)
        try Fixture.file(containers + "/Data/PluginKitPlugin/2222/Library/Application Support/share.log", size: 100)
        try container(containers + "/Shared/AppGroup/3333", group, 7, group: true)
        try Fixture.file(
            containers + "/Shared/AppGroup/3333/Library/Preferences/group.com.example.shared.plist", size: 50)
        try container(containers + "/Data/Application/4444", "org.other.app", 2)
        try Fixture.file(containers + "/Data/Application/4444/Documents/theirs.bin", size: 123_456)
        try container(containers + "/Shared/AppGroup/5555", "group.com.example.widgets", 7, group: true)
        return folder
    }

    /// HOME with the default set (a booted and a shut-down iPhone 17, a booted iPad) and
    /// XCTestDevices (a clone, shut down unless `cloneBooted`).
    static func home(_ dir: TempDir, cloneBooted: Bool = false) throws -> String {
        let home = dir.sub("home")
        let devices = home + "/Library/Developer/CoreSimulator/Devices"
        _ = try device(devices, booted, name: "iPhone 17", state: 3)
        _ = try device(devices, shutdown, name: "iPhone 17", state: 1, apps: false)
        _ = try device(
            home + "/Library/Developer/XCTestDevices", clone, name: "Clone 1 of iPhone 17", state: cloneBooted ? 3 : 1)
        try Fixture.file(devices + "/device_set.plist", size: 10)  // what CoreSimulator keeps beside the devices
        return home
    }

    func domains(_ json: [String: Any]) -> [String] {
        (json["domains"] as! [[String: Any]]).map { $0["domain"] as! String }
    }

    func testBootedDeviceGivesTheAppsThreeDomainsAndNothingOfTheOtherApp() throws {
        let dir = try TempDir("sim")
        let env = ["HOME": try Self.home(dir)]
        let scan = try CLI.run(
            ["scan", "--format", "json", "--simulator", "booted", "--app", Self.app, "--app-group", Self.group],
            environment: env)
        XCTAssertEqual(scan.status, 0, scan.stderr)  // the device's containers hold no error
        let json = try JSONSerialization.jsonObject(with: scan.stdoutBytes) as! [String: Any]
        XCTAssertEqual(domains(json), Self.domains)
        XCTAssertFalse(
            scan.stdout.contains("theirs") || scan.stdout.contains("org.other.app"),
            "another app's container is never read")
        let notes = json["notes"] as! [String]
        XCTAssertTrue(notes.contains { $0.contains(Self.booted) && $0.contains("iOS 26.1") }, "\(notes)")
        XCTAssertTrue(notes.contains { $0.contains("group.com.example.widgets") }, "\(notes)")
        XCTAssertFalse(notes.contains { $0.contains("clone") }, "\(notes)")

        let inventory = try CLI.run(
            ["inventory", "--simulator", "booted", "--app", Self.app, "--app-group", Self.group], environment: env)
        XCTAssertEqual(inventory.status, 0, inventory.stderr)
        var seen: [String] = []
        for line in inventory.stdout.split(separator: "\n") {
            let d = (try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any])["domain"] as! String
            if seen.last != d { seen.append(d) }
        }
        XCTAssertEqual(seen, Self.domains)
        XCTAssertFalse(inventory.stdout.contains("theirs"))

        let simulate = try CLI.run(
            ["simulate", "restore", "--format", "json", "--simulator", Self.booted.lowercased(), "--app", Self.app],
            environment: env)
        XCTAssertEqual(simulate.status, 0, simulate.stderr)
        XCTAssertTrue(
            simulate.stdout.contains("AppDomainPlugin-com.example.app.ShareExtension")
                && !simulate.stdout.contains("theirs"), simulate.stdout)
    }

    func testCloneIsAuditedWithANote() throws {
        let dir = try TempDir("sim")
        let env = ["HOME": try Self.home(dir)]
        let r = try CLI.run(
            ["scan", "--format", "json", "--simulator", Self.clone.lowercased(), "--app", Self.app], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: r.stdoutBytes) as! [String: Any]
        XCTAssertEqual(domains(json), Array(Self.domains.prefix(2)))
        let notes = json["notes"] as! [String]
        XCTAssertTrue(
            notes.contains {
                $0.contains("parallel-testing clone") && $0.contains("deletes it when the test run ends")
            }, "\(notes)")
        XCTAssertTrue(r.stdout.contains("XCTestDevices/" + Self.clone), "the data root is the clone's")
    }

    func testSeveralMatchesAndNoneExitTwoWithTheCandidates() throws {
        let dir = try TempDir("sim")
        let env = ["HOME": try Self.home(dir, cloneBooted: true)]
        let booted = try CLI.run(["scan", "--simulator", "booted", "--app", Self.app], environment: env)
        XCTAssertEqual(booted.status, 2, booted.stdout)
        XCTAssertTrue(
            booted.stderr.contains("2 booted Simulator devices: choose one with --simulator UDID"), booted.stderr)
        let lines = booted.stderr.split(separator: "\n")
        XCTAssertTrue(
            lines.contains {
                $0.contains(Self.booted) && $0.contains("iPhone 17") && $0.contains("iOS 26.1")
                    && $0.contains("CoreSimulator/Devices")
            }, booted.stderr)
        XCTAssertTrue(
            lines.contains { $0.contains(Self.clone) && $0.contains("XCTestDevices") && $0.contains("clone") },
            booted.stderr)
        XCTAssertFalse(booted.stderr.contains(Self.shutdown), "a shut-down device is no candidate for booted")

        let named = try CLI.run(["inventory", "--simulator", "iPhone 17", "--app", Self.app], environment: env)
        XCTAssertEqual(named.status, 2)
        XCTAssertTrue(
            named.stderr.contains("2 Simulator devices named iPhone 17") && named.stderr.contains(Self.booted)
                && named.stderr.contains(Self.shutdown) && named.stderr.contains("Shutdown"), named.stderr)

        let missing = try CLI.run(
            ["simulate", "update", "--simulator", "iPhone 99", "--app", Self.app], environment: env)
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("no Simulator device is named or has the UDID iPhone 99"), missing.stderr)
        for udid in [Self.booted, Self.shutdown, Self.clone] {
            XCTAssertTrue(missing.stderr.contains(udid), missing.stderr)
        }
        XCTAssertTrue(missing.stderr.contains("Booted") && missing.stderr.contains("Shutdown"), missing.stderr)

        let empty = try CLI.run(
            ["scan", "--simulator", "booted", "--app", Self.app], environment: ["HOME": dir.sub("nobody-home")])
        XCTAssertEqual(empty.status, 2)
        XCTAssertTrue(empty.stderr.contains("no Simulator device is booted: there is no device in"), empty.stderr)
    }

    func testDeviceSetOptionAndUsageErrors() throws {
        let dir = try TempDir("sim")
        _ = try Self.device(dir.sub("set"), Self.booted, name: "iPad Air", state: 1)
        let r = try CLI.run(
            ["inventory", "--simulator", "iPad Air", "--app", Self.app, "--device-set", dir.sub("set") + "/"],
            environment: ["HOME": dir.sub("elsewhere")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("AppDomainPlugin-com.example.app.ShareExtension"))
        let cases: [([String], String)] = [
            (
                ["--simulator", "booted", "--app", Self.app, "--device-set", dir.sub("nope")],
                "--device-set \(dir.sub("nope")) is not a folder"
            ),
            (["--device-set", dir.sub("set"), dir.sub("set")], "--device-set needs --simulator DEVICE"),
            (["--simulator", "booted"], "--simulator needs --app BUNDLE_ID"),
            (
                ["--simulator", "booted", "--app", Self.app, dir.sub("set")],
                "give PATH or --simulator DEVICE, not both"
            ),
            ([], "missing PATH (or --simulator DEVICE with --app BUNDLE_ID)"),
        ]
        let noHome = try CLI.run(["scan", "--simulator", "booted", "--app", Self.app], environment: ["HOME": ""])
        XCTAssertEqual(noHome.status, 2)
        XCTAssertTrue(noHome.stderr.contains("HOME is not set: give --device-set DIR"), noHome.stderr)
        for (arguments, message) in cases {
            for command in ["scan", "inventory"] {
                let r = try CLI.run([command] + arguments, environment: ["HOME": dir.sub("elsewhere")])
                XCTAssertEqual(r.status, 2, "\(command) \(arguments)")
                XCTAssertTrue(r.stderr.contains(message), "\(command) \(arguments): \(r.stderr)")
            }
        }
    }

    func testNamedGroupOrAppNotOnTheDeviceExitsTwoListingWhatIsThere() throws {
        let dir = try TempDir("sim")
        let env = ["HOME": try Self.home(dir)]
        try Fixture.bytes(dir.sub("policy.yml"), Array("appGroups: [group.com.example.gone]\n".utf8))
        for extra in [["--app-group", "group.com.example.gone"], ["--config", dir.sub("policy.yml")]] {
            for command in ["scan", "inventory"] {
                let r = try CLI.run([command, "--simulator", "booted", "--app", Self.app] + extra, environment: env)
                XCTAssertEqual(r.status, 2, "\(command) \(extra): \(r.stdout)")
                XCTAssertTrue(
                    r.stderr.contains(
                        "no App Group container group.com.example.gone in Simulator device iPhone 17 (\(Self.booted))")
                        && r.stderr.contains("group.com.example.shared, group.com.example.widgets"), r.stderr)
            }
        }
        let app = try CLI.run(["scan", "--simulator", "booted", "--app", "org.missing.app"], environment: env)
        XCTAssertEqual(app.status, 2)
        XCTAssertTrue(
            app.stderr.contains("no data container of org.missing.app in Simulator device iPhone 17")
                && app.stderr.contains(
                    ": it holds 2 app data containers; `sandbox-audit apps --simulator booted` lists them"),
            app.stderr)
    }

    /// As a user other than root: a named group this user cannot read, or a group folder it
    /// cannot list, fails the run; it is never left out.
    func testUnreadableNamedGroupFailsTheRunAsAnotherUser() throws {
        try Tool.require("setpriv", for: "runs the tool as a user other than root")
        guard getuid() == 0 else { throw XCTSkip("needs root to drop privileges with setpriv") }
        let dir = try TempDir("sim")
        let home = try Self.home(dir)
        let env = ["HOME": home]
        let shared = home + "/Library/Developer/CoreSimulator/Devices/\(Self.booted)/data/Containers/Shared/AppGroup"
        chmod(shared + "/3333", 0o700)
        let r = try CLI.run(
            ["scan", "--simulator", "booted", "--app", Self.app, "--app-group", Self.group], environment: env,
            asNobody: true)
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertTrue(r.stderr.contains(Self.group), r.stderr)
        chmod(shared + "/3333", 0o755)
        chmod(shared, 0o711)
        let unlisted = try CLI.run(
            ["inventory", "--simulator", "booted", "--app", Self.app, "--app-group", Self.group], environment: env,
            asNobody: true)
        XCTAssertEqual(unlisted.status, 2, unlisted.stdout)
        XCTAssertTrue(unlisted.stderr.contains("cannot read \(shared): permission denied"), unlisted.stderr)
        // A device set this user cannot list: the device wanted may be there.
        chmod(shared, 0o755)
        let devices = home + "/Library/Developer/CoreSimulator/Devices"
        chmod(devices, 0o700)
        let set = try CLI.run(["scan", "--simulator", "booted", "--app", Self.app], environment: env, asNobody: true)
        XCTAssertEqual(set.status, 2, set.stdout)
        XCTAssertTrue(set.stderr.contains("cannot read \(devices): permission denied"), set.stderr)
    }

    /// Point 2: a data container as PATH (as `simctl get_app_container … data` prints it) with
    /// named groups: the device folder above it gives them, or the run fails.
    func testDataContainerWithNamedGroups() throws {
        let dir = try TempDir("sim")
        let home = try Self.home(dir)
        let data =
            home + "/Library/Developer/CoreSimulator/Devices/\(Self.booted)/data/Containers/Data/Application/1111"
        try Fixture.bytes(dir.sub("policy.yml"), Array("appGroups: [\(Self.group)]\n".utf8))
        let withGroup = [Self.domains[0], Self.domains[2]]
        for (extra, app) in [
            (["--app-group", Self.group], true), (["--config", dir.sub("policy.yml")], true),
            (["--app-group", Self.group], false),
        ] {
            let args = (app ? ["--app", Self.app] : []) + extra + [data]
            let (json, r) = try CLI.scanJSON(args)
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertEqual(domains(json), withGroup, "\(args)")
            let inv = try CLI.run(["inventory"] + args)
            XCTAssertEqual(inv.status, 0, inv.stderr)
            XCTAssertTrue(inv.stdout.contains(Self.domains[2]) && !inv.stdout.contains("theirs"), "\(args)")
        }
        // A group that is not on the device: named, with what is there.
        let gone = try CLI.run(["scan", "--app", Self.app, "--app-group", "group.com.example.gone", data])
        XCTAssertEqual(gone.status, 2)
        XCTAssertTrue(
            gone.stderr.contains("no App Group container group.com.example.gone in ")
                && gone.stderr.contains(Self.group), gone.stderr)

        // The same container copied out of the device: no device folder above it.
        try sh("cp -a '\(data)' '\(dir.sub("Copy"))'", in: dir.path)
        try Tool.require("tar", for: "an archive of the container")
        try sh("tar -C Copy -czf copy.tgz .", in: dir.path)
        for input in [dir.sub("Copy"), dir.sub("copy.tgz")] {
            for (command, extra) in [
                ("scan", ["--app-group", Self.group]), ("inventory", ["--app-group", Self.group]),
                ("scan", ["--config", dir.sub("policy.yml")]), ("simulate", ["--app-group", Self.group]),
            ] {
                let r = try CLI.run(
                    (command == "simulate" ? ["simulate", "restore"] : [command]) + ["--app", Self.app] + extra + [
                        input
                    ])
                XCTAssertEqual(r.status, 2, "\(command) \(extra) \(input): \(r.stdout)")
                XCTAssertTrue(
                    r.stderr.contains("App Group \(Self.group) cannot be found from a lone container")
                        && r.stderr.contains("--simulator DEVICE") && r.stderr.contains("the group container itself"),
                    r.stderr)
            }
        }
    }

    /// Issue 22: the device set and a device's container lists are read without updating
    /// their access times.
    func testListingsKeepAccessTimes() throws {
        try AccessTimes.require(for: "the device set's folders' access times kept")
        let dir = try TempDir("sim")
        let home = try Self.home(dir)
        let devices = home + "/Library/Developer/CoreSimulator/Devices"
        let containers = devices + "/\(Self.booted)/data/Containers"
        let folders = [
            devices, containers + "/Data/Application", containers + "/Data/PluginKitPlugin",
            containers + "/Shared/AppGroup",
        ]
        // Two days old: relatime would update it on any read.
        let old = time(nil) - 2 * 86_400
        for p in folders {
            var times = [timeval(tv_sec: old, tv_usec: 0), timeval(tv_sec: old - 10, tv_usec: 0)]
            XCTAssertEqual(utimes(p, &times), 0)
        }
        let r = try CLI.run(
            ["inventory", "--simulator", "booted", "--app", Self.app, "--app-group", Self.group],
            environment: ["HOME": home])
        XCTAssertEqual(r.status, 0, r.stderr)
        for p in folders {
            var st = stat()
            XCTAssertEqual(stat(p, &st), 0)
            XCTAssertEqual(st.atimeSpec.tv_sec, old, "\(p): access time changed")
        }
    }
}
