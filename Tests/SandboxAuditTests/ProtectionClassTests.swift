import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Data protection classes: carried from a real backup folder's `Manifest.db` onto the
/// inventory lines, counted per domain in every report, and absent (null, one note) for a
/// container.
final class ProtectionClassTests: XCTestCase {
    typealias T = BackupFolderTests

    /// A backup whose app domain holds every class, a number that is none of the four, and
    /// folders without a class (0), as real backups record them.
    static func backup() throws -> BackupBuilder {
        var b = try T.standard()
        b.file(T.appDomain, "Documents/a.bin", size: 10)
        b.file(T.appDomain, "Documents/b.bin", size: 20)
        b.file(T.appDomain, "Documents/c.bin", size: 30)
        b.file(T.appDomain, "Documents/d.bin", size: 40)
        b.file(T.appDomain, "Documents/e.bin", size: 50)
        let classes: [String: Int64] = [
            "Documents/a.bin": 1, "Documents/b.bin": 2, "Documents/c.bin": 3, "Documents/d.bin": 4,
            "Documents/e.bin": 7,
        ]
        for i in b.items.indices {
            if let c = classes[b.items[i].relativePath] { b.items[i].protectionClass = c }
            if b.items[i].flags == BackupBuilder.Flags.directory.rawValue { b.items[i].protectionClass = 0 }
        }
        return b
    }

    func testInventoryCarriesTheClassManifestDBRecords() throws {
        let dir = try TempDir("protection")
        let builder = try Self.backup()
        try builder.write(to: dir.sub("B"))
        let r = try CLI.run(["inventory", dir.sub("B"), "--app", T.app])
        XCTAssertEqual(r.status, 0, r.stderr)
        var got: [String: String] = [:]
        for line in r.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            XCTAssertTrue(o.keys.contains("protectionClass"), "\(o)")
            got["\(o["domain"]!) \(o["path"]!)"] = (o["protectionClass"] as? String) ?? "null"
        }
        let names: [Int64: String] = [
            0: "null", 1: "complete", 2: "completeUnlessOpen", 3: "completeUntilFirstUserAuthentication", 4: "none",
            7: "completeWhenUserInactive",
        ]
        var expected: [String: String] = [:]
        for item in builder.items
        where [T.appDomain, T.pluginDomain].contains(item.domain) && !item.relativePath.isEmpty {
            expected["\(item.domain) \(item.relativePath)"] = names[item.protectionClass]
        }
        XCTAssertEqual(got, expected)
        XCTAssertEqual(got["\(T.appDomain) Documents/a.bin"], "complete")
        XCTAssertEqual(got["\(T.appDomain) Documents/e.bin"], "completeWhenUserInactive")
        XCTAssertEqual(got["\(T.appDomain) Documents"], "null")
    }

    /// Class 7 is `completeWhenUserInactive` (iOS 17: the kernel's PROTECTION_CLASS_CX); a
    /// number that is none of the named classes is `class N`, listed after them, a negative one
    /// last (it used to sort first).
    func testClassSevenIsNamedAndANegativeClassSortsAfterTheOthers() throws {
        let dir = try TempDir("protection")
        var b = try Self.backup()
        b.file(T.appDomain, "Documents/f.bin", size: 60)
        b.file(T.appDomain, "Documents/g.bin", size: 70)
        for i in b.items.indices where b.items[i].relativePath == "Documents/f.bin" { b.items[i].protectionClass = -1 }
        for i in b.items.indices where b.items[i].relativePath == "Documents/g.bin" { b.items[i].protectionClass = 9 }
        try b.write(to: dir.sub("B"))
        let inventories = try Audit.inventories(of: dir.sub("B"), ContainerSelection(app: T.app))
        let census = try XCTUnwrap(ProtectionCensus(inventories[0]))
        XCTAssertEqual(
            census.rows.map(\.label),
            [
                "complete", "completeUnlessOpen", "completeUntilFirstUserAuthentication", "none",
                "completeWhenUserInactive", "class 9", "class -1", "not recorded",
            ])
        XCTAssertEqual(ProtectionClass.completeWhenUserInactive.name, "completeWhenUserInactive")
        XCTAssertNil(ProtectionClass.completeWhenUserInactive.strength)
        let text = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--color", "never"]).stdout
        XCTAssertTrue(text.contains("completeWhenUserInactive"), text)
        XCTAssertFalse(text.contains("class 7"), text)
    }

    /// The census of each domain adds up to that domain's inventory lines, class by class.
    func testCensusAddsUpToTheInventory() throws {
        let dir = try TempDir("protection")
        try Self.backup().write(to: dir.sub("B"))
        let (json, r) = try CLI.scanJSON([dir.sub("B"), "--app", T.app])
        XCTAssertEqual(r.status, 0, r.stderr)
        let inventory = try CLI.run(["inventory", dir.sub("B"), "--app", T.app])
        struct Tally: Equatable { var entries = 0, files = 0, size: Int64 = 0 }
        var fromLines: [String: [String: Tally]] = [:]
        for line in inventory.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            let c = (o["protectionClass"] as? String) ?? "null"
            var t = fromLines[o["domain"] as! String, default: [:]][c] ?? Tally()
            t.entries += 1
            if o["kind"] as? String == "file" {
                t.files += 1
                t.size += (o["size"] as! NSNumber).int64Value
            }
            fromLines[o["domain"] as! String, default: [:]][c] = t
        }
        var fromCensus: [String: [String: Tally]] = [:]
        for d in try XCTUnwrap(json["domains"] as? [[String: Any]]) {
            for row in try XCTUnwrap(d["protection"] as? [[String: Any]]) {
                fromCensus[d["domain"] as! String, default: [:]][(row["protectionClass"] as? String) ?? "null"] = Tally(
                    entries: (row["entries"] as! NSNumber).intValue, files: (row["files"] as! NSNumber).intValue,
                    size: (row["size"] as! NSNumber).int64Value)
            }
        }
        XCTAssertEqual(fromCensus.keys.sorted(), [T.appDomain, T.pluginDomain])
        XCTAssertEqual(fromCensus, fromLines)
        XCTAssertEqual(fromCensus[T.appDomain]?["complete"], Tally(entries: 1, files: 1, size: 10))
        let protection = try XCTUnwrap(json["protection"] as? [String: Any])
        XCTAssertEqual(protection["observable"] as? Bool, true)
        XCTAssertTrue(protection["note"] is NSNull)
        // Every format that lays out sections shows it.
        for format in ["text", "markdown", "html"] {
            let out = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", format, "--color", "never"]).stdout
            XCTAssertTrue(out.contains("completeUntilFirstUserAuthentication"), format)
            XCTAssertTrue(out.contains("completeWhenUserInactive"), format)
        }
        let sarif = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", "sarif"]).stdout
        XCTAssertTrue(sarif.contains("\"protection\""), sarif)
        let junit = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", "junit"]).stdout
        XCTAssertTrue(
            junit.contains(
                "<property name=\"protection \(T.appDomain) complete\" value=\"1 files, 10 bytes (1 entries)\"/>"),
            junit)
        XCTAssertTrue(
            junit.contains(
                "<property name=\"protection \(T.appDomain) completeWhenUserInactive\" value=\"1 files, 50 bytes (1 "
                    + "entries)\"/>"
            ), junit)
    }

    /// A container cannot show classes: null on every line, and one note in each format.
    func testContainerHasNullClassesAndOneNote() throws {
        let dir = try TempDir("protection")
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Documents/a.txt"), size: 10)
        let (entries, _, r) = try CLI.inventory(dir.path)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(entries.isEmpty)
        for (path, o) in entries { XCTAssertTrue(o["protectionClass"] is NSNull, path) }
        let (json, _) = try CLI.scanJSON([dir.path])
        for d in try XCTUnwrap(json["domains"] as? [[String: Any]]) { XCTAssertTrue(d["protection"] is NSNull) }
        let protection = try XCTUnwrap(json["protection"] as? [String: Any])
        XCTAssertEqual(protection["observable"] as? Bool, false)
        XCTAssertEqual(protection["note"] as? String, ProtectionReport.notObservable)
        for format in ["text", "markdown", "html", "junit"] {
            let out = try CLI.run(["scan", dir.path, "--format", format, "--color", "never"]).stdout
            XCTAssertEqual(out.components(separatedBy: "only a device backup records them").count, 2, format)
        }
    }
}

extension ProtectionClassTests {
    func testPolicyProtectionSectionIsReadCheckedAndRendered() throws {
        let policy = try PolicyFile.parse(
            "protection:\n  \"Documents/Private\": complete\n  \"**/*.sqlite\": none\n", source: "p.yml")
        XCTAssertEqual(policy.protection.map(\.glob.pattern), ["Documents/Private", "**/*.sqlite"])
        XCTAssertEqual(policy.protection.map(\.weakest), [.complete, .none])
        // config show's text loads back to the same requirements.
        let again = try PolicyFile.parse(PolicyFile.render(policy), source: "rendered")
        XCTAssertEqual(again.protection.map(\.weakest), [.complete, .none])
        XCTAssertEqual(again.protection.map(\.glob.pattern), ["Documents/Private", "**/*.sqlite"])
        XCTAssertThrowsError(try PolicyFile.parse("protection:\n  \"Documents\": compete\n", source: "p.yml")) {
            error in
            XCTAssertEqual(
                "\(error)",
                "p.yml:2:16: protection.Documents: 'compete' is not a data protection class; did you mean "
                    + "'complete'? (valid: complete, completeUnlessOpen, completeUntilFirstUserAuthentication, none)"
            )
        }
    }

    func testClassesCompareByStrength() {
        XCTAssertTrue(ProtectionClass.none.isWeaker(than: .completeUntilFirstUserAuthentication))
        XCTAssertTrue(ProtectionClass.completeUntilFirstUserAuthentication.isWeaker(than: .completeUnlessOpen))
        XCTAssertFalse(ProtectionClass.complete.isWeaker(than: .none))
        XCTAssertFalse(ProtectionClass(recorded: 7)!.isWeaker(than: .complete))
        XCTAssertNil(ProtectionClass(recorded: 0))
        XCTAssertNil(ProtectionClass(recorded: nil))
    }
}
