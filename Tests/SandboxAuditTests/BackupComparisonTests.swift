import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The prediction held against a backup. The model's tests compare a real container with the
/// inventory a backup domain gives: a real folder holding what the backup holds, scanned and
/// read as a `.backup` container of the app.
final class BackupComparisonTests: XCTestCase {
    let app = ExampleObservations.app

    /// A container holding what is backed up plus only what iOS does not back up.
    static func container(_ root: String) throws {
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 1200)
        try Fixture.file(root + "/Library/Application Support/store.sqlite", size: 40_000)
        try Fixture.file(root + "/Library/Preferences/\(ExampleObservations.app).plist", size: 300)
        try FileManager.default.createSymbolicLink(atPath: root + "/Documents/latest", withDestinationPath: "notes.txt")
        // Never backed up: caches, tmp, SplashBoard, Saved Application State, excluded items.
        try Fixture.file(root + "/Library/Caches/thumbs/a.png", size: 9000)
        try Fixture.file(root + "/tmp/upload.part", size: 7000)
        try Fixture.file(root + "/Library/SplashBoard/Snapshots/main.ktx", size: 5000)
        try Fixture.file(root + "/Library/Saved Application State/window.plist", size: 100)
        try Fixture.file(root + "/Library/Application Support/cache.bin", size: 8000)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/cache.bin",
            carrier: .native)
        try Fixture.file(root + "/Library/Application Support/Models/m.bin", size: 6000)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/Models",
            carrier: .native)
    }

    /// What a backup of that container holds: its backed-up paths, and nothing else.
    static let held: [RuleExample.Item] = [
        .directory("Documents"), .file("Documents/notes.txt", size: 1200),
        .symlink("Documents/latest", to: "notes.txt"),
        .directory("Library"), .directory("Library/Application Support"),
        .file("Library/Application Support/store.sqlite", size: 40_000),
        .directory("Library/Preferences"), .file("Library/Preferences/com.example.app.plist", size: 300),
    ]

    func compare(_ root: String, _ backup: [Inventory], folder: String = "BACKUP") throws -> BackupComparison {
        BackupComparison(
            prediction: try Audit.inventories(of: root, ContainerSelection(app: app)), backup: backup, folder: folder,
            app: app)
    }

    func testFullAgreementWhenTheContainerAddsOnlyWhatIsNotBackedUp() throws {
        let dir = try TempDir()
        try Self.container(dir.sub("App"))
        let c = try compare(dir.sub("App"), [try ExampleObservations.backupSide(Self.held, at: dir.sub("backup"))])
        XCTAssertEqual(c.paths, 8)
        XCTAssertEqual(c.agreeing, 8)
        XCTAssertEqual(c.mismatches.count, 0, c.mismatches.map(\.line).joined(separator: "\n"))
        XCTAssertEqual(c.missingDomains, [])
        XCTAssertEqual(
            c.domains, [BackupComparison.DomainPair(scan: "AppDomain-unidentified", backup: "AppDomain-\(app)")],
            "the container names no bundle: compared with the --app domain")
    }

    /// The same container scanned twice: once as the prediction, once re-labelled as the backup
    /// side (after removing what a backup does not take): the two agree on every path.
    func testAContainerAgreesWithItsOwnBackedUpCopy() throws {
        let dir = try TempDir()
        try Self.container(dir.sub("App"))
        try sh(
            "cp -a App copy && rm -rf copy/tmp copy/Library/Caches copy/Library/SplashBoard 'copy/Library/Saved "
                + "Application State' copy/Library/Application\\ Support/cache.bin "
                + "copy/Library/Application\\ Support/Models",
            in: dir.path)
        let c = try compare(dir.sub("App"), [try ExampleObservations.relabelled(dir.sub("copy"), app: app)])
        XCTAssertEqual(c.paths, 8)
        XCTAssertEqual(c.agreeing, 8)
        XCTAssertEqual(c.mismatches.count, 0, c.mismatches.map(\.line).joined(separator: "\n"))
    }

    func testEveryKindOfMismatchSaysWhy() throws {
        let dir = try TempDir()
        try Self.container(dir.sub("App"))
        // The backup lacks the notes, holds another size of the store, and holds what was
        // predicted not backed up: a cache, a tmp file, both excluded items, and a file the
        // container does not have.
        let held =
            Self.held.filter {
                $0.path != "Documents/notes.txt" && $0.path != "Library/Application Support/store.sqlite"
            } + [
                .file("Library/Application Support/store.sqlite", size: 45_000),
                .directory("Library/Caches"), .directory("Library/Caches/thumbs"),
                .file("Library/Caches/thumbs/a.png", size: 9000),
                .directory("tmp"), .file("tmp/upload.part", size: 7000),
                .file("Library/Application Support/cache.bin", size: 8000),
                .directory("Library/Application Support/Models"),
                .file("Library/Application Support/Models/m.bin", size: 6000),
                .file("Documents/gone.txt", size: 10),
            ]
        let c = try compare(dir.sub("App"), [try ExampleObservations.backupSide(held, at: dir.sub("backup"))])
        let byPath = Dictionary(uniqueKeysWithValues: c.mismatches.map { ($0.path.display, $0) })
        func check(
            _ path: String, _ kind: BackupComparison.Kind, _ why: String, predicted: Int64?, actual: Int64?,
            line: UInt = #line
        ) {
            guard let m = byPath[path] else { return XCTFail("\(path) is no mismatch", line: line) }
            XCTAssertEqual(m.kind, kind, path, line: line)
            XCTAssertEqual(m.why, why, path, line: line)
            XCTAssertEqual(m.domain, "AppDomain-\(app)", line: line)
            XCTAssertEqual(m.predicted.size, predicted, path, line: line)
            XCTAssertEqual(m.actual.size, actual, path, line: line)
        }
        check(
            "Documents/notes.txt", .predictedButAbsent, "Documents is backed up and no exclude attribute covers it",
            predicted: 1200, actual: nil)
        check(
            "Library/Application Support/store.sqlite", .sizeDiffers,
            "Library is backed up and no exclude attribute covers it; the file changed between the backup and the "
                + "copy scanned",
            predicted: 40_000, actual: 45_000)
        check(
            "Library/Caches", .presentButPredictedAbsent, "Library/Caches is never backed up", predicted: nil,
            actual: nil)
        check(
            "Library/Caches/thumbs/a.png", .presentButPredictedAbsent, "Library/Caches is never backed up",
            predicted: 9000, actual: 9000)
        check(
            "tmp/upload.part", .presentButPredictedAbsent,
            "tmp is not backed up: backup takes only Documents, Library and GeoJSON", predicted: 7000, actual: 7000)
        check(
            "Library/Application Support/cache.bin", .presentButPredictedAbsent,
            "it carries the exclude-from-backup attribute", predicted: 8000, actual: 8000)
        check(
            "Library/Application Support/Models/m.bin", .presentButPredictedAbsent,
            "the exclude-from-backup attribute on Library/Application Support/Models covers it", predicted: 6000,
            actual: 6000)
        check("Documents/gone.txt", .presentButPredictedAbsent, "not in the container", predicted: nil, actual: 10)
        XCTAssertEqual(c.mismatches.count, 11)
        XCTAssertEqual(
            c.mismatches.map(\.path.display),
            [
                "Documents/gone.txt", "Documents/notes.txt", "Library/Application Support/Models",
                "Library/Application Support/Models/m.bin",
                "Library/Application Support/cache.bin", "Library/Application Support/store.sqlite", "Library/Caches",
                "Library/Caches/thumbs",
                "Library/Caches/thumbs/a.png", "tmp", "tmp/upload.part",
            ], "sorted by path bytes")
        // The union: 8 predicted (one absent, one of another size) plus 9 only in the backup; 6 agree.
        XCTAssertEqual(c.paths, 8 + 9)
        XCTAssertEqual(c.agreeing, 6)
        XCTAssertEqual(
            byPath["Documents/notes.txt"]?.line,
            "predicted backed up (1.20 kB), not in the backup: Documents is backed up and no exclude attribute "
                + "covers it"
        )
        XCTAssertEqual(
            byPath["Library/Application Support/store.sqlite"]?.line,
            "in the backup with 45000 bytes, the container holds 40000 bytes: Library is backed up and no exclude "
                + "attribute covers it; the file changed between the backup and the copy scanned"
        )
    }

    func testADomainTheBackupLacksMakesEveryPredictedPathAMismatch() throws {
        let dir = try TempDir()
        try Self.container(dir.sub("App"))
        let other = try ExampleObservations.backupSide(Self.held, at: dir.sub("backup"), app: "com.example.other")
        let c = try compare(dir.sub("App"), [other])
        XCTAssertEqual(c.missingDomains, ["AppDomain-\(app)"])
        XCTAssertEqual(c.paths, 8)
        XCTAssertEqual(c.agreeing, 0)
        XCTAssertEqual(Set(c.mismatches.map(\.kind)), [.predictedButAbsent])
        XCTAssertEqual(
            c.mismatches.first?.why,
            "Documents is backed up and no exclude attribute covers it; the backup holds no AppDomain-\(app) domain")

        // The rule says so once for the domain, then once per predicted path; the text report too.
        let selection = ContainerSelection(app: app)
        let r = Audit.run(
            dir.sub("App"), inventories: try Audit.inventories(of: dir.sub("App"), selection), selection: selection,
            policy: Policy(), baseline: nil, backup: c, scanTime: Date().timeIntervalSince1970)
        let found = r.findings.filter { $0.ruleId == "backup-prediction-mismatch" }
        XCTAssertEqual(found.count, 1 + 8)
        XCTAssertEqual(found.first?.path, nil)
        XCTAssertEqual(
            found.first?.message,
            "the backup BACKUP holds no AppDomain-\(app) domain: nothing of this container was backed up")
        XCTAssertTrue(
            ReportFormat.text.render(r, .init(failOn: .error)).contains(
                "  the backup holds no AppDomain-\(app) domain: every path predicted for it is a mismatch"))
    }

    func testAGroupContainerIsComparedWithItsGroupDomain() throws {
        let dir = try TempDir()
        let group = dir.sub("Group")
        try Fixture.file(group + "/ChatStorage.sqlite", size: 2000)
        try Fixture.file(group + "/Library/Caches/c", size: 100)
        let prediction = try Audit.inventories(of: group, ContainerSelection(role: .group))
        let held = try ExampleObservations.backupSide(
            [.directory("Library"), .file("Other.sqlite", size: 5)], at: dir.sub("backup"), app: "unidentified",
            role: .group)
        let c = BackupComparison(prediction: prediction, backup: [held], folder: "B", app: app)
        XCTAssertEqual(c.domains.map(\.backup), ["AppDomainGroup-unidentified"])
        XCTAssertEqual(
            c.mismatches.map { "\($0.path.display) \($0.kind.rawValue): \($0.why)" },
            [
                "ChatStorage.sqlite predicted-but-absent: an App Group container is backed up whole and no exclude "
                    + "attribute covers it",
                "Other.sqlite present-but-predicted-absent: not in the container",
            ])
        XCTAssertEqual(c.agreeing, 1, "Library")
    }

    func testDecisionNamesTheSetThatPlacedAPath() {
        let sets = BackupPathSets.appData
        XCTAssertEqual(sets.decision(for: ContainerPath("Library/Caches/a")), .skipped(ContainerPath("Library/Caches")))
        XCTAssertEqual(sets.decision(for: ContainerPath("Library/Caches")), .skipped(ContainerPath("Library/Caches")))
        XCTAssertEqual(sets.decision(for: ContainerPath("Documents/x")), .inRoot(ContainerPath("Documents")))
        XCTAssertEqual(
            sets.decision(for: ContainerPath("SystemData/com.apple.chrono/x")).text(
                for: ContainerPath("SystemData/com.apple.chrono/x")),
            "SystemData is not backed up: backup takes only Documents, Library and GeoJSON")
        XCTAssertEqual(
            sets.decision(for: ContainerPath("Library/SplashBoard/s")).text(
                for: ContainerPath("Library/SplashBoard/s")), "Library/SplashBoard is never backed up")
        for path in ["Documents/a", "Library/Caches/b", "tmp/c", "Library/Preferences/p", "GeoJSON/g"].map({
            ContainerPath($0)
        }) {
            XCTAssertEqual(sets.decision(for: path).backedUp, sets.placement(of: path).backedUp, path.display)
        }
    }

    func testEveryReportShowsTheComparisonAndEachMismatchIsAFinding() throws {
        let dir = try TempDir()
        let root = dir.sub("App")
        try Self.container(root)
        let held =
            Self.held.filter { $0.path != "Documents/notes.txt" } + [
                .file("Library/Application Support/cache.bin", size: 8000)
            ]
        let backup = try ExampleObservations.backupSide(held, at: dir.sub("backup"))
        let selection = ContainerSelection(app: app)
        let inventories = try Audit.inventories(of: root, selection)
        let comparison = BackupComparison(
            prediction: inventories, backup: [backup], folder: dir.sub("backup"), app: app)
        let r = Audit.run(
            root, inventories: inventories, selection: selection, policy: Policy(), baseline: nil,
            backup: comparison, scanTime: Date().timeIntervalSince1970)
        let found = r.findings.filter { $0.ruleId == "backup-prediction-mismatch" }
        XCTAssertEqual(
            found.map { $0.path?.display ?? "." }, ["Documents/notes.txt", "Library/Application Support/cache.bin"])
        XCTAssertEqual(found.map(\.severity), [.warning, .warning])
        XCTAssertEqual(found.map(\.size), [1200, 8000])
        XCTAssertEqual(
            found.first?.message,
            "predicted-but-absent: predicted backed up (1.20 kB), not in the backup: Documents is backed up and no "
                + "exclude attribute covers it"
        )
        XCTAssertTrue(r.fails(at: .warning))
        XCTAssertFalse(r.fails(at: .error))

        let options = ReportFormat.Options(failOn: .warning)
        let json =
            try JSONSerialization.jsonObject(with: Data(ReportFormat.json.render(r, options).utf8)) as! [String: Any]
        let b = try XCTUnwrap(json["backupComparison"] as? [String: Any])
        XCTAssertEqual(b["backup"] as? String, dir.sub("backup"))
        XCTAssertEqual(b["paths"] as? Int, 9)
        XCTAssertEqual(b["agreeing"] as? Int, 7)
        XCTAssertEqual(b["missingDomains"] as? [String], [])
        let mismatches = try XCTUnwrap(b["mismatches"] as? [[String: Any]])
        XCTAssertEqual(
            mismatches.map { $0["path"] as? String }, ["Documents/notes.txt", "Library/Application Support/cache.bin"])
        XCTAssertEqual(
            mismatches.map { $0["kind"] as? String }, ["predicted-but-absent", "present-but-predicted-absent"])
        let predicted = try XCTUnwrap(mismatches[1]["predicted"] as? [String: Any])
        let actual = try XCTUnwrap(mismatches[1]["actual"] as? [String: Any])
        XCTAssertEqual(predicted["backedUp"] as? Bool, false)
        XCTAssertEqual(predicted["size"] as? Int, 8000)
        XCTAssertEqual(actual["inBackup"] as? Bool, true)
        XCTAssertEqual(actual["size"] as? Int, 8000)
        XCTAssertEqual(mismatches[1]["why"] as? String, "it carries the exclude-from-backup attribute")
        XCTAssertEqual(mismatches[0]["domain"] as? String, "AppDomain-\(app)")

        let text = ReportFormat.text.render(r, options)
        XCTAssertTrue(
            text.contains("against the backup \(dir.sub("backup")): 9 path(s) compared, 7 agreeing, 2 mismatch(es)"),
            text)
        XCTAssertTrue(
            text.contains("  present-but-predicted-absent  AppDomain-\(app): Library/Application Support/cache.bin"),
            text)
        let markdown = ReportFormat.markdown.render(r, options)
        XCTAssertTrue(markdown.contains("### Against the backup"), markdown)
        XCTAssertTrue(markdown.contains("| AppDomain-\(app) | Documents/notes.txt | predicted-but-absent |"), markdown)
        let html = ReportFormat.html.render(r, options)
        XCTAssertTrue(html.contains("<h2>Against the backup</h2>"))
        XCTAssertTrue(html.contains("<code>Library/Application Support/cache.bin</code>"))
        XCTAssertTrue(ReportFormat.sarif.render(r, options).contains("\"backup-prediction-mismatch\""))
        XCTAssertTrue(ReportFormat.junit.render(r, options).contains("backup-prediction-mismatch"))
    }

    func testAContainerThatNamesNoBundleNeedsApp() throws {
        let dir = try TempDir()
        try Self.container(dir.sub("App"))
        try Fixture.mkdirs(dir.sub("backup"))
        let r = try CLI.run(["scan", dir.sub("App"), "--against-backup", dir.sub("backup")])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(
            r.stderr,
            "sandbox-audit: error: \(dir.sub("App")) does not name its app's bundle identifier: add --app BUNDLE_ID "
                + "to compare it with the backup \(dir.sub("backup"))\n"
        )
    }
}
