import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// `scan CONTAINER --against-backup BACKUP_DIR`, run as the built executable against real
/// backup folders (BackupBuilder: Manifest.db, MBFile blobs, XX/FILEID).
final class BackupComparisonCLITests: XCTestCase {
    let app = ExampleObservations.app

    func comparison(_ json: [String: Any]) throws -> [String: Any] {
        try XCTUnwrap(json["backupComparison"] as? [String: Any], "no backupComparison")
    }

    func testFullAgreementWithARealBackupAndTheBackupIsLeftAsItWas() throws {
        let dir = try TempDir("against")
        try BackupComparisonTests.container(dir.sub("App"))
        try ExampleObservations.builder(BackupComparisonTests.held).write(to: dir.sub("B"))
        let before = try FolderSnapshot(dir.sub("B"))
        let (json, r) = try CLI.scanJSON([
            dir.sub("App"), "--against-backup", dir.sub("B"), "--app", app, "--fail-on", "warning",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let c = try comparison(json)
        XCTAssertEqual(c["backup"] as? String, dir.sub("B"))
        XCTAssertEqual(c["paths"] as? Int, 8)
        XCTAssertEqual(c["agreeing"] as? Int, 8)
        XCTAssertEqual((c["mismatches"] as? [Any])?.count, 0)
        XCTAssertEqual(c["missingDomains"] as? [String], [])
        XCTAssertEqual(try FolderSnapshot(dir.sub("B")), before, "reading the backup wrote nothing into it")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("B/Manifest.db-journal")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("B/Manifest.db-wal")))

        let text = try CLI.run([
            "scan", dir.sub("App"), "--against-backup", dir.sub("B"), "--app", app, "--color", "never",
        ])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(
            text.stdout.contains("against the backup \(dir.sub("B")): 8 path(s) compared, 8 agreeing, 0 mismatch(es)"),
            text.stdout)
    }

    /// An encrypted backup is compared as a plain one once its password is given; without it,
    /// the comparison stops in one line.
    func testAgreementWithAnEncryptedBackup() throws {
        let dir = try TempDir("against")
        try BackupComparisonTests.container(dir.sub("App"))
        try ExampleObservations.builder(BackupComparisonTests.held)
            .write(to: dir.sub("B"), encryption: TestBackupEncryptor(password: "hunter2").builderEncryption)
        try "hunter2\n".write(toFile: dir.sub("pw"), atomically: true, encoding: .utf8)
        let args = [dir.sub("App"), "--against-backup", dir.sub("B"), "--app", app, "--fail-on", "warning"]
        let (json, r) = try CLI.scanJSON(args + ["--password-file", dir.sub("pw")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let c = try comparison(json)
        XCTAssertEqual(c["paths"] as? Int, 8)
        XCTAssertEqual(c["agreeing"] as? Int, 8)
        let refused = try CLI.run(["scan"] + args)
        XCTAssertEqual(refused.status, 2)
        XCTAssertEqual(
            refused.stderr,
            "sandbox-audit: error: \(dir.sub("B")) is an encrypted backup: give its password with --password-file "
                + "FILE or in the environment variable SANDBOX_AUDIT_BACKUP_PASSWORD\n"
        )
    }

    func testEachMismatchIsAFindingAndFailsOnWarning() throws {
        let dir = try TempDir("against")
        try BackupComparisonTests.container(dir.sub("App"))
        let held =
            BackupComparisonTests.held.filter {
                $0.path != "Documents/notes.txt" && $0.path != "Library/Application Support/store.sqlite"
            } + [
                .file("Library/Application Support/store.sqlite", size: 45_000),
                .file("Library/Application Support/cache.bin", size: 8000),
                .file("Library/Caches/thumbs/a.png", size: 9000),
            ]
        try ExampleObservations.builder(held).write(to: dir.sub("B"))
        let args = [dir.sub("App"), "--against-backup", dir.sub("B"), "--app", app]
        let (json, r) = try CLI.scanJSON(args + ["--fail-on", "warning"])
        XCTAssertEqual(r.status, 1, "mismatches are warnings: --fail-on warning fails")
        let c = try comparison(json)
        // 8 predicted, plus cache.bin and Library/Caches, its thumbs folder and a.png only in the backup.
        XCTAssertEqual(c["paths"] as? Int, 12)
        XCTAssertEqual(c["agreeing"] as? Int, 6)
        let mismatches = try XCTUnwrap(c["mismatches"] as? [[String: Any]])
        XCTAssertEqual(
            mismatches.map { "\($0["path"] ?? "") \($0["kind"] ?? "")" },
            [
                "Documents/notes.txt predicted-but-absent",
                "Library/Application Support/cache.bin present-but-predicted-absent",
                "Library/Application Support/store.sqlite size-differs",
                "Library/Caches present-but-predicted-absent",
                "Library/Caches/thumbs present-but-predicted-absent",
                "Library/Caches/thumbs/a.png present-but-predicted-absent",
            ])
        XCTAssertEqual(
            mismatches.map { $0["why"] as? String },
            [
                "Documents is backed up and no exclude attribute covers it",
                "it carries the exclude-from-backup attribute",
                "Library is backed up and no exclude attribute covers it; the file changed between the backup and "
                    + "the copy scanned",
                "Library/Caches is never backed up", "Library/Caches is never backed up",
                "Library/Caches is never backed up",
            ])
        // Every key of the comparison is documented.
        var keys = Set<String>()
        DocsTests.keys(c, into: &keys)
        let doc = try String(contentsOfFile: DocsTests.repo + "/docs/json-format.md", encoding: .utf8)
        for key in keys { XCTAssertTrue(doc.contains("`\(key)`"), "docs/json-format.md does not document `\(key)`") }
        XCTAssertEqual(keys.count, 14, "pathBase64 only for a path that is not UTF-8")
        let sizeDiffers = mismatches[2]
        XCTAssertEqual((sizeDiffers["predicted"] as? [String: Any])?["size"] as? Int, 40_000)
        XCTAssertEqual((sizeDiffers["actual"] as? [String: Any])?["size"] as? Int, 45_000)
        let findings = (json["findings"] as? [[String: Any]] ?? []).filter {
            $0["ruleId"] as? String == "backup-prediction-mismatch"
        }
        XCTAssertEqual(findings.count, 6)
        XCTAssertEqual(Set(findings.compactMap { $0["severity"] as? String }), ["warning"])
        XCTAssertEqual(
            findings.first?["domain"] as? String, "AppDomain-unidentified",
            "the finding names the scanned container's domain")
        let plain = try CLI.run(["scan"] + args)
        XCTAssertEqual(plain.status, 0, "below the default --fail-on error: \(plain.stderr)")

        let sarif = try CLI.run(["scan"] + args + ["--format", "sarif"])
        XCTAssertTrue(
            sarif.stdout.contains("\"ruleId\" : \"backup-prediction-mismatch\"")
                || sarif.stdout.contains("\"ruleId\": \"backup-prediction-mismatch\""), sarif.stderr)
        let github = try CLI.run(["scan"] + args + ["--format", "github"])
        XCTAssertTrue(github.stdout.contains("backup-prediction-mismatch"), github.stderr)
    }

    func testABackupFolderThatIsNotOneIsAOneLineError() throws {
        let dir = try TempDir("against")
        try BackupComparisonTests.container(dir.sub("App"))
        try Fixture.mkdirs(dir.sub("NotABackup"))
        let r = try CLI.run(["scan", dir.sub("App"), "--against-backup", dir.sub("NotABackup"), "--app", app])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(
            r.stderr,
            "sandbox-audit: error: \(dir.sub("NotABackup")) is not a device backup folder: it holds no Manifest.db "
                + "(give the folder named by the device's UDID)\n"
        )
    }

    func testTheHelpSaysWhatItDoes() throws {
        let r = try CLI.run(["scan", "--help"])
        XCTAssertTrue(r.stdout.contains("--against-backup <BACKUP_DIR>"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Hold the prediction against a real device backup"), r.stdout)
    }
}
