import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// One incompleteness contract for every command that reads an input: `scan`, `inventory` and
/// `simulate` show the same banner, carry `complete` and `missed` in JSON (inventory: `notRead`
/// on the lines of entries not read in full), and exit 1 unless `--allow-incomplete`.
final class IncompleteCommandsTests: XCTestCase {
    var asNobody: Bool { geteuid() == 0 }

    func run(_ args: [String]) throws -> CLI.Result { try CLI.run(args, asNobody: asNobody) }

    /// The three commands on one input: the same exit code and the same banner, then each
    /// command's marker; `--allow-incomplete` accepts it in all three.
    func checkAllThree(_ root: String, missedPath: String, marked: String, what: String) throws {
        let banner = "INCOMPLETE SCAN: 1 item could not be read"
        let scan = try run(["scan", root])
        XCTAssertEqual(scan.status, 1, scan.stdout + scan.stderr)
        XCTAssertTrue(scan.stdout.contains(banner), scan.stdout)

        let inventory = try run(["inventory", root])
        XCTAssertEqual(inventory.status, 1, inventory.stderr)
        XCTAssertTrue(inventory.stderr.hasPrefix(banner), inventory.stderr)
        XCTAssertTrue(inventory.stderr.contains("not read: \(missedPath): \(what)"), inventory.stderr)
        var notRead: [String: String] = [:]
        for line in inventory.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            if let n = o["notRead"] as? String { notRead[o["path"] as! String] = n }
        }
        XCTAssertEqual(Array(notRead.keys), [marked], "\(notRead)")
        XCTAssertTrue(notRead[marked]?.hasPrefix(what) ?? false, "\(notRead)")

        let simulate = try run(["simulate", "restore", root])
        XCTAssertEqual(simulate.status, 1, simulate.stdout + simulate.stderr)
        XCTAssertTrue(simulate.stdout.hasPrefix(banner), simulate.stdout)
        XCTAssertTrue(simulate.stdout.contains("not read: \(missedPath): \(what)"), simulate.stdout)
        XCTAssertFalse(simulate.stdout.contains("policy-protected data are lost\n"), simulate.stdout)
        // The figures follow the banner: what could be read.
        XCTAssertTrue(simulate.stdout.contains("after a restore from backup onto a new device"), simulate.stdout)
        XCTAssertTrue(simulate.stdout.contains("\ntotal "), simulate.stdout)
        let simulateJSON = try run(["simulate", "restore", root, "--format", "json"])
        XCTAssertEqual(simulateJSON.status, 1)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: simulateJSON.stdoutBytes) as? [String: Any])
        XCTAssertEqual(json["complete"] as? Bool, false)
        XCTAssertEqual((json["missed"] as? [[String: Any]])?.map { $0["path"] as? String }, [missedPath])
        XCTAssertEqual((json["missed"] as? [[String: Any]])?.first?["what"] as? String, what)

        for args in [["scan", root], ["inventory", root], ["simulate", "restore", root]] {
            let accepted = try run(args + ["--allow-incomplete"])
            XCTAssertEqual(accepted.status, 0, "\(args[0]) --allow-incomplete: \(accepted.stderr)")
            XCTAssertTrue(
                (accepted.stdout + accepted.stderr).contains(banner), "\(args[0]) --allow-incomplete hides the banner")
        }
    }

    /// `Library/Application Support` unreadable to the user running the commands.
    func testAnUnreadableFolderIsIncompleteInScanInventoryAndSimulate() throws {
        if asNobody { try Tool.require("setpriv", for: "runs the commands as a user other than root") }
        let dir = try TempDir("incomplete-commands")
        chmod(dir.path, 0o755)
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 2_000)
        try Fixture.bytes(root + "/Library/Application Support/store.sqlite", VolatileStore.sampleSQLiteFile)
        let complete = try run(["simulate", "restore", root, "--format", "json"])
        XCTAssertEqual(complete.status, 0, complete.stderr)
        XCTAssertEqual(
            (try JSONSerialization.jsonObject(with: complete.stdoutBytes) as? [String: Any])?["complete"] as? Bool, true
        )
        XCTAssertEqual(try run(["inventory", root]).stderr, "")

        chmod(root + "/Library/Application Support", asNobody ? 0o700 : 0o000)
        defer { chmod(root + "/Library/Application Support", 0o755) }
        try checkAllThree(
            root, missedPath: "Library/Application Support", marked: "Library/Application Support",
            what: "open directory")
    }

    /// A `._` sidecar cut short: its item's attributes were not read.
    func testATruncatedSidecarIsIncompleteInScanInventoryAndSimulate() throws {
        let dir = try TempDir("incomplete-sidecar")
        chmod(dir.path, 0o755)
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/Recipes.pdf", size: 4096)
        try Fixture.bytes(root + "/Documents/._Recipes.pdf", [0, 5, 22, 7, 0, 2] + [UInt8](repeating: 0, count: 14))
        let scan = try CLI.scanJSON([root])
        let missed = try XCTUnwrap((scan.json["missed"] as? [[String: Any]])?.first)
        try checkAllThree(
            root, missedPath: "Documents/._Recipes.pdf", marked: "Documents/Recipes.pdf",
            what: missed["what"] as! String)
    }
}
