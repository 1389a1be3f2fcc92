import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The app's own Info.plist: from the app's bundle on a Simulator device, or `--app-info`.
final class AppInfoTests: XCTestCase {
    typealias S = SimulatorDeviceTests

    /// A device (SimulatorDeviceTests' layout) whose app bundle's Info.plist holds `plist`, in
    /// `data/Containers/Bundle/Application/UUID/Example.app`, and a SQLite store in Documents.
    static func device(_ dir: TempDir, _ plist: [String: Any], binary: Bool = true) throws -> String {
        let folder = try S.device(dir.sub("set"), S.booted, name: "iPhone 17", state: 3)
        let bundle = folder + "/data/Containers/Bundle/Application/9999"
        try S.plist(bundle + "/" + Container.simulatorMetadata, ["MCMMetadataIdentifier": S.app])
        var info = plist
        info["CFBundleIdentifier"] = S.app
        let data = try PropertyListSerialization.data(
            fromPropertyList: info, format: binary ? .binary : .xml, options: 0)
        try Fixture.bytes(bundle + "/Example.app/Info.plist", [UInt8](data))
        try Fixture.bytes(
            folder + "/data/Containers/Data/Application/1111/Documents/store.sqlite", VolatileStore.sampleSQLiteFile)
        // Another app's bundle, which is never taken for this one.
        try S.plist(
            folder + "/data/Containers/Bundle/Application/8888/" + Container.simulatorMetadata,
            ["MCMMetadataIdentifier": "org.other.app"])
        try S.plist(
            folder + "/data/Containers/Bundle/Application/8888/Other.app/Info.plist",
            ["CFBundleIdentifier": "org.other.app", "NSAppClip": [:] as [String: Any]])
        return folder
    }

    func footprint(_ json: [String: Any]) -> Int? { (json["totals"] as? [String: Any])?["backupFootprint"] as? Int }

    func testAnAppClipOnTheDeviceHasABackupFootprintOfZero() throws {
        let dir = try TempDir("clip")
        let folder = try Self.device(dir, ["NSAppClip": ["NSAppClipRequestEphemeralUserNotification": false]])
        let (json, r) = try CLI.scanJSON([folder, "--app", S.app])
        XCTAssertEqual(r.status, 0, r.stderr)  // nothing of a clip's is backed up: no error
        XCTAssertEqual(footprint(json), 0)
        let notes = json["notes"] as? [String] ?? []
        XCTAssertTrue(
            notes.contains {
                $0.contains("App Clip") && $0.contains("never backs App Clips up")
                    && $0.contains("Example.app/Info.plist")
            }, "\(notes)")
        let text = try CLI.run(["scan", folder, "--app", S.app, "--color", "never"]).stdout
        XCTAssertTrue(text.contains("never backs App Clips up"), text)
        // The inventory agrees: nothing of the app's container is backed up.
        let inventory = try CLI.run(["inventory", folder, "--app", S.app])
        XCTAssertEqual(inventory.status, 0, inventory.stderr)
        let backed = inventory.stdout.split(separator: "\n").filter {
            $0.contains("\"AppDomain-") && $0.contains("\"backedUp\":true")
        }
        XCTAssertEqual(backed, [])
        // Without NSAppClip, the same device backs the store up.
        let plain = try TempDir("plain")
        let (again, _) = try CLI.scanJSON([try Self.device(plain, [:]), "--app", S.app])
        XCTAssertEqual(footprint(again), 4096 + 1000 + 100, "the store, mine.bin and the extension's share.log")
    }

    func testFileSharingWithAStoreInDocumentsIsReported() throws {
        let dir = try TempDir("sharing")
        let folder = try Self.device(dir, ["UIFileSharingEnabled": true], binary: false)
        let (json, _) = try CLI.scanJSON([folder, "--app", S.app])
        let found = (json["findings"] as? [[String: Any]] ?? []).filter {
            $0["ruleId"] as? String == "user-visible-documents"
        }
        XCTAssertEqual(found.map { $0["path"] as? String }, ["Documents/store.sqlite"])
        XCTAssertEqual(found.map { $0["severity"] as? String }, ["warning"])
        XCTAssertTrue((found.first?["message"] as? String ?? "").contains("UIFileSharingEnabled"), "\(found)")
        // With the key off, nothing.
        let off = try TempDir("off")
        let (quiet, _) = try CLI.scanJSON([try Self.device(off, ["UIFileSharingEnabled": false]), "--app", S.app])
        XCTAssertEqual(
            (quiet["findings"] as? [[String: Any]] ?? []).filter { $0["ruleId"] as? String == "user-visible-documents" }
                .count, 0)
    }

    /// `--app-info` takes an Info.plist or an .app folder, for a container given alone.
    func testAppInfoOptionTakesAPlistOrAnAppFolder() throws {
        let dir = try TempDir("appinfo")
        try Fixture.container(at: dir.sub("C"))
        try Fixture.bytes(dir.sub("C/Documents/app.db"), VolatileStore.sampleSQLiteFile)
        try S.plist(
            dir.sub("Clip.app/Info.plist"),
            ["CFBundleIdentifier": "com.example.app.Clip", "NSAppClip": [:] as [String: Any]])
        try S.plist(dir.sub("Shared.plist"), ["LSSupportsOpeningDocumentsInPlace": true])
        let (clip, r) = try CLI.scanJSON([dir.sub("C"), "--app-info", dir.sub("Clip.app")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(footprint(clip), 0)
        let (shared, _) = try CLI.scanJSON([dir.sub("C"), "--app-info", dir.sub("Shared.plist")])
        XCTAssertEqual(footprint(shared), 4096)
        let found = (shared["findings"] as? [[String: Any]] ?? []).filter {
            $0["ruleId"] as? String == "user-visible-documents"
        }
        XCTAssertEqual(found.map { $0["path"] as? String }, ["Documents/app.db"])
        XCTAssertTrue((found.first?["message"] as? String ?? "").contains("LSSupportsOpeningDocumentsInPlace"))
    }

    /// What cannot be the app's Info.plist is a one-line error naming it, exit 2.
    func testBadAppInfoIsAOneLineError() throws {
        let dir = try TempDir("bad")
        try Fixture.container(at: dir.sub("C"))
        try Fixture.mkdirs(dir.sub("Empty.app"))
        try Fixture.bytes(dir.sub("text.plist"), Array("not a plist".utf8))
        try Fixture.bytes(
            dir.sub("array.plist"),
            [UInt8](try PropertyListSerialization.data(fromPropertyList: [1, 2], format: .binary, options: 0)))
        try Fixture.file(dir.sub("huge.plist"), size: AppInfo.maximumSize + 1)
        let cases: [(String, String)] = [
            (
                dir.sub("missing.plist"),
                "cannot read the app's Info.plist \(dir.sub("missing.plist")): No such file or directory"
            ),
            (
                dir.sub("Empty.app"),
                "cannot read the app's Info.plist \(dir.sub("Empty.app"))/Info.plist: No such file or directory"
            ),
            (dir.sub("text.plist"), "\(dir.sub("text.plist")) is not the app's Info.plist: not a property list"),
            (dir.sub("array.plist"), "\(dir.sub("array.plist")) is not the app's Info.plist: not a dictionary"),
            (
                dir.sub("huge.plist"),
                "cannot read the app's Info.plist \(dir.sub("huge.plist")): is \(AppInfo.maximumSize + 1) bytes, "
                    + "over the limit"
            ),
        ]
        for (path, message) in cases {
            for command in ["scan", "inventory"] {
                let r = try CLI.run([command, dir.sub("C"), "--app-info", path])
                XCTAssertEqual(r.status, 2, "\(command) \(path): \(r.stderr)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
                XCTAssertTrue(r.stderr.contains(message), "\(command): \(r.stderr)")
            }
        }
    }
}
