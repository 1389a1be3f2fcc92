import Foundation
import XCTest
import GRDB
@testable import SandboxAudit
@testable import SandboxAuditSystem
@testable import SandboxAuditCore
@testable import SandboxAuditRules
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

    func domains(_ json: [String: Any]) -> [String] { (json["domains"] as? [[String: Any]] ?? []).map { $0["domain"] as! String } }
    func notes(_ json: [String: Any]) -> [String] { json["notes"] as? [String] ?? [] }
    func footprint(_ json: [String: Any]) -> Int? { (json["totals"] as? [String: Any])?["backupFootprint"] as? Int }

    /// `com.example.app` and `com.example.app.pro` side by side, the pro app's widget holding 5 MB.
    func flavourDevice(_ dir: TempDir) throws -> String {
        let set = dir.sub("set")
        let device = try S.device(set, S.booted, name: "iPhone 17", state: 3)
        let containers = device + "/data/Containers"
        try Fixture.container(at: containers + "/Data/Application/6666")
        try S.plist(containers + "/Data/Application/6666/" + Container.simulatorMetadata, ["MCMMetadataIdentifier": "com.example.app.pro", "MCMMetadataContentClass": 2])
        try Fixture.container(at: containers + "/Data/PluginKitPlugin/7777")
        try S.plist(containers + "/Data/PluginKitPlugin/7777/" + Container.simulatorMetadata, ["MCMMetadataIdentifier": "com.example.app.pro.widget"])
        try Fixture.file(containers + "/Data/PluginKitPlugin/7777/Library/Application Support/widget.bin", size: 5_000_000)
        return set
    }

    func testAnotherFlavoursExtensionIsNotTheAppsOnADevice() throws {
        let dir = try TempDir("flavour")
        let set = try flavourDevice(dir)
        for input in [["--simulator", "booted", "--device-set", set], [set + "/" + S.booted]] {
            let (json, r) = try CLI.scanJSON(input + ["--app", S.app])
            XCTAssertTrue([0, 1].contains(r.status), r.stderr)
            XCTAssertEqual(domains(json), S.domains.dropLast().map { $0 }, "\(input)")
            XCTAssertTrue(notes(json).contains { $0.contains("extension com.example.app.pro.widget not audited with com.example.app: it belongs to com.example.app.pro") }, "\(notes(json))")
            XCTAssertLessThan(footprint(json) ?? Int.max, 1_000_000)
            let (pro, _) = try CLI.scanJSON(input + ["--app", "com.example.app.pro"])
            XCTAssertEqual(domains(pro), ["AppDomain-com.example.app.pro", "AppDomainPlugin-com.example.app.pro.widget"])
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
        let queue = try DatabaseQueue(path: folder + "/Manifest.db")
        try queue.write { db in
            for i in 0..<extraPlugins where extraPlugins > 0 {
                try db.execute(sql: "INSERT INTO Files SELECT fileID || ?, ?, relativePath, flags, file FROM Files WHERE domain = 'AppDomainPlugin-com.example.app.ShareExtension' AND flags = 2 LIMIT 1",
                               arguments: [String(i), "AppDomainPlugin-com.example.app.ext\(i)"])
            }
        }
    }

    func testAnotherFlavoursExtensionIsNotTheAppsInABackup() throws {
        let dir = try TempDir("flavour-backup")
        try flavourBackup(dir.sub("B"))
        let (json, r) = try CLI.scanJSON([dir.sub("B"), "--app", S.app])
        XCTAssertTrue([0, 1].contains(r.status), r.stderr)
        XCTAssertEqual(domains(json), ["AppDomain-com.example.app", "AppDomainPlugin-com.example.app.ShareExtension"])
        XCTAssertTrue(notes(json).contains { $0.contains("AppDomainPlugin-com.example.app.pro.widget not audited with com.example.app: it belongs to com.example.app.pro") }, "\(notes(json))")
        XCTAssertEqual(footprint(json), 3100)
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
            XCTAssertTrue([0, 1].contains(r.status), r.stderr)
            XCTAssertEqual(domains((try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any]) ?? [:]).count, n + 2)
        }
        print("extension domains: 2,500 in \(String(format: "%.2f", seconds[0])) s, 10,000 in \(String(format: "%.2f", seconds[1])) s")
        XCTAssertLessThan(seconds[1], 7 * seconds[0] + 1, "4x the domains cost more than 7x the time: not linear")
    }
}
