import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditMeasure
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// `--format app-review` (App Review's measurement) and `--format metrics` (MetricKit's terms):
/// their figures against the inventory's own, on a container the test writes as an app's first
/// launch leaves it.
final class AppReviewMetricsTests: XCTestCase {
    static let app = "com.example.firstlaunch"

    /// A container as a first launch and an onboarding download leave it: UserDefaults, a
    /// downloaded catalogue in Application Support, onboarding images in Documents, an SDK's
    /// queue, image caches and a temporary file (not backed up), an excluded offline pack, a
    /// hard-linked file (counted once) and a symlink.
    static func firstLaunch(at root: String) throws {
        try Fixture.container(at: root)
        try Fixture.bytes(
            root + "/.com.apple.mobile_container_manager.metadata.plist",
            Array(
                try PropertyListSerialization.data(
                    fromPropertyList: ["MCMMetadataIdentifier": app], format: .xml, options: 0)))
        try Fixture.plist(
            root + "/Library/Preferences/\(app).plist", keys: [("onboardingSeen", 20), ("remoteConfig", 180_000)])
        try Fixture.file(root + "/Library/Application Support/Catalog/catalog.sqlite", size: 5_242_880)
        try Fixture.file(root + "/Library/Application Support/Catalog/catalog.sqlite-wal", size: 1_048_576)
        try Fixture.file(root + "/Library/Application Support/Catalog/thumbs/1.jpg", size: 300_000)
        try Fixture.files(in: root + "/Documents/Onboarding", count: 4, size: 450_000)
        try Fixture.file(root + "/Documents/Onboarding/deep/video/intro.mp4", size: 2_000_000)
        try Fixture.file(
            root + "/Library/Application Support/com.bugsnag.Bugsnag/\(app)/v1/events/1.json", size: 12_000)
        try Fixture.file(root + "/Library/Application Support/amplitude/default_instance-events/0", size: 40_000)
        try Fixture.files(in: root + "/Library/Caches/images", count: 3, size: 700_000)
        try Fixture.file(root + "/tmp/download.part", size: 900_000)
        try Fixture.file(root + "/Library/Application Support/OfflinePack/pack.bin", size: 8_000_000)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/OfflinePack",
            carrier: .native)
        try Fixture.bytes(root + "/Documents/notes.txt", Array(repeating: UInt8(ascii: "n"), count: 5_000))
        XCTAssertEqual(link(root + "/Documents/notes.txt", root + "/Documents/notes-link.txt"), 0)
        try FileManager.default.createSymbolicLink(
            atPath: root + "/Documents/latest", withDestinationPath: "Onboarding/file-00000")
    }

    /// The entries of `inventory`, each line parsed.
    func inventoryLines(_ arguments: [String]) throws -> [[String: Any]] {
        let r = try CLI.run(["inventory"] + arguments)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try r.stdoutBytes.split(separator: UInt8(ascii: "\n")).map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }
    }

    /// A place as the report groups it: two components below the root, three under Library.
    static func place(_ path: String) -> (path: String, isFolder: Bool) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let depth = parts.first == "Library" ? 3 : 2
        return parts.count > depth ? (parts.prefix(depth).joined(separator: "/"), true) : (path, false)
    }

    /// The report's sentence states the backed-up total of the inventory; its places and owners
    /// are the inventory's backed-up files grouped, largest first, with the same bytes and files.
    func testAppReviewStatesTheInventorysBackedUpTotalPlacesAndOwners() throws {
        let dir = try TempDir("appreview")
        let root = dir.sub("Data")
        try Self.firstLaunch(at: root)
        let lines = try inventoryLines([root])
        let backed = lines.filter {
            $0["backedUp"] as? Bool == true && $0["countsInTotals"] as? Bool == true && $0["kind"] as? String == "file"
        }
        let total = backed.reduce(0) { $0 + ($1["size"] as! Int) }
        XCTAssertGreaterThan(total, 9_000_000, "the fixture backs up the catalogue and the onboarding files")
        // The excluded pack, the caches, tmp and the second link are not in it.
        XCTAssertFalse(backed.contains { ($0["path"] as! String).hasPrefix("Library/Application Support/OfflinePack") })
        XCTAssertFalse(
            backed.contains {
                ($0["path"] as! String).hasPrefix("Library/Caches") || ($0["path"] as! String).hasPrefix("tmp")
            })
        XCTAssertEqual(backed.filter { ($0["path"] as! String).hasPrefix("Documents/notes") }.count, 1)

        var places: [String: (bytes: Int, files: Int, owner: String?)] = [:]
        var owners: [String: (bytes: Int, files: Int)] = [:]
        for e in backed {
            let p = Self.place(e["path"] as! String)
            let owner = e["owner"] as? String
            let key = (p.path + (p.isFolder ? "/" : "")) + "\u{0}" + (owner ?? "")
            let old = places[key] ?? (0, 0, owner)
            places[key] = (old.bytes + (e["size"] as! Int), old.files + 1, owner)
            let o = owners[owner ?? "no owner"] ?? (0, 0)
            owners[owner ?? "no owner"] = (o.bytes + (e["size"] as! Int), o.files + 1)
        }
        XCTAssertGreaterThanOrEqual(owners.count, 3, "the fixture has SDK-owned and unowned backed-up files: \(owners)")

        let r = try CLI.run(["scan", root, "--format", "app-review", "--fail-on", "error"])
        XCTAssertEqual(r.status, 0, r.stderr)  // no finding of the first launch is an error
        let md = r.stdout
        XCTAssertTrue(
            md.contains(
                "**On launch and content download, your app stores \(ByteSize.format(Int64(total)))** "
                    + "(\(groupedDigits(Int64(total))) bytes in \(backed.count) files) in the backup"
            ), md)
        XCTAssertFalse(md.contains("INCOMPLETE SCAN"))

        // The places table, row by row, is the inventory's grouping, largest first.
        let rows = md.split(separator: "\n").drop { !$0.hasPrefix("| Backed up | Files | Path |") }.dropFirst(2).prefix
        { $0.hasPrefix("|") }
        XCTAssertEqual(rows.count, min(places.count, AppReviewReport.shownPlaces))
        let expected = places.sorted {
            $0.value.bytes != $1.value.bytes ? $0.value.bytes > $1.value.bytes : $0.key < $1.key
        }
        for (row, (key, value)) in zip(rows, expected) {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let path = String(key.split(separator: "\u{0}", omittingEmptySubsequences: false)[0])
            XCTAssertEqual(cells[0], ByteSize.format(Int64(value.bytes)), String(row))
            XCTAssertEqual(cells[1], String(value.files), String(row))
            XCTAssertEqual(cells[2], "`\(path)`", String(row))
            if let owner = value.owner {
                XCTAssertTrue(cells[3].hasPrefix(MarkdownReport.cell(owner)), "\(row): owner \(owner)")
            } else {
                XCTAssertEqual(cells[3], "no owner")
            }
            XCTAssertFalse(cells[4].isEmpty, "every place says what to do: \(row)")
        }
        // The largest place is the catalogue, and it is told to exclude or move.
        XCTAssertTrue(rows.first?.contains("`Library/Application Support/Catalog/`") == true, String(rows.first ?? ""))
        XCTAssertTrue(rows.first?.contains("isExcludedFromBackup") == true)

        // The owners table: every owner's backed-up bytes and files.
        let ownerRows = md.split(separator: "\n").drop { !$0.hasPrefix("| Owner | Kind | Files | Backed up |") }
            .dropFirst(2).prefix { $0.hasPrefix("|") }
        XCTAssertEqual(ownerRows.count, owners.count)
        for row in ownerRows {
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let name = try XCTUnwrap(
                owners.keys.first { $0 == "no owner" ? cells[1] == "no owner" : cells[1] == MarkdownReport.cell($0) },
                String(row))
            XCTAssertEqual(cells[3], String(owners[name]!.files), String(row))
            XCTAssertEqual(cells[4], ByteSize.format(Int64(owners[name]!.bytes)), String(row))
        }

        // The library agrees with the inventory to the byte, and with the JSON report's footprint.
        let result = try audit(root)
        let m = AppReviewMeasurement(result.inventories, owners: result.context.owners)
        XCTAssertEqual(m.bytes, Int64(total))
        XCTAssertEqual(m.bytes, result.backupFootprint)
        XCTAssertEqual(m.files, backed.count)
        XCTAssertEqual(m.places.reduce(Int64(0)) { $0 + $1.bytes }, Int64(total))
        XCTAssertEqual(m.owners.reduce(Int64(0)) { $0 + $1.bytes }, Int64(total))
        XCTAssertEqual(
            Dictionary(uniqueKeysWithValues: m.owners.map { ($0.owner ?? "no owner", Int($0.bytes)) }),
            owners.mapValues(\.bytes))
        let totals = try XCTUnwrap(try CLI.scanJSON([root]).json["totals"] as? [String: Any])
        XCTAssertEqual(totals["backupFootprint"] as? Int, total)
    }

    /// An app of several containers: the sentence is over every backup domain, and each domain's
    /// share is the inventory's.
    func testAppReviewSumsEveryDomain() throws {
        let devices = NcduExportTests.samples + "/MisbehavingDevice"
        let args = [devices, "--app", "com.example.misbehaving", "--app-group", "group.com.example.misbehaving"]
        let lines = try inventoryLines(args + ["--allow-incomplete"])
        var byDomain: [String: Int] = [:]
        for e in lines
        where e["backedUp"] as? Bool == true && e["countsInTotals"] as? Bool == true && e["kind"] as? String == "file" {
            byDomain[e["domain"] as! String, default: 0] += e["size"] as! Int
        }
        XCTAssertEqual(byDomain.count, 3)
        let r = try CLI.run(["scan"] + args + ["--format", "app-review", "--allow-incomplete"])
        XCTAssertEqual(r.status, 1, r.stderr)  // the misbehaving sample has findings at error
        let total = byDomain.values.reduce(0, +)
        XCTAssertTrue(
            r.stdout.contains(
                "your app stores \(ByteSize.format(Int64(total)))** (\(groupedDigits(Int64(total))) bytes"), r.stdout)
        XCTAssertTrue(r.stdout.contains("over its 3 backup domains"))
        for (domain, bytes) in byDomain {
            XCTAssertTrue(
                r.stdout.contains("| \(MarkdownReport.cell(domain)) | ")
                    && r.stdout.contains(" | \(ByteSize.format(Int64(bytes))) |"), "\(domain): \(r.stdout)")
        }
    }

    /// Nothing backed up: the sentence says 0 B, and no table pretends otherwise.
    func testNothingBackedUp() throws {
        let dir = try TempDir("appreview0")
        let root = dir.sub("Data")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Caches/a", size: 10_000)
        let r = try CLI.run(["scan", root, "--format", "app-review"])
        XCTAssertTrue(r.stdout.contains("your app stores 0 B** (0 bytes in 0 files) in the backup"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Nothing is backed up"))
        XCTAssertFalse(r.stdout.contains("| Backed up | Files | Path |"))
    }

    /// The metrics object: MetricKit's figures and the backup's, each the inventory's own sum.
    func testMetricsAreTheInventorysFigures() throws {
        let dir = try TempDir("metrics")
        let root = dir.sub("Data")
        try Self.firstLaunch(at: root)
        let lines = try inventoryLines([root])
        let files = lines.filter {
            $0["kind"] as? String == "file" && $0["countsInTotals"] as? Bool == true
                && $0["zone"] as? String != "system"
        }
        func sum(_ rows: [[String: Any]], _ key: String) -> Int { rows.reduce(0) { $0 + ($1[key] as! Int) } }
        let caches = files.filter { $0["zone"] as? String == "caches" }

        let r = try CLI.run(["scan", root, "--format", "metrics"])
        XCTAssertEqual(r.status, 0, r.stderr)  // no finding of the first launch is an error
        let m = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any], r.stdout)
        XCTAssertEqual(m["schemaVersion"] as? Int, 1)
        XCTAssertEqual(m["bundleIdentifier"] as? String, Self.app)
        XCTAssertEqual(m["domains"] as? Int, 1)
        XCTAssertEqual(m["complete"] as? Bool, true)
        XCTAssertEqual(m["totalDataFileCount"] as? Int, files.count)
        XCTAssertEqual(m["totalDataFileSize"] as? Int, sum(files, "allocated"))
        XCTAssertEqual(m["dataFileContentSize"] as? Int, sum(files, "size"))
        XCTAssertEqual(m["totalCacheFolderSize"] as? Int, sum(caches, "allocated"))
        XCTAssertEqual(m["cacheFolderContentSize"] as? Int, sum(caches, "size"))
        XCTAssertEqual(m["cacheFileCount"] as? Int, caches.count)
        XCTAssertEqual(caches.count, 3)
        let backed = files.filter { $0["backedUp"] as? Bool == true }
        XCTAssertEqual(m["backupSize"] as? Int, sum(backed, "size"))
        XCTAssertEqual(m["backupFileCount"] as? Int, backed.count)
        XCTAssertEqual(m["excludedSize"] as? Int, sum(files.filter { $0["excluded"] as? Bool == true }, "size"))
        XCTAssertEqual(
            m["keptOnUpdateSize"] as? Int, sum(files.filter { $0["survivesUpdate"] as? Bool == true }, "size"))
        XCTAssertEqual(
            m["keptOnRestoreSize"] as? Int, sum(files.filter { $0["survivesRestore"] as? Bool == true }, "size"))
        XCTAssertEqual(m["excludedSize"] as? Int, 8_000_000)
        // What no input gives is null and named, never a guess.
        for name in ["totalCloneSize", "totalBinaryFileSize", "totalBinaryFileCount"] {
            XCTAssertTrue(m[name] is NSNull, name)
        }
        XCTAssertEqual(
            m["notMeasured"] as? [String], ["totalCloneSize", "totalBinaryFileSize", "totalBinaryFileCount"])
        // Flat: no value is an object, and only notMeasured is a list.
        for (k, v) in m where k != "notMeasured" { XCTAssertFalse(v is [Any] || v is [String: Any], k) }
        // The same figures as the JSON report.
        let totals = try XCTUnwrap(try CLI.scanJSON([root]).json["totals"] as? [String: Any])
        XCTAssertEqual(m["backupSize"] as? Int, totals["backupFootprint"] as? Int)
        XCTAssertEqual(m["keptOnUpdateSize"] as? Int, totals["keptOnUpdate"] as? Int)
        XCTAssertEqual(m["keptOnRestoreSize"] as? Int, totals["keptOnRestore"] as? Int)
        XCTAssertEqual(m["excludedSize"] as? Int, totals["excludedSize"] as? Int)
    }

    /// An archive records no sizes on disk: those two figures are null and named, the rest stay.
    func testMetricsOfAnArchiveLeaveSizesOnDiskOut() throws {
        try Tool.require("tar", for: "packing the container")
        let dir = try TempDir("metricstar")
        let root = dir.sub("Data")
        try Self.firstLaunch(at: root)
        try sh("tar -czf app.tgz -C Data .", in: dir.path)
        let r = try CLI.run(["scan", dir.sub("app.tgz"), "--format", "metrics"])
        XCTAssertEqual(r.status, 0, r.stderr)  // the same first launch, archived
        let m = try XCTUnwrap(JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any], r.stdout)
        XCTAssertTrue(m["totalDataFileSize"] is NSNull)
        XCTAssertTrue(m["totalCacheFolderSize"] is NSNull)
        XCTAssertEqual(
            m["notMeasured"] as? [String],
            [
                "totalDataFileSize", "totalCacheFolderSize", "totalCloneSize", "totalBinaryFileSize",
                "totalBinaryFileCount",
            ])
        let lines = try inventoryLines([dir.sub("app.tgz")])
        let files = lines.filter {
            $0["kind"] as? String == "file" && $0["countsInTotals"] as? Bool == true
                && $0["zone"] as? String != "system"
        }
        XCTAssertEqual(m["totalDataFileCount"] as? Int, files.count)
        XCTAssertEqual(m["dataFileContentSize"] as? Int, files.reduce(0) { $0 + ($1["size"] as! Int) })
    }
}
