import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// `--output ncdu=PATH`: ncdu's JSON export of the scan, read back by ncdu itself.
final class NcduExportTests: XCTestCase {
    static var samples: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("sample-containers").path
    }

    /// Every item of an export as "path asize" (folders end in "/"), and the info objects.
    func flatten(_ export: Data) throws -> (items: [String: Int], infos: [[String: Any]]) {
        let top = try XCTUnwrap(JSONSerialization.jsonObject(with: export) as? [Any], "not a JSON array")
        XCTAssertEqual(top.first as? Int, 1, "major version")
        var items: [String: Int] = [:]
        var infos: [[String: Any]] = []
        func walk(_ item: Any, _ prefix: String, top: Bool) throws {
            if let folder = item as? [Any] {
                let info = try XCTUnwrap(folder.first as? [String: Any])
                let path = top ? "" : prefix + (info["name"] as? String ?? "?") + "/"
                if !top {
                    items[path] = info["asize"] as? Int ?? 0
                    infos.append(info)
                }
                for child in folder.dropFirst() { try walk(child, path, top: false) }
            } else {
                let info = try XCTUnwrap(item as? [String: Any])
                items[prefix + (info["name"] as? String ?? "?")] = info["asize"] as? Int ?? 0
                infos.append(info)
            }
        }
        try walk(try XCTUnwrap(top.last), "", top: true)
        return (items, infos)
    }

    /// ncdu 1.18 (Debian) opens the export of every sample container, and what it reads is what
    /// was written: the same items with the same sizes, and the extended mode's mode and mtime.
    func testNcduOpensTheExportOfEverySample() throws {
        try Tool.require("ncdu", for: "reading the export back as ncdu -f does")
        let dir = try TempDir("ncdu")
        // The exit code: 1 for the misbehaving samples (findings at error), 0 for the others.
        let runs: [(String, [String], exit: Int32)] = [
            ("WellBehaved", ["WellBehaved"], 0),
            ("Misbehaving", ["Misbehaving"], 1),
            ("xcappdata", ["Example.xcappdata"], 0),
            ("archive", ["Example.xcappdata.tar.gz"], 0),
            (
                "device",
                [
                    "MisbehavingDevice", "--app", "com.example.misbehaving", "--app-group",
                    "group.com.example.misbehaving",
                ], 1
            ),
        ]
        for (name, arguments, exit) in runs {
            let export = dir.sub(name + ".json")
            let back = dir.sub(name + ".back.json")
            let r = try CLI.run(
                ["scan", Self.samples + "/" + arguments[0]] + arguments.dropFirst() + [
                    "--output", "ncdu=" + export, "--allow-incomplete",
                ])
            XCTAssertEqual(r.status, exit, "\(name): \(r.stderr)")
            let ncdu = try shell("ncdu -e -f '\(export)' -o '\(back)'", in: dir.path)
            XCTAssertEqual(ncdu.status, 0, "\(name): ncdu -f refused the export: \(ncdu.stderr)")
            let written = try flatten(try Data(contentsOf: URL(fileURLWithPath: export)))
            let read = try flatten(try Data(contentsOf: URL(fileURLWithPath: back)))
            XCTAssertEqual(read.items, written.items, name)
            XCTAssertGreaterThan(written.items.count, 8, name)
            for info in read.infos where info["asize"] as? Int ?? 0 > 0 {
                XCTAssertNotNil(info["mode"], "\(name): \(info)")
                XCTAssertNotNil(info["mtime"], "\(name): \(info)")
            }
            // The inventory lists the same entries (the device: one folder per backup domain).
            let inventory = try CLI.run(["inventory", Self.samples + "/" + arguments[0]] + arguments.dropFirst())
            let entries = inventory.stdout.split(separator: "\n").count
            let domains = name == "device" ? 3 : 0
            XCTAssertEqual(written.infos.count, entries + domains, name)
        }
    }

    /// An app of several containers: one folder per backup domain under one top folder.
    func testSeveralDomainsAreOneFolderEach() throws {
        let r = try CLI.run([
            "scan", Self.samples + "/MisbehavingDevice", "--app", "com.example.misbehaving",
            "--app-group", "group.com.example.misbehaving", "--format", "ncdu", "--allow-incomplete",
        ])
        let top = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutBytes) as? [Any], r.stderr)
        let root = try XCTUnwrap(top.last as? [Any])
        XCTAssertEqual(
            (root.first as? [String: Any])?["name"] as? String, "/app com.example.misbehaving (3 backup domains)")
        let names = root.dropFirst().compactMap { (($0 as? [Any])?.first as? [String: Any])?["name"] as? String }
        XCTAssertEqual(
            names,
            [
                "AppDomain-com.example.misbehaving", "AppDomainPlugin-com.example.misbehaving.NotificationService",
                "AppDomainGroup-group.com.example.misbehaving",
            ])
    }

    /// A folder the scan could not open carries `read_error`, and ncdu keeps it.
    func testAFolderThatCannotBeReadCarriesReadError() throws {
        try Tool.require("setpriv", for: "dropping root so that a folder cannot be opened")
        let dir = try TempDir("ncdu")
        let root = dir.sub("container")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/Private/secret.bin", size: 100)
        try Fixture.file(root + "/Documents/readable.txt", size: 10)
        chmod(root + "/Documents/Private", 0)
        let r = try CLI.run(["scan", root, "--format", "ncdu", "--allow-incomplete"], asNobody: true)
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = try flatten(r.stdoutBytes)
        let privateInfo = try XCTUnwrap(written.infos.first { $0["name"] as? String == "Private" })
        XCTAssertEqual(privateInfo["read_error"] as? Bool, true)
        XCTAssertEqual(written.infos.filter { $0["read_error"] != nil }.count, 1)
        XCTAssertNil(written.items["Documents/Private/secret.bin"])
        try Fixture.bytes(dir.sub("export.json"), Array(r.stdoutBytes))
        guard Tool.find("ncdu") != nil else { return }
        let ncdu = try shell("ncdu -e -f export.json -o back.json", in: dir.path)
        XCTAssertEqual(ncdu.status, 0, ncdu.stderr)
        let back = try flatten(try Data(contentsOf: URL(fileURLWithPath: dir.sub("back.json"))))
        XCTAssertEqual(back.infos.first { $0["name"] as? String == "Private" }?["read_error"] as? Bool, true)
    }
}
