import Foundation
import XCTest

/// A real device's file-system extraction (issue 46): `…/private/var/mobile/Containers` under a
/// prefix, its containers without the container manager's metadata plist. Every container is
/// found and listed with how it was identified; never "0 apps" in silence, never called a
/// Simulator device.
final class DeviceExtractionTests: XCTestCase {
    /// 25 app data containers and 5 App Group containers, none with a metadata plist: the apps
    /// named by their preferences plist (some also by their URLCache folder and HTTP storage),
    /// the groups by their suite's plist; one more container that nothing names.
    func extraction(_ dir: TempDir) throws -> (root: String, containers: String, apps: [String]) {
        let root = dir.sub("extraction")
        let containers = root + "/filesystem1/private/var/mobile/Containers"
        var apps: [String] = []
        for i in 0..<25 {
            let id = "com.vendor\(i).app\(i)"
            apps.append(id)
            let c = containers + String(format: "/Data/Application/%08X-0000-4000-8000-%012X", i, i)
            try Fixture.container(at: c)
            try Fixture.file(c + "/Library/Preferences/\(id).plist", size: 100)
            try Fixture.file(c + "/Library/Preferences/com.apple.EmojiCache.plist", size: 10)
            if i % 2 == 0 { try Fixture.file(c + "/Library/Caches/\(id)/Cache.db", size: 100) }
            if i % 3 == 0 { try Fixture.file(c + "/Library/HTTPStorages/\(id)/httpstorages.sqlite", size: 100) }
            try Fixture.file(c + "/Documents/data-\(i).bin", size: 1000 + i)
        }
        for g in 0..<5 {
            let c = containers + String(format: "/Shared/AppGroup/%08X-1111-4000-8000-%012X", g, g)
            try Fixture.file(c + "/Library/Preferences/group.com.vendor\(g).shared.plist", size: 100)
        }
        try Fixture.container(at: containers + "/Data/Application/FFFFFFFF-0000-4000-8000-FFFFFFFFFFFF")
        return (root, containers, apps)
    }

    func testAppsListsEveryContainerWithHowItWasIdentified() throws {
        let dir = try TempDir("extraction")
        let (root, containers, apps) = try extraction(dir)
        let r = try CLI.run(["apps", root, "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        XCTAssertEqual(json["kind"] as? String, "device")
        XCTAssertEqual(json["source"] as? String, "device file-system extraction " + containers)
        let listed = (json["apps"] as! [[String: Any]])
        XCTAssertEqual(listed.map { $0["bundleIdentifier"] as! String }, apps.sorted())
        for a in listed {
            let how = a["identifiedBy"] as? String ?? ""
            XCTAssertTrue(
                how.hasPrefix("no metadata plist; named by ")
                    && how.contains("Library/Preferences/\(a["bundleIdentifier"]!).plist"), how)
        }
        let groups = json["appGroups"] as! [[String: Any]]
        XCTAssertEqual(groups.count, 5)
        XCTAssertEqual(listed.count + groups.count, 30)
        let notes = json["notes"] as? [String] ?? []
        XCTAssertTrue(
            notes.contains {
                $0.hasPrefix("1 container could not be told") && $0.contains("FFFFFFFF-0000-4000-8000-FFFFFFFFFFFF")
            }, "\(notes)")
        // The text names it as what it is.
        let text = try CLI.run(["apps", root]).stdout
        XCTAssertTrue(text.hasPrefix("25 apps in the device file-system extraction "), text)
        XCTAssertFalse(text.contains("Simulator"), text)
    }

    /// `scan EXTRACTION --app ID` audits that app's container, its identity labelled as evidence.
    func testScanFindsTheAppInTheExtraction() throws {
        let dir = try TempDir("extractionscan")
        let (root, _, apps) = try extraction(dir)
        let (json, r) = try CLI.scanJSON([root, "--app", apps[4]])
        XCTAssertEqual(r.status, 0, r.stderr)
        let container = json["container"] as? [String: Any]
        XCTAssertEqual(container?["bundleIdentifier"] as? String, apps[4])
        XCTAssertEqual(
            (json["totals"] as? [String: Any])?["backupFootprint"] as? Int, 1004 + 100 + 10,
            "Documents and the two preferences plists; not Caches")
        let missing = try CLI.run(["scan", root, "--app", "com.not.there"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("in device file-system extraction"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("1 container could not be told"), missing.stderr)
    }

    /// A zip of the extraction: an archive is read as one container, so the run says where the
    /// device's Containers folder is, what it holds and how to read it (not an App Group hint).
    func testAZippedExtractionSaysWhatItHolds() throws {
        try Tool.require("zip", for: "the extraction is zipped")
        let dir = try TempDir("extractionzip")
        _ = try extraction(dir)
        try sh("cd extraction && zip -qr ../x.zip filesystem1", in: dir.path)
        for command in [["scan", "x.zip"], ["scan", "x.zip", "--app", "com.vendor3.app3"], ["inventory", "x.zip"]] {
            let r = try CLI.run(command, cwd: dir.path)
            XCTAssertEqual(r.status, 2, "\(command): \(r.stdout)")
            XCTAssertEqual(
                r.stderr,
                "sandbox-audit: error: x.zip holds a device's Containers folder "
                    + "(filesystem1/private/var/mobile/Containers: "
                    + "26 app data containers, 5 App Group containers, 0 extension containers), and an archive is "
                    + "read as one container: unpack it, "
                    + "keeping extended attributes, and give the folder (sandbox-audit apps FOLDER lists its apps; "
                    + "scan FOLDER --app ID audits one)\n",
                "\(command)")
        }
    }
}
