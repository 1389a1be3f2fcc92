import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

extension SimulatorDeviceTests {
    /// Where `xcrun` is on PATH, `simctl listapps` names the groups the app uses; a failing or
    /// silent one changes nothing.
    func testListappsNamesTheAppsGroupsWhenXcrunIsThere() throws {
        let dir = try TempDir("sim")
        let home = try Self.home(dir)
        let bin = dir.sub("bin")
        try Fixture.mkdirs(bin)
        let listapps = """
            {
                "com.example.app" = {
                    CFBundleIdentifier = "com.example.app";
                    GroupContainers = {
                        "group.com.example.shared" = "file:///x/";
                        "group.org.partner.sync" = "file:///y/";
                    };
                };
                "org.other.app" = { CFBundleIdentifier = "org.other.app"; };
            }
            """
        try Fixture.bytes(dir.sub("listapps.txt"), Array(listapps.utf8))
        func xcrun(_ body: String) throws {
            try Fixture.bytes(bin + "/xcrun", Array("#!/bin/sh\necho \"$@\" > '\(dir.sub("args"))'\n\(body)\n".utf8))
            chmod(bin + "/xcrun", 0o755)
        }
        let env = ["HOME": home, "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")]
        try xcrun("cat '\(dir.sub("listapps.txt"))'")
        let r = try CLI.run(["scan", "--format", "json", "--simulator", "booted", "--app", Self.app], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)  // groups left out are a note, not a failure
        let notes = (try JSONSerialization.jsonObject(with: r.stdoutBytes) as! [String: Any])["notes"] as! [String]
        XCTAssertTrue(
            notes.contains {
                $0.contains("(xcrun simctl listapps) not audited")
                    && $0.contains("group.com.example.shared, group.org.partner.sync")
            }, "\(notes)")
        XCTAssertFalse(
            notes.contains { $0.contains("group.com.example.widgets") },
            "the app's own list replaces the guess by prefix")
        let args = try String(contentsOfFile: dir.sub("args"), encoding: .utf8)
        XCTAssertEqual(args, "simctl --set \(home)/Library/Developer/CoreSimulator/Devices listapps \(Self.booted)\n")

        for body in ["exit 1", "echo 'not a plist {'"] {
            try xcrun(body)
            let r = try CLI.run(
                ["scan", "--format", "json", "--simulator", "booted", "--app", Self.app], environment: env)
            XCTAssertEqual(r.status, 0, "\(body): \(r.stderr)")  // xcrun failing is a note, not a failure
            let notes = (try JSONSerialization.jsonObject(with: r.stdoutBytes) as! [String: Any])["notes"] as! [String]
            XCTAssertTrue(
                notes.contains {
                    $0.contains("App Group containers not audited")
                        && $0.contains("group.com.example.shared, group.com.example.widgets")
                }, "\(body): \(notes)")
        }
    }

    /// A device set of many devices and hostile device.plists: each costs at most its plist's
    /// bound, and the choice stays exact.
    func testHostileDevicePlistsAreSkipped() throws {
        let dir = try TempDir("sim")
        let set = dir.sub("set")
        _ = try Self.device(set, Self.booted, name: "iPhone 17", state: 3)
        try Fixture.bytes(set + "/X1/device.plist", Array(repeating: 0x41, count: 100))  // not a plist
        try Fixture.file(set + "/X2/device.plist", size: Container.maximumIdentityPlistSize + 1)  // over the bound
        try Fixture.mkdirs(set + "/X3/device.plist")  // a folder
        try Self.plist(set + "/X4/device.plist", ["name": "no UDID", "state": 3])
        XCTAssertEqual(mkfifo(set + "/X5", 0o644), 0)
        let devices = try SimulatorDevices.devices(in: set)
        XCTAssertEqual(devices.map(\.udid), [Self.booted])
        let found = try SimulatorDevices.find("booted", in: [set])
        XCTAssertEqual(found.folder, set + "/" + Self.booted)
        XCTAssertEqual(found.runtimeName, "iOS 26.1")
        XCTAssertFalse(found.isClone)
    }
}
