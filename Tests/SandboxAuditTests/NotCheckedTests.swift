import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// An input kind that gives no file bytes: a container folder read as a kind that declares
/// neither the files' first bytes nor their contents (as a new input kind might), for the
/// audit to show that it never runs a rule on data its input does not give.
struct BytelessFolderInput: InputKind {
    static let name = "byteless folder"
    static let shortName = "byteless"
    static let capabilities = InputCapabilities(
        observes: [.attributesOnDisk, .sizesOnDisk, .itemsNotBackedUp], materialisable: false, filesOnDisk: true,
        recordsBackup: false)
    let path: String

    static func detect(_ path: String, _ selection: ContainerSelection) -> BytelessFolderInput? { nil }

    func read() throws -> InputRead {
        let folder = try FolderInput(path: path, selection: ContainerSelection()).read()
        return InputRead(
            input: folder.input,
            containers: folder.containers.map { ($0.container.found(in: BytelessFolderInput.self), $0.walk) },
            notes: folder.notes)
    }

    static func contentReader(for container: Container) -> ContentReader? { nil }
}

/// The contract between inputs and rules: each rule runs only where the input kind and the run
/// give what it needs (`Rule.needs`), and every format says which rules were not checked and why.
final class NotCheckedTests: XCTestCase {
    /// A container with a SQLite store in Caches (volatile-store reads its header) and a 600 kB
    /// preferences plist (large-user-defaults reads its keys).
    func contentContainer(_ dir: TempDir) throws -> String {
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.bytes(root + "/Library/Caches/offline.sqlite", VolatileStore.sampleSQLiteFile)
        try Fixture.plist(root + "/Library/Preferences/com.example.app.plist", keys: [("avatarImage", 600_000)])
        return root
    }

    func audit(_ read: InputRead) -> AuditResult {
        let inventories = Audit.inventories(read).inventories
        return Audit.run(
            read.input, inventories: inventories, selection: ContainerSelection(), policy: Policy(), baseline: nil,
            backup: nil, scanTime: 1_800_000_000)
    }

    /// The same container read as a folder gets the content findings; read as a kind with no
    /// file bytes, volatile-store is not run and large-user-defaults runs without naming keys,
    /// and every format says so (before, `complete: true` and silence).
    func testAnInputWithNoFileBytesSaysWhichRulesItCouldNotCheck() throws {
        let dir = try TempDir("notchecked")
        let root = try contentContainer(dir)
        let asFolder = audit(try FolderInput(path: root, selection: ContainerSelection()).read())
        XCTAssertEqual(Set(asFolder.findings.map(\.ruleId)), ["volatile-store", "large-user-defaults"])
        XCTAssertFalse(
            asFolder.notChecked.contains { $0.ruleId == "volatile-store" || $0.ruleId == "large-user-defaults" })

        let byteless = audit(try BytelessFolderInput(path: root).read())
        XCTAssertTrue(byteless.complete)
        XCTAssertEqual(byteless.findings.map(\.ruleId), ["large-user-defaults"])
        XCTAssertTrue(
            byteless.findings[0].message.hasSuffix("its contents could not be read"), byteless.findings[0].message)
        let volatile = try XCTUnwrap(byteless.notChecked.first { $0.ruleId == "volatile-store" })
        XCTAssertEqual(volatile.needs, [.fileHeaders])
        XCTAssertNil(volatile.partly)
        let defaults = try XCTUnwrap(byteless.notChecked.first { $0.ruleId == "large-user-defaults" })
        XCTAssertEqual(defaults.needs, [.fileContents])
        XCTAssertNotNil(defaults.partly)

        // Every format of a scan report names it (ncdu's export lists entries only, metrics
        // totals only; xcode and codeclimate, shown at every build, say how many rules and
        // where they are listed: ToolFormatTests).
        for format in ReportFormat.allCases where ![.ncdu, .metrics, .xcode, .codeclimate].contains(format) {
            let text = format.render(
                byteless,
                .init(
                    failOn: .error, color: false, pathPrefix: { _ in "" }, junitWarnings: .skipped,
                    allowIncomplete: false))
            XCTAssertTrue(
                text.contains("volatile-store"),
                "\(format.rawValue) does not name volatile-store as not checked:\n\(text)")
            XCTAssertTrue(
                text.contains("the files&#39; first bytes") || text.contains("the files' first bytes")
                    || text.contains("fileHeaders"),
                "\(format.rawValue) does not say what volatile-store needs:\n\(text)")
        }
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(ReportFormat.json.render(byteless, .init(failOn: .error)).utf8))
                as? [String: Any])
        XCTAssertEqual(json["complete"] as? Bool, true)
        XCTAssertEqual(json["schemaVersion"] as? Int, 2)
        let notChecked = try XCTUnwrap(json["notChecked"] as? [[String: Any]])
        let entry = try XCTUnwrap(notChecked.first { $0["ruleId"] as? String == "volatile-store" })
        XCTAssertEqual(entry["needs"] as? [String], ["fileHeaders"])
        XCTAssertEqual(entry["checkedInPart"] as? Bool, false)
        XCTAssertEqual(entry["domain"] as? String, byteless.inventory.domain)
        let junit = ReportFormat.junit.render(byteless, .init(failOn: .error))
        XCTAssertTrue(
            junit.contains(
                "<testcase classname=\"volatile-store\" name=\"container\">\n      <skipped message=\"needs the "
                    + "files&#39; first bytes (this input holds none)\"/>"
            ), junit)
        XCTAssertFalse(junit.contains("<testcase classname=\"volatile-store\" name=\"container\"/>"), junit)
    }

    /// JUnit of the WellBehaved sample: every rule that could not run is a skipped case with
    /// its reason, never a passing one; the rules that ran and found nothing pass.
    func testJUnitOfWellBehavedSkipsTheRulesThatDidNotRun() throws {
        let cwd = try TempDir("cwd")
        let r = try CLI.run(
            ["scan", SampleContainerTests.samples + "/WellBehaved", "--format", "junit"], cwd: cwd.path)
        XCTAssertEqual(r.status, 0, r.stderr)
        let skippedFor: [String: String] = [
            "exclusion-lost": "needs a baseline (--baseline)",
            "backup-prediction-mismatch": "needs a backup to compare with (--against-backup)",
            "unprotected-store": "needs data protection classes",
            "store-protection-mismatch": "needs data protection classes",
            "shared-store-complete-protection":
                "not run: it checks extension and App Group containers only, and none was scanned",
            "protection-below-policy": "needs data protection classes",
            "user-visible-documents": "needs the app&#39;s Info.plist",
            "policy-forbidden": "needs path entries in the policy file (paths:)",
            "budget-exceeded": "needs budgets in the policy file (budgets: or growth:)",
        ]
        for (rule, reason) in skippedFor {
            XCTAssertFalse(
                r.stdout.contains("<testcase classname=\"\(rule)\" name=\"container\"/>"),
                "\(rule) passes although it did not run")
            let start = try XCTUnwrap(r.stdout.range(of: "<testsuite name=\"\(rule)\""), rule)
            let end = try XCTUnwrap(
                r.stdout.range(of: "</testsuite>", range: start.upperBound..<r.stdout.endIndex), rule)
            let suite = String(r.stdout[start.lowerBound..<end.lowerBound])
            XCTAssertTrue(suite.contains("skipped=\"1\""), "\(rule): \(suite)")
            XCTAssertTrue(suite.contains("<skipped message=\"\(reason)"), "\(rule): \(suite)")
            XCTAssertFalse(suite.contains("/>\n  </testsuite") && !suite.contains("skipped"), rule)
        }
        // A rule that ran and found nothing still passes.
        XCTAssertTrue(r.stdout.contains("<testcase classname=\"misplaced-at-root\" name=\"container\"/>"), r.stdout)
        // With a baseline, exclusion-lost runs: a passing case.
        let dir = try TempDir("wellbehaved-baseline")
        let written = try CLI.run(
            ["scan", SampleContainerTests.samples + "/WellBehaved", "--write-baseline", dir.sub("baseline.json")],
            cwd: dir.path)
        XCTAssertEqual(written.status, 0, written.stderr)
        let withBaseline = try CLI.run(
            [
                "scan", SampleContainerTests.samples + "/WellBehaved", "--format", "junit", "--baseline",
                dir.sub("baseline.json"),
            ], cwd: dir.path)
        XCTAssertTrue(
            withBaseline.stdout.contains("<testcase classname=\"exclusion-lost\" name=\"container\"/>"),
            withBaseline.stdout)
    }

    /// A backup whose rows record the exclude attribute: `inventory` says the folder is backed
    /// up and not excluded, and `scan` agrees (it used to report excluded-user-data,
    /// excluded-container-directory and redundant-exclusion from the raw marks): those rules
    /// need the attributes on disk, and the report says they were not checked.
    func testABackupWithRecordedExclusionsAgreesWithItsInventory() throws {
        typealias T = BackupFolderTests
        let dir = try TempDir("recorded-exclusions")
        var b = try T.standard()
        b.directory(T.appDomain, "Documents/Inbox")
        b.file(T.appDomain, "Documents/Inbox/a.pdf", size: 100)
        b.directory(T.appDomain, "Library/Caches/feed")
        b.file(T.appDomain, "Library/Caches/feed/b.bin", size: 100)
        let excluded = [
            "Documents/Inbox", "Documents/Inbox/a.pdf", "Library", "Library/Caches/feed", "Library/Caches/feed/b.bin",
        ]
        for i in b.items.indices where b.items[i].domain == T.appDomain && excluded.contains(b.items[i].relativePath) {
            b.items[i].extendedAttributes = [BackupAttribute.exclude.macName: BackupAttribute.canonicalValue]
        }
        try b.write(to: dir.sub("B"))
        let (entries, _, inv) = try CLI.inventory(dir.sub("B") + "", asNobody: false, arguments: ["--app", T.app])
        XCTAssertEqual(inv.status, 0, inv.stderr)
        for path in excluded {
            XCTAssertEqual(entries[path]?["excluded"] as? Bool, false, path)
            XCTAssertEqual(entries[path]?["backedUp"] as? Bool, true, path)
        }
        let (json, r) = try CLI.scanJSON([dir.sub("B"), "--app", T.app])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rules = (json["findings"] as? [[String: Any]] ?? []).compactMap { $0["ruleId"] as? String }
        for rule in ["excluded-user-data", "excluded-container-directory", "redundant-exclusion"] {
            XCTAssertFalse(rules.contains(rule), "\(rule) judged a backup on its recorded marks: \(rules)")
            let notChecked = (json["notChecked"] as? [[String: Any]] ?? []).filter { $0["ruleId"] as? String == rule }
            XCTAssertEqual(notChecked.first?["needs"] as? [String], ["attributesOnDisk"], rule)
        }
    }
}

extension CLI {
    /// `inventory PATH ARGUMENTS` as parsed JSON objects, keyed by path.
    static func inventory(_ path: String, asNobody: Bool, arguments: [String]) throws -> (
        entries: [String: [String: Any]], order: [String], result: Result
    ) {
        let r = try run(["inventory", path] + arguments, asNobody: asNobody)
        var entries: [String: [String: Any]] = [:]
        var order: [String] = []
        for line in r.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let p = object["path"] as? String
            else { continue }
            if entries[p] == nil { order.append(p) }
            entries[p] = entries[p] ?? object
        }
        return (entries, order, r)
    }
}

/// A backup row whose file the backup folder does not hold: one unreadable-entry per entry,
/// naming every rule it left unchecked, with a fix about the backup (not about permissions).
final class UnreadContentTests: XCTestCase {
    typealias T = BackupFolderTests

    func testARowWithNoBytesIsOneFindingPerEntryWithTheBackupsFix() throws {
        let dir = try TempDir("nobytes")
        var b = try T.standard()
        // unprotected-store reads each of these (volatile-store, which reads stores in Caches,
        // does not run on a backup: it holds no Caches of a real device).
        b.file(T.appDomain, "Library/Caches/a.sqlite", VolatileStore.sampleSQLiteFile, storeBytes: false)
        b.file(T.appDomain, "Library/Caches/b.sqlite", VolatileStore.sampleSQLiteFile, storeBytes: false)
        try b.write(to: dir.sub("B"))
        let result = try Audit.run(dir.sub("B"), selection: ContainerSelection(app: T.app))
        let unread = result.findings.filter {
            $0.ruleId == "unreadable-entry" && ($0.path?.display ?? "").hasPrefix("Library/Caches/")
        }
        XCTAssertEqual(unread.map { $0.path?.display }, ["Library/Caches/a.sqlite", "Library/Caches/b.sqlite"])
        for f in unread {
            XCTAssertTrue(
                f.message.hasPrefix(
                    "could not read the first bytes of \(f.path!.display): unprotected-store not checked ("), f.message)
            XCTAssertTrue(
                f.fixText?.hasPrefix("The backup's Manifest.db lists this file, and its folder holds no copy of it")
                    ?? false, f.fixText ?? "")
            XCTAssertFalse(f.fixText?.contains("chmod") ?? true)
        }
        XCTAssertEqual(result.missed.filter { $0.path.display.hasPrefix("Library/Caches/") }.count, 2)
        XCTAssertEqual(
            result.notes.filter { $0.hasPrefix("the backup holds no bytes") },
            [
                "the backup holds no bytes for 2 files of \(T.appDomain) (listed in Manifest.db, missing from the "
                    + "backup folder): the rules that read them did not check them (see unreadable-entry)"
            ])
    }
}
