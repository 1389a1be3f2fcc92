import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The fixes findings suggest work: every rule example whose finding names a sandbox-audit
/// command is built on disk (real files, xattrs, sidecars, __MACOSX mirrors), the command is
/// run as printed with the built binary, and a rescan no longer reports that finding.
final class FixCommandTests: XCTestCase {
    /// The commands a fix text names: `sandbox-audit include|exclude … 'PATH'`, `rm -- 'PATH'`.
    static func commands(in fix: String) -> [String] {
        let pattern = try! NSRegularExpression(
            pattern: #"(?:sandbox-audit (?:include|exclude)(?: --[a-z]+(?: [a-z]+)?)*|rm --) '(?:[^']|'\\'')*'"#)
        return pattern.matches(in: fix, range: NSRange(fix.startIndex..., in: fix)).map {
            String(fix[Range($0.range, in: fix)!])
        }
    }

    func scan(_ root: String, _ example: RuleExample, config: String?) throws -> [[String: Any]] {
        var args = [root, "--kind", example.role.rawValue, "--allow-incomplete"]
        if let config { args += ["--config", config] }
        let (json, r) = try CLI.scanJSON(args)
        let findings = json["findings"] as? [[String: Any]] ?? []
        // Every rule's examples, before and after the fix: 1 exactly when a finding is at or above
        // the run's fail level (--allow-incomplete: a missed read does not fail it).
        let levels = ["note": 0, "warning": 1, "error": 2]
        let failOn = levels[(json["settings"] as? [String: Any])?["failOn"] as? String ?? ""] ?? 2
        let failing = findings.contains { levels[$0["severity"] as? String ?? ""] ?? -1 >= failOn }
        XCTAssertEqual(r.status, failing ? 1 : 0, "\(args): \(r.stderr)")
        return findings
    }

    func testEverySuggestedCommandFixesItsFinding() throws {
        let bin = (CLI.executable as NSString).deletingLastPathComponent
        var fixedRules: Set<String> = []
        var ran = 0
        for rule in RuleCatalogue.all {
            // A baseline or a backup is the second observation those examples need, a backup folder
            // or the app's Info.plist their input; their fixes name no command.
            for example in rule.description.triggeringExamples
            where example.before == nil && example.backup == nil && !example.backupInput && example.appInfoKeys == nil
                && example.sources == nil
            {
                let dir = try TempDir("fix")
                let root = dir.sub("App")
                try Fixture.materialize(example, at: root)
                var config: String?
                if let policy = example.policy {
                    config = dir.sub("policy.yml")
                    try policy.write(toFile: config!, atomically: true, encoding: .utf8)
                }
                let before = try scan(root, example, config: config).filter { $0["ruleId"] as? String == rule.id }
                XCTAssertFalse(before.isEmpty, "\(rule.id): '\(example.title)' reports nothing")
                for finding in before {
                    let fix = finding["fix"] as? String ?? ""
                    let commands = Self.commands(in: fix)
                    if fix.contains("sandbox-audit include") || fix.contains("sandbox-audit exclude") {
                        XCTAssertFalse(
                            commands.isEmpty,
                            "\(rule.id): '\(example.title)': the fix names a command without the path: \(fix)")
                    }
                    guard !commands.isEmpty else { continue }
                    for command in commands {
                        let r = try CLI.run(
                            ["-c", command], environment: ["PATH": bin + ":/usr/bin:/bin"], via: "/bin/sh")
                        XCTAssertEqual(r.status, 0, "\(rule.id): '\(example.title)': \(command): \(r.stderr)")
                        ran += 1
                    }
                    let path = finding["path"] as! String
                    let after = try scan(root, example, config: config).filter {
                        $0["ruleId"] as? String == rule.id && $0["path"] as? String == path
                    }
                    XCTAssertEqual(
                        after.map { $0["message"] as! String }, [],
                        "\(rule.id): '\(example.title)': \(commands) left the finding")
                    fixedRules.insert(rule.id)
                }
            }
        }
        XCTAssertEqual(
            fixedRules,
            [
                "excluded-user-data", "excluded-container-directory", "redundant-exclusion",
                "legacy-exclusion-attribute",
                "unrecognised-exclusion-value", "unexcluded-support-data", "orphan-sidecar", "unreadable-entry",
            ])
        XCTAssertGreaterThanOrEqual(ran, 12)
    }

    /// The fix names the carrier the scan saw: a sidecar, a mirror, a native attribute.
    func testFixNamesTheCarrier() throws {
        let dir = try TempDir("fix")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try Fixture.mkdirs(root + "/Documents/Drafts")
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Documents/Drafts", carrier: .sidecar)
        let fix = try CLI.scanJSON([root]).json["findings"].flatMap {
            ($0 as? [[String: Any]])?.first?["fix"] as? String
        }
        XCTAssertEqual(
            fix,
            "If it can be re-created, move it to Library/Caches or Application Support; if not, clear the attribute "
                + "(held in its ._ sidecar): sandbox-audit include --carrier sidecar '\(root)/Documents/Drafts'"
        )
    }

    /// `include` without --carrier clears every carrier; with it, that one only. `exclude`
    /// replaces an unrecognised value where it is, adding no native mark beside it.
    func testIncludeAndExcludeActWhereTheMarkIs() throws {
        let dir = try TempDir("fix")
        let root = dir.sub("App")
        try Fixture.container(at: root)
        let item = root + "/Documents/notes.txt"
        try Fixture.file(item, size: 10)
        try Fixture.mkdirs(root + "/__MACOSX/Documents")
        for carrier in BackupMarker.Carrier.allCases {
            try BackupMarker.set(.exclude, value: BackupAttribute.canonicalValue, on: item, carrier: carrier)
        }
        XCTAssertEqual(try BackupMarker.carriersHolding(.exclude, on: Array(item.utf8)), [.native, .sidecar, .macosx])
        let shown = try CLI.run(["attributes", item]).stdout
        XCTAssertTrue(shown.contains(" macosx \(root)/__MACOSX/Documents/._notes.txt = "), shown)
        var r = try CLI.run(["include", "--carrier", "macosx", item])
        XCTAssertEqual(r.stdout, "cleared \(item) (com.apple.metadata:com_apple_backup_excludeItem, macosx)\n")
        XCTAssertEqual(try BackupMarker.carriersHolding(.exclude, on: Array(item.utf8)), [.native, .sidecar])
        r = try CLI.run(["include", item])
        XCTAssertEqual(r.stdout, "cleared \(item) (com.apple.metadata:com_apple_backup_excludeItem, native, sidecar)\n")
        XCTAssertEqual(try BackupMarker.carriersHolding(.exclude, on: Array(item.utf8)), [])
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: root + "/Documents/._notes.txt"), "an emptied sidecar is removed")
        r = try CLI.run(["include", item])
        XCTAssertEqual(
            r.stdout, "not marked: \(item) (com.apple.metadata:com_apple_backup_excludeItem, native, sidecar, macosx)\n"
        )

        // An unrecognised value in a sidecar that holds other attributes too: replaced in place.
        try BackupMarker.set(.exclude, value: Array("true".utf8), on: item, carrier: .sidecar)
        try BackupMarker.set(.legacy, value: BackupAttribute.legacyValue, on: item, carrier: .sidecar)
        r = try CLI.run(["exclude", item])
        XCTAssertEqual(r.stdout, "excluded \(item) (com.apple.metadata:com_apple_backup_excludeItem, sidecar)\n")
        let marks = try BackupMarker.read(item)
        XCTAssertEqual(
            marks.filter { $0.attribute == .exclude }.map(\.source.kind), ["appledouble"], "no native mark added")
        XCTAssertEqual(marks.filter { $0.attribute == .exclude }.map(\.valueClass), [.canonical])
        XCTAssertEqual(marks.filter { $0.attribute == .legacy }.count, 1, "the other attribute is kept")
    }
}
