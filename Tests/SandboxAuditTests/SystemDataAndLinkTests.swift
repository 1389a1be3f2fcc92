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

/// What MobileBackup does with SystemData, with symlinks and with hard links, and what
/// `simulate --into` writes of them: real containers, real attributes.
final class SystemDataAndLinkTests: XCTestCase {
    let exclude = BackupAttribute.canonicalValue

    /// SystemData in an App Group container is backed up (from the group's root) except the two
    /// skips; in an app's container it is the system's: null verdicts, and a restore does not
    /// bring it back.
    func testSystemDataInAGroupAndInAnApp() throws {
        let dir = try TempDir("systemdata")
        for name in ["Group", "App"] {
            try Fixture.container(at: dir.sub(name))
            try Fixture.file(dir.sub(name + "/SystemData/com.apple.SafariViewService/state.plist"), size: 40)
            try Fixture.file(dir.sub(name + "/SystemData/com.apple.chrono/timeline.db"), size: 50)
            try Fixture.file(dir.sub(name + "/SystemData/com.apple.AuthenticationServices/a.plist"), size: 60)
            try Fixture.file(dir.sub(name + "/Documents/d.txt"), size: 7)
        }
        let group = try Audit.inventory(of: dir.sub("Group"), role: .group)
        func verdicts(_ inv: Inventory, _ path: String) -> [Bool?] {
            guard let e = inv.entry(at: ContainerPath(path)) else {
                XCTFail("\(path) missing")
                return []
            }
            return [e.backedUp, e.survivesRestore, e.survivesUpdate]
        }
        XCTAssertEqual(verdicts(group, "SystemData/com.apple.SafariViewService/state.plist"), [true, true, true])
        XCTAssertEqual(verdicts(group, "SystemData/com.apple.chrono/timeline.db"), [false, false, true])
        XCTAssertEqual(verdicts(group, "SystemData/com.apple.AuthenticationServices/a.plist"), [false, false, true])
        XCTAssertEqual(group.backupFootprint, 40 + 7)
        let app = try Audit.inventory(of: dir.sub("App"))
        XCTAssertEqual(verdicts(app, "SystemData/com.apple.SafariViewService/state.plist"), [nil, nil, nil])
        XCTAssertEqual(app.backupFootprint, 7)

        // A restore writes none of an app's SystemData, and only the group's backed-up part.
        for (name, role, kept) in [
            ("App", ContainerRole.app, [String]()),
            ("Group", .group, ["SystemData/com.apple.SafariViewService/state.plist"]),
        ] {
            let r = try CLI.run([
                "simulate", "restore", dir.sub(name), "--kind", role.rawValue, "--into", dir.sub(name + "-restored"),
                "--verify",
            ])
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
            let written = try CLI.inventory(dir.sub(name + "-restored")).entries.keys.filter {
                $0.hasPrefix("SystemData/") && !$0.hasSuffix("/")
            }
            XCTAssertEqual(written.filter { $0.hasSuffix(".plist") || $0.hasSuffix(".db") }.sorted(), kept, name)
        }
    }

    /// An excluded data root: system entries still have no verdicts, `excludedBy` null.
    func testSystemEntriesHaveNoExcludedByUnderAnExcludedRoot() throws {
        let dir = try TempDir("sysexcl")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/SystemData/state"), size: 16)
        try Fixture.file(dir.sub("App/Documents/d.txt"), size: 7)
        try BackupMarker.set(.exclude, value: exclude, on: dir.sub("App"), carrier: .native)
        let entries = try CLI.inventory(dir.sub("App")).entries
        XCTAssertTrue(entries["SystemData/state"]?["excludedBy"] is NSNull, "\(entries["SystemData/state"] ?? [:])")
        XCTAssertTrue(entries["SystemData"]?["excludedBy"] is NSNull)
        XCTAssertEqual(entries["Documents/d.txt"]?["excludedBy"] as? String, ".")
    }

    /// A symlink adds 0 bytes to the footprint, as a real backup records it; a symlink the
    /// backup holds as a folder is a mismatch, with its why.
    func testSymlinksCountNothingAndKindsAreCompared() throws {
        let dir = try TempDir("symlinks")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/notes.txt"), size: 100)
        try FileManager.default.createSymbolicLink(
            atPath: dir.sub("App/Documents/latest"), withDestinationPath: "a/long/target/of/forty/bytes/notes.txt")
        let inv = try Audit.inventory(of: dir.sub("App"))
        XCTAssertEqual(inv.backupFootprint, 100)
        XCTAssertEqual(inv.total.size, 100)
        XCTAssertEqual(inv.entry(at: ContainerPath("Documents/latest"))?.countedSize, 0)

        let held: [RuleExample.Item] = [
            .directory("Documents"), .file("Documents/notes.txt", size: 100), .directory("Documents/latest"),
            .directory("Library"), .directory("Library/Application Support"), .directory("Library/Preferences"),
        ]
        let app = ExampleObservations.app
        let c = BackupComparison(
            prediction: try Audit.inventories(of: dir.sub("App"), ContainerSelection(app: app)),
            backup: [try ExampleObservations.backupSide(held, at: dir.sub("backup"))], folder: "BACKUP", app: app)
        let m = c.mismatches.first { $0.path == ContainerPath("Documents/latest") }
        XCTAssertEqual(m?.kind, .kindDiffers, c.mismatches.map(\.line).joined(separator: "\n"))
        XCTAssertEqual(
            m?.line,
            "a directory in the backup, a symlink in the container: Documents is backed up and no exclude attribute "
                + "covers it; the item was replaced by another kind between the backup and the copy scanned"
        )
    }

    /// A `._` sidecar excluding one name of a hard-linked file: the attribute is the file's, so
    /// every name of it is excluded, and `simulate --into --verify` agrees with its own output.
    func testASidecarOnOneNameOfAHardLinkExcludesTheFile() throws {
        let dir = try TempDir("linksidecar")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/a.bin"), size: 30)
        XCTAssertEqual(link(dir.sub("App/Documents/a.bin"), dir.sub("App/Library/b.bin")), 0)
        try BackupMarker.set(.exclude, value: exclude, on: dir.sub("App/Library/b.bin"), carrier: .sidecar)
        let inv = try Audit.inventory(of: dir.sub("App"))
        XCTAssertEqual(inv.entry(at: ContainerPath("Documents/a.bin"))?.excluded, true)
        XCTAssertEqual(inv.entry(at: ContainerPath("Library/b.bin"))?.excluded, true)
        for event in ["update", "restore"] {
            let r = try CLI.run(["simulate", event, dir.sub("App"), "--into", dir.sub("out-" + event), "--verify"])
            XCTAssertEqual(r.status, 0, "\(event): " + r.stdout + r.stderr)
        }
        // The same from a tar (GNU tar keeps the link and the sidecar as a member).
        try Tool.require("tar", for: "the archive is made with GNU tar")
        try sh("tar -C App -cf app.tar .", in: dir.path)
        let r = try CLI.run(["simulate", "update", dir.sub("app.tar"), "--into", dir.sub("out-tar"), "--verify"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
    }

    /// An inventory of 20,000 entries or more is classified in two halves, side by side: an
    /// excluded folder whose contents straddle the split still excludes all of them, and a
    /// hard-linked file with a name in each half counts once, at its first backed-up name, or at
    /// its first name when every name is backed up.
    func testExclusionAndHardLinksAcrossTheTwoHalves() throws {
        let dir = try TempDir("halves")
        let app = dir.sub("App")
        try Fixture.container(at: app)
        try Fixture.files(in: app + "/Documents/A", count: 12_000, size: 0)
        try Fixture.file(app + "/Documents/A/sub/deep.bin", size: 3)
        try Fixture.files(in: app + "/Documents/B", count: 10_000, size: 0)
        try BackupMarker.set(.exclude, value: exclude, on: app + "/Documents/A", carrier: .native)
        // One file excluded in the first half, backed up in the second; one backed up in both.
        try Fixture.file(app + "/Documents/A/0link", size: 1000)
        XCTAssertEqual(link(app + "/Documents/A/0link", app + "/Documents/B/link"), 0)
        try Fixture.file(app + "/Documents/0plain/hl", size: 500)
        XCTAssertEqual(link(app + "/Documents/0plain/hl", app + "/Documents/B/hl"), 0)

        let inv = try Audit.inventory(of: app)
        let n = inv.entries.count
        let half = n / 2
        XCTAssertGreaterThanOrEqual(n, 20_000)
        func position(_ path: String) throws -> Int { try XCTUnwrap(inv.index(of: ContainerPath(path)), path) }
        // The split falls inside A; its first-half and second-half names are as laid out.
        XCTAssertLessThan(try position("Documents/A/0link"), half)
        XCTAssertLessThan(try position("Documents/0plain/hl"), half)
        XCTAssertGreaterThanOrEqual(try position("Documents/A/sub/deep.bin"), half)
        XCTAssertGreaterThanOrEqual(try position("Documents/B/link"), half)

        for e in inv.entries where e.path.display.hasPrefix("Documents/") {
            let expected = e.path.display.hasPrefix("Documents/A") ? "Documents/A" : nil
            XCTAssertEqual(e.excludedBy?.display, expected, e.path.display)
        }
        func counts(_ path: String) -> Bool? { inv.entry(at: ContainerPath(path))?.countsInTotals }
        XCTAssertEqual(counts("Documents/A/0link"), false)
        XCTAssertEqual(counts("Documents/B/link"), true)
        XCTAssertEqual(counts("Documents/0plain/hl"), true)
        XCTAssertEqual(counts("Documents/B/hl"), false)
        XCTAssertEqual(inv.zoneTotals[.documents]?.size, 3 + 1000 + 500)
        XCTAssertEqual(inv.backupFootprint, 1000 + 500)
    }

    /// DIR taken by another entry between the check and the rename: the rename never replaces
    /// it (RENAME_NOREPLACE), nothing is claimed written, and what is there is left.
    func testTheRenameNeverReplacesWhatTookDIR() throws {
        let dir = try TempDir("noreplace")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/a.txt"), size: 5)
        let parent = try FileDescriptor.currentDirectory.openDirectory(dir.path.utf8)
        defer { parent.close() }
        try parent.makeDirectory(".tree".utf8, mode: 0o700)
        let id = try parent.status(of: ".tree".utf8).identity
        // Someone else's symlink at DIR's name.
        try FileManager.default.createSymbolicLink(atPath: dir.sub("out"), withDestinationPath: "/tmp")
        XCTAssertThrowsError(
            try Materializer.moveIntoPlace(".tree", as: "out", in: parent, dest: dir.sub("out"), id: id))
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: dir.sub("out")), "/tmp", "left as it was")
        // An empty folder at DIR is replaced, and DIR is then checked to be the tree.
        try FileManager.default.removeItem(atPath: dir.sub("out"))
        try FileManager.default.createDirectory(atPath: dir.sub("out"), withIntermediateDirectories: false)
        try Materializer.moveIntoPlace(".tree", as: "out", in: parent, dest: dir.sub("out"), id: id)
        XCTAssertEqual(try parent.status(of: "out".utf8).identity, id)
        // A tree whose name was exchanged for another folder: the rename happens, the check fails.
        try parent.makeDirectory("other".utf8, mode: 0o700)
        XCTAssertThrowsError(
            try Materializer.moveIntoPlace("other", as: "out2", in: parent, dest: dir.sub("out2"), id: id)
        ) { error in
            XCTAssertTrue("\(error)".contains("is not the tree this run wrote"), "\(error)")
        }
    }
}

/// An attribute the destination's file system refuses (macOS answers EPERM for
/// `com.apple.macl`; ext4 ENOSPC for a value larger than its attribute block): left out and
/// named, the copy goes on.
final class RefusedAttributeTests: XCTestCase {
    func testAnAttributeTheDestinationRefusesIsReportedNotFatal() throws {
        let shm = "/dev/shm/sa-refused-\(getpid())"
        guard mkdir(shm, 0o755) == 0 else { throw XCTSkip("no /dev/shm (tmpfs) to hold an 8 kB attribute value") }
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/rm"), arguments: ["-rf", shm]).waitUntilExit() }
        try Fixture.container(at: shm + "/App")
        try Fixture.file(shm + "/App/Documents/a.txt", size: 10)
        do {
            try XAttr.set(
                path: Array((shm + "/App/Documents/a.txt").utf8), name: "user.big",
                value: [UInt8](repeating: 0x78, count: 8000))
        } catch { throw XCTSkip("tmpfs here holds no user attributes: \(error)") }
        let dir = try TempDir("refused")
        // Only where the destination refuses it (ext4 does).
        let probe = dir.sub("probe")
        XCTAssertTrue(FileManager.default.createFile(atPath: probe, contents: Data()))
        if (try? XAttr.set(path: Array(probe.utf8), name: "user.big", value: [UInt8](repeating: 0x78, count: 8000)))
            != nil
        {
            throw XCTSkip("the temporary folder's file system holds an 8 kB attribute value: nothing is refused")
        }
        let r = try CLI.run(["simulate", "update", shm + "/App", "--into", dir.sub("out"), "--verify"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("attributes this file system refused: Documents/a.txt: user.big"), r.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.sub("out/Documents/a.txt")))
    }
}
