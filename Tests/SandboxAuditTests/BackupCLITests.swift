import Foundation
import XCTest

/// `scan`, `inventory` and `simulate` on a backup folder, run as the built executable.
final class BackupCLITests: XCTestCase {
    typealias T = BackupFolderTests

    func testInventoryListsExactlyWhatManifestDBHoldsForTheDomains() throws {
        let dir = try TempDir("backup-cli")
        let builder = try T.standard()
        try builder.write(to: dir.sub("B"))
        let r = try CLI.run(["inventory", dir.sub("B"), "--app", T.app, "--app-group", T.group])
        XCTAssertEqual(r.status, 0, r.stderr)
        var got: [String] = []
        for line in r.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            got.append(
                "\(o["domain"] ?? "") \(o["path"] ?? "") \(o["kind"] ?? "") \(o["size"] ?? "") \(o["backedUp"] ?? "")")
        }
        let kinds: [Int64: String] = [1: "file", 2: "directory", 4: "symlink"]
        let domains = [T.appDomain, T.pluginDomain, T.groupDomain]
        let expected = builder.items.filter { domains.contains($0.domain) && !$0.relativePath.isEmpty }.map { item in
            let size = item.flags == 2 ? 0 : (item.size ?? Int64(item.bytes.count))
            return "\(item.domain) \(item.relativePath) \(kinds[item.flags]!) \(size) 1"
        }
        XCTAssertEqual(got.count, 12)
        // Domains in the order scanned, paths in byte order within each.
        XCTAssertEqual(
            got,
            expected.sorted { a, b in
                let da = domains.firstIndex { a.hasPrefix($0 + " ") }!
                let db = domains.firstIndex { b.hasPrefix($0 + " ") }!
                return da != db ? da < db : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            })
    }

    func testScanGivesEveryReportFormatAndLeavesTheFolderAsItWas() throws {
        let dir = try TempDir("backup-cli")
        try T.standard().write(to: dir.sub("B"))
        let before = try FolderSnapshot(dir.sub("B"))
        let identity = "backup of Test iPhone, iOS 17.5.1, 2024-11-07T17:20:00Z"

        let text = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--color", "never"])
        // large-user-defaults (600 kB) is a warning: below the default --fail-on error.
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.hasPrefix("sandbox-audit 0.1.0: com.example.app (\(identity))\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("AppDomainGroup-group.com.example.other"), text.stdout)

        let (json, _) = try CLI.scanJSON([dir.sub("B"), "--app", T.app])
        let domains = try XCTUnwrap(json["domains"] as? [[String: Any]])
        XCTAssertEqual(domains.compactMap { $0["domain"] as? String }, [T.appDomain, T.pluginDomain])
        let container = try XCTUnwrap(domains[0]["container"] as? [String: Any])
        XCTAssertEqual(container["kind"] as? String, "backup")
        let backup = try XCTUnwrap(container["backup"] as? [String: Any])
        XCTAssertEqual(backup["deviceName"] as? String, "Test iPhone")
        XCTAssertEqual(backup["productVersion"] as? String, "17.5.1")
        XCTAssertEqual(backup["date"] as? String, "2024-11-07T17:20:00Z")
        XCTAssertEqual(backup["encrypted"] as? Bool, false)
        // Every key of a backup scan's JSON is documented, as DocsTests checks a container's.
        var keys = Set<String>()
        DocsTests.keys(json, into: &keys)
        let doc = try String(contentsOfFile: DocsTests.repo + "/docs/json-format.md", encoding: .utf8)
        for key in keys { XCTAssertTrue(doc.contains("`\(key)`"), "docs/json-format.md does not document `\(key)`") }
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        XCTAssertTrue(findings.contains { $0["ruleId"] as? String == "large-user-defaults" })

        let sarif = dir.sub("report.sarif")
        let s = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--output", "sarif=" + sarif, "--format", "text"])
        XCTAssertEqual(s.status, text.status, s.stderr)
        try Tool.requirePython("jsonschema", for: "validating SARIF")
        let counts = try python(ReportTests.validateSARIF, [ReportTests.schema, sarif]).split(separator: " ")
        XCTAssertGreaterThanOrEqual(Int(counts[0]) ?? 0, 1)
        XCTAssertTrue(try String(contentsOfFile: sarif, encoding: .utf8).contains(identity))

        let md = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", "markdown"])
        XCTAssertTrue(md.stdout.hasPrefix("## sandbox-audit: com.example.app"), md.stdout)
        XCTAssertTrue(md.stdout.contains("Read from a \(identity)."), md.stdout)
        let html = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", "html"])
        XCTAssertTrue(
            html.stdout.contains("AppDomain-com.example.app (app container, \(identity))"),
            String(html.stdout.prefix(3000)))
        let junit = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", "junit"])
        let parsed = try python(
            "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
                + "print(len(r.findall('testsuite')))",
            [try write(junit.stdoutBytes, dir.sub("junit.xml"))])
        XCTAssertGreaterThan(Int(parsed.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 1)
        XCTAssertTrue(junit.stdout.contains("large-user-defaults"))
        let github = try CLI.run(["scan", dir.sub("B"), "--app", T.app, "--format", "github"])
        XCTAssertTrue(github.stdout.contains("::warning file="), github.stdout)
        XCTAssertTrue(github.stdout.contains("Library/Preferences/com.example.app.plist"), github.stdout)
        for r in [md, html, junit, github] { XCTAssertEqual(r.status, text.status, r.stderr) }

        let sim = try CLI.run(["simulate", "restore", dir.sub("B"), "--app", T.app])
        XCTAssertEqual(sim.status, 0, sim.stderr)
        XCTAssertTrue(
            sim.stdout.hasPrefix(
                "sandbox-audit 0.1.0: AppDomain-com.example.app (app container, \(identity)), after a restore"),
            sim.stdout)
        let into = try CLI.run(["simulate", "restore", dir.sub("B"), "--app", T.app, "--into", dir.sub("out")])
        XCTAssertEqual(into.status, 2)
        XCTAssertTrue(into.stderr.contains("simulate --into cannot write from a backup folder"), into.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("out")))

        // Nothing written into the backup folder: no journal, no -wal or -shm, no byte changed.
        XCTAssertEqual(try FolderSnapshot(dir.sub("B")), before)
    }

    func write(_ data: Data, _ path: String) throws -> String {
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    func testAppsAndGroupsTheBackupDoesNotHoldAreOneLineErrors() throws {
        let dir = try TempDir("backup-cli")
        try T.standard().write(to: dir.sub("B"))
        func refused(_ arguments: [String], _ line: String, file: StaticString = #filePath, at: UInt = #line) throws {
            let r = try CLI.run(arguments)
            XCTAssertEqual(r.status, 2, r.stderr, file: file, line: at)
            XCTAssertEqual(r.stderr, "sandbox-audit: error: " + line + "\n", file: file, line: at)
        }
        try refused(
            ["scan", dir.sub("B"), "--app", "com.nope"],
            "no AppDomain-com.nope domain in the backup \(dir.sub("B")): it holds 2 apps; `sandbox-audit apps "
                + "\(dir.sub("B"))` lists them"
        )
        try refused(
            ["inventory", dir.sub("B")],
            "\(dir.sub("B")) is a backup folder: name the app with --app BUNDLE_ID; it holds 2 apps; `sandbox-audit "
                + "apps \(dir.sub("B"))` lists them"
        )
        try refused(
            ["scan", dir.sub("B"), "--app", T.app, "--app-group", "group.nope"],
            "no AppDomainGroup-group.nope domain in the backup \(dir.sub("B")): its App Group domains are "
                + "AppDomainGroup-group.com.example.other, AppDomainGroup-group.com.example.shared"
        )
    }

    func testAnEncryptedBackupWithoutAPasswordIsRefusedInOneLine() throws {
        let dir = try TempDir("backup-cli")
        var b = BackupBuilder()
        b.file(T.appDomain, "Documents/a.txt", size: 10)
        try b.write(to: dir.sub("B"), encryption: TestBackupEncryptor(password: "pw").builderEncryption)
        for command in ["scan", "inventory"] {
            let r = try CLI.run([command, dir.sub("B"), "--app", T.app])
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(
                r.stderr,
                "sandbox-audit: error: \(dir.sub("B")) is an encrypted backup: give its password with "
                    + "--password-file FILE or in the environment variable SANDBOX_AUDIT_BACKUP_PASSWORD\n"
            )
        }
    }

    /// Decrypted with the right password from a file or the environment, refused in one line
    /// with a wrong one; no byte is written anywhere (the backup folder and a private TMPDIR are
    /// as they were), whether the scan succeeds or fails.
    func testAnEncryptedBackupIsDecryptedInMemoryWithItsPassword() throws {
        let dir = try TempDir("backup-cli")
        var b = BackupBuilder()
        b.file(T.appDomain, "Documents/a.txt", size: 10)
        b.file(T.appDomain, "Library/Preferences/\(T.app).plist", try BackupFolderTests.largePreferences())
        try b.write(to: dir.sub("B"), encryption: TestBackupEncryptor(password: "s3cret pass").builderEncryption)
        try "s3cret pass\n".write(toFile: dir.sub("pw"), atomically: true, encoding: .utf8)
        try "s3cret pasS\n".write(toFile: dir.sub("wrong"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dir.sub("tmp"), withIntermediateDirectories: false)
        let before = try FolderSnapshot(dir.sub("B"))
        let env = ["TMPDIR": dir.sub("tmp")]

        let viaFile = try CLI.run(
            ["scan", dir.sub("B"), "--app", T.app, "--format", "json", "--password-file", dir.sub("pw")],
            environment: env)
        XCTAssertEqual(viaFile.status, 0, viaFile.stderr)  // large-user-defaults is a warning here
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(viaFile.stdout.utf8)) as? [String: Any])
        let findings = json["findings"] as? [[String: Any]] ?? []
        XCTAssertTrue(
            findings.contains {
                $0["ruleId"] as? String == "large-user-defaults"
                    && ($0["message"] as? String ?? "").contains("avatarImage")
            })
        let inventory = try CLI.run(
            ["inventory", dir.sub("B"), "--app", T.app],
            environment: env.merging(["SANDBOX_AUDIT_BACKUP_PASSWORD": "s3cret pass"]) { $1 })
        XCTAssertEqual(inventory.status, 0, inventory.stderr)
        XCTAssertTrue(inventory.stdout.contains("Documents/a.txt"))

        let wrong = try CLI.run(
            ["scan", dir.sub("B"), "--app", T.app, "--password-file", dir.sub("wrong")], environment: env)
        XCTAssertEqual(wrong.status, 2)
        XCTAssertEqual(wrong.stderr, "sandbox-audit: error: \(dir.sub("B")): wrong password for the encrypted backup\n")
        XCTAssertFalse(wrong.stderr.contains("pasS"))
        XCTAssertEqual(try FolderSnapshot(dir.sub("B")), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.sub("tmp")), [])
    }
}
