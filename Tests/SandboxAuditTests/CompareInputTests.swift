import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// What `compare` and `scan --baseline` accept as a baseline or scan report: the documented
/// fields in their documented types, numbers exact integers, files refused early when they cannot
/// be JSON; and what `compare` says of two baselines (findings in full, backup-state changes, lost
/// exclusions, an incomplete side).
final class CompareInputTests: XCTestCase {
    /// A real baseline and scan report of a small container, written by `scan`.
    func scanned(in dir: TempDir, _ name: String = "base", extra: (String) throws -> Void = { _ in }) throws -> (
        baseline: String, report: String
    ) {
        let root = dir.sub(name)
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.md", size: 40)
        try Fixture.file(root + "/Library/Caches/thumbs.bin", size: 5_000)
        try extra(root)
        let baseline = dir.sub("\(name)-baseline.json")
        let report = dir.sub("\(name).json")
        let r = try CLI.run(["scan", root, "--write-baseline", baseline, "--output", "json=" + report])
        XCTAssertEqual(r.status, 0, r.stderr)
        return (baseline, report)
    }

    /// `file`'s JSON text with `edit` applied to its parsed object, written to `to`.
    func rewrite(_ file: String, to: String, _ edit: (inout [String: Any]) -> Void) throws {
        var o = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
        edit(&o)
        try JSONSerialization.data(withJSONObject: o).write(to: URL(fileURLWithPath: to))
    }

    /// Replaces the first `of` in the file's text by `with` (for numbers JSONSerialization
    /// cannot write: 2^64, 10^40).
    func replace(_ file: String, to: String, _ of: String, _ with: String, after anchor: String? = nil) throws {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        let from =
            try anchor.map { try XCTUnwrap(text.range(of: $0), "\($0) not in \(file)").upperBound } ?? text.startIndex
        let range = try XCTUnwrap(text.range(of: of, range: from..<text.endIndex), "\(of) not in \(file)")
        try text.replacingCharacters(in: range, with: with).write(toFile: to, atomically: true, encoding: .utf8)
    }

    func testNumbersThatAreNotExactIntegersAndValuesOfOtherTypesExitTwoNamingTheField() throws {
        let dir = try TempDir()
        let (baseline, report) = try scanned(in: dir)
        let recorded = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: baseline)))
        let footprint = try XCTUnwrap((recorded as? [String: Any])?["backupFootprint"] as? Int)
        let size = "\"size\": 40"
        let notes = "\"Documents/notes.md\""
        XCTAssertTrue(try String(contentsOfFile: baseline, encoding: .utf8).contains(size))
        let cases: [(String, (String) throws -> Void, String)] = [
            (
                "2^64 footprint",
                {
                    try self.replace(
                        baseline, to: $0, "\"backupFootprint\": \(footprint)",
                        "\"backupFootprint\": 18446744073709551616")
                }, "backupFootprint is not an integer"
            ),
            (
                "10^40 footprint",
                {
                    try self.replace(baseline, to: $0, "\"backupFootprint\": \(footprint)", "\"backupFootprint\": 1e40")
                }, "backupFootprint is not an integer"
            ),
            (
                "2^64 size",
                { try self.replace(baseline, to: $0, size, "\"size\": 18446744073709551616", after: notes) },
                "files[0].size is not an integer"
            ),
            (
                "1.5 size", { try self.replace(baseline, to: $0, size, "\"size\": 1.5", after: notes) },
                "files[0].size is not an integer"
            ),
            (
                "true size", { try self.replace(baseline, to: $0, size, "\"size\": true", after: notes) },
                "files[0].size is not an integer"
            ),
            (
                "backedUp yes",
                { try self.replace(baseline, to: $0, "\"backedUp\": true", "\"backedUp\": \"yes\"", after: notes) },
                "files[0].backedUp is not true or false"
            ),
            (
                "files an object", { try self.rewrite(baseline, to: $0) { $0["files"] = ["a": 1] } },
                "files is not an array"
            ),
            (
                "negative footprint",
                { try self.replace(baseline, to: $0, "\"backupFootprint\": \(footprint)", "\"backupFootprint\": -5") },
                "backupFootprint is negative (-5)"
            ),
            (
                "a scan report's string footprint",
                {
                    try self.rewrite(report, to: $0) { o in
                        var t = o["totals"] as? [String: Any] ?? [:]
                        t["backupFootprint"] = "X"
                        o["totals"] = t
                    }
                }, "totals.backupFootprint is not an integer"
            ),
        ]
        for (name, make, message) in cases {
            let bad = dir.sub("bad.json")
            try? FileManager.default.removeItem(atPath: bad)
            try make(bad)
            // Before, a grown footprint read as 0 passed --fail-on-growth: now it is refused.
            let r = try CLI.run(["compare", baseline, bad, "--fail-on-growth", "1"])
            XCTAssertEqual(r.status, 2, "\(name): \(r.stdout)\(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty, name)
            XCTAssertTrue(r.stderr.contains("HEAD \(bad)") && r.stderr.contains(message), "\(name): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            if !name.hasPrefix("a scan report") {
                let s = try CLI.run(["scan", dir.sub("base"), "--baseline", bad])
                XCTAssertEqual(s.status, 2, "\(name): \(s.stderr)")
                XCTAssertTrue(s.stderr.contains(message), "\(name): \(s.stderr)")
            }
        }
        // 1.0 and 1e3 are integers, written another way: read exactly.
        try replace(baseline, to: dir.sub("exp.json"), size, "\"size\": 4e1", after: notes)
        let r = try CLI.run(["compare", baseline, dir.sub("exp.json"), "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testFilesThatCannotBeJSONAreRefusedAtTheirFirstChunk() throws {
        let dir = try TempDir()
        let (baseline, _) = try scanned(in: dir)
        // Sparse: 400 MiB of zeros (under the size limit), and `{` then 400 MiB of zeros.
        let zeros = dir.sub("zeros.json")
        let brace = dir.sub("brace.json")
        let huge = dir.sub("huge.json")
        for (path, size) in [(zeros, 400 << 20), (brace, 400 << 20), (huge, 1 << 30)] {
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: path == brace ? Data("{".utf8) : nil))
            let h = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try h.truncate(atOffset: UInt64(size))
            try h.close()
        }
        let cases = [
            (zeros, "it holds the byte 0x00 at offset 0"), (brace, "it holds the byte 0x00 at offset 1"),
            (huge, "is 1073741824 bytes, over the limit of \(JSONDocument.maximumSize) bytes"),
        ]
        for (file, message) in cases {
            let m = try Measured.run(["compare", baseline, file])
            XCTAssertEqual(m.result.status, 2, m.result.stderr)
            XCTAssertTrue(m.result.stderr.contains(message), m.result.stderr)
            XCTAssertLessThan(m.peakMB, 100, "\(file): \(m.peakMB) MB")
            XCTAssertLessThan(m.seconds, 5, file)
            let s = try Measured.run(["scan", dir.sub("base"), "--baseline", file])
            XCTAssertEqual(s.result.status, 2, s.result.stderr)
            XCTAssertTrue(s.result.stderr.contains(message), s.result.stderr)
            XCTAssertLessThan(s.peakMB, 100, "\(file): \(s.peakMB) MB")
        }
        try Data("  [1, 2]".utf8).write(to: URL(fileURLWithPath: dir.sub("array.json")))
        let a = try CLI.run(["compare", dir.sub("array.json"), baseline])
        XCTAssertEqual(a.status, 2)
        XCTAssertTrue(a.stderr.contains("it does not begin with a JSON object (its first byte is 0x5B)"), a.stderr)
    }

    /// The measured cost of decoding a large real-shaped baseline stays within the stated budget
    /// (docs/limits.md): at most 6 times the files read, plus the tool's own 50 MB (it was 40 to
    /// 67 times with JSONSerialization).
    func testALargeBaselineIsDecodedWithinItsBudget() throws {
        let dir = try TempDir()
        let (small, _) = try scanned(in: dir)
        let big = dir.sub("big.json")
        try rewrite(small, to: big) { o in
            o["files"] = (0..<100_000).map { i in
                [
                    "path": "Library/Caches/some/folder/file-\(i).dat", "size": i * 17, "mtime": 1_700_000_000 + i,
                    "zone": "caches",
                    "backedUp": false, "inode": 1_000_000 + i, "excluded": false, "survivesUpdate": true,
                    "owner": NSNull(),
                ] as [String: Any]
            }
        }
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: big)[.size] as? Int)
        let m = try Measured.run(["compare", big, big, "--format", "json"])
        XCTAssertEqual(m.result.status, 0, m.result.stderr)
        // Two sides read, both held: within 6 times their size, plus the tool's own 50 MB.
        let budgetMB = Double(2 * size) * 6 / 1_048_576 + 50
        XCTAssertLessThan(m.peakMB, budgetMB, "a \(size)-byte baseline: \(m.peakMB) MB (budget \(budgetMB) MB)")
    }

    func testFindingsKeepSeverityAndMessageAndOldBaselinesAreStillRead() throws {
        let dir = try TempDir()
        let (base, _) = try scanned(in: dir, "base")
        let (head, _) = try scanned(in: dir, "head") { root in
            try Fixture.file(root + "/Downloads/stray.bin", size: 10)
        }
        let object = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: head))) as? [String: Any])
        XCTAssertEqual(object["schemaVersion"] as? Int, 3)
        XCTAssertEqual(object["complete"] as? Bool, true)
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: CLI.run(["compare", base, head, "--format", "json"]).stdoutBytes)
                as? [String: Any])
        let new = try XCTUnwrap(json["newFindings"] as? [[String: Any]])
        let stray = try XCTUnwrap(new.first { $0["path"] as? String == "Downloads" }, "\(new)")
        XCTAssertEqual(stray["ruleId"] as? String, "misplaced-at-root")
        XCTAssertNotNil(stray["severity"] as? String)
        XCTAssertFalse((stray["message"] as? String ?? "").isEmpty, "\(stray)")
        let text = try CLI.run(["compare", base, head]).stdout
        XCTAssertTrue(
            text.contains(
                "\(stray["severity"] as? String ?? "?") misplaced-at-root Downloads: "
                    + "\(stray["message"] as? String ?? "?")"
            ), text)

        // A version 2 baseline (no severity, message, complete): read as before.
        let old = dir.sub("v2.json")
        try rewrite(head, to: old) { o in
            o["schemaVersion"] = 2
            o["complete"] = nil
            o["missed"] = nil
            o["findings"] = (o["findings"] as? [[String: Any]] ?? []).map {
                ["ruleId": $0["ruleId"] as Any, "path": $0["path"] as Any]
            }
        }
        let v2 = try CLI.run(["compare", base, old, "--format", "json"])
        XCTAssertEqual(v2.status, 0, v2.stderr)
        let v2json = try XCTUnwrap(JSONSerialization.jsonObject(with: v2.stdoutBytes) as? [String: Any])
        let v2stray = try XCTUnwrap(
            (v2json["newFindings"] as? [[String: Any]])?.first { $0["path"] as? String == "Downloads" })
        XCTAssertTrue(v2stray["severity"] is NSNull && v2stray["message"] is NSNull, "\(v2stray)")
        XCTAssertEqual(
            try CLI.run(["scan", dir.sub("head"), "--baseline", old]).status,
            try CLI.run(["scan", dir.sub("head"), "--baseline", head]).status)
    }

    /// Three files excluded from backup in BASE lose the attribute in HEAD: `compare` names all
    /// three as lost exclusions and newly backed up, and says +300 kB.
    func testThreeLostExclusionsAreNamedWithTheirBytes() throws {
        let dir = try TempDir()
        let names = ["Library/Application Support/a.bin", "Library/Application Support/b.bin", "Documents/c.bin"]
        let (base, _) = try scanned(in: dir, "base") { root in
            for n in names {
                try Fixture.file(root + "/" + n, size: 100_000)
                try BackupMarker.set(
                    .exclude, value: BackupAttribute.canonicalValue, on: root + "/" + n, carrier: .native)
            }
            try Fixture.file(root + "/Documents/kept.bin", size: 7_000)
        }
        let (head, _) = try scanned(in: dir, "head") { root in
            for n in names { try Fixture.file(root + "/" + n, size: 100_000) }
            try Fixture.file(root + "/Documents/kept.bin", size: 7_000)
            try BackupMarker.set(
                .exclude, value: BackupAttribute.canonicalValue, on: root + "/Documents/kept.bin", carrier: .native)
        }
        let text = try CLI.run(["compare", base, head])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(
            text.stdout.contains("Exclusions lost (exclusion-lost: excluded in BASE, backed up in HEAD) (3, +300 kB):"),
            text.stdout)
        XCTAssertTrue(text.stdout.contains("Newly backed up (3, +300 kB):"), text.stdout)
        XCTAssertTrue(text.stdout.contains("No longer backed up (1, -7.00 kB):"), text.stdout)
        for n in names {
            XCTAssertTrue(
                text.stdout.contains("+0 B  \(n) (100 kB → 100 kB, backed up")
                    || text.stdout.contains("±0 B  \(n) (100 kB → 100 kB, backed up"), "\(n): \(text.stdout)")
        }
        let json = try XCTUnwrap(
            JSONSerialization.jsonObject(with: CLI.run(["compare", base, head, "--format", "json"]).stdoutBytes)
                as? [String: Any])
        XCTAssertEqual(
            Set((json["exclusionLost"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }), Set(names))
        XCTAssertEqual(json["exclusionLostCount"] as? Int, 3)
        XCTAssertEqual((json["noLongerBackedUp"] as? [[String: Any]])?.first?["path"] as? String, "Documents/kept.bin")
        XCTAssertEqual(
            ((json["total"] as? [String: Any])?["backupFootprint"] as? [String: Any])?["delta"] as? Int, 300_000 - 7_000
        )
        let md = try CLI.run(["compare", base, head, "--format", "markdown"]).stdout
        for n in names { XCTAssertTrue(md.contains(n), md) }
    }

    /// A side whose scan could not read everything: the scan's banner, what it missed, exit 1
    /// unless --allow-incomplete.
    func testAnIncompleteSideIsSaidAndFailsUnlessAllowed() throws {
        #if os(Linux)
            guard getuid() == 0 else { throw XCTSkip("drops privileges with setpriv, which needs root") }
        #else
            throw XCTSkip("drops privileges with setpriv (Linux)")
        #endif
        let dir = try TempDir()
        let (base, _) = try scanned(in: dir)
        let root = dir.sub("head")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.md", size: 40)
        try Fixture.file(root + "/Library/Application Support/secret/x.bin", size: 10)
        chmod(root + "/Library/Application Support/secret", 0o700)
        chmod(dir.path, 0o777)
        for sub in ["", "/Documents", "/Library", "/Library/Application Support"] { chmod(root + sub, 0o755) }
        let head = dir.sub("head-baseline.json")
        let report = dir.sub("head.json")
        let s = try CLI.run(
            ["scan", root, "--allow-incomplete", "--write-baseline", head, "--output", "json=" + report], asNobody: true
        )
        XCTAssertEqual(s.status, 0, s.stderr)
        for side in [head, report] {
            let r = try CLI.run(["compare", base, side])
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stdout.contains("INCOMPLETE SCAN (HEAD): 1 item could not be read"), r.stdout)
            XCTAssertTrue(
                r.stdout.contains("(see unreadable-entry); missed: Library/Application Support/secret: open directory"),
                r.stdout)
            XCTAssertEqual(try CLI.run(["compare", base, side, "--allow-incomplete"]).status, 0)
            let json = try XCTUnwrap(
                JSONSerialization.jsonObject(with: CLI.run(["compare", base, side, "--format", "json"]).stdoutBytes)
                    as? [String: Any])
            XCTAssertEqual(json["complete"] as? Bool, false)
            XCTAssertEqual((json["head"] as? [String: Any])?["complete"] as? Bool, false)
            XCTAssertEqual(((json["head"] as? [String: Any])?["missed"] as? [String])?.count, 1)
        }
    }

    func testErrorMessagesEscapeTheNamesTheyQuote() throws {
        let dir = try TempDir()
        let hostile = dir.sub("a\u{1B}]0;pwned\u{07}\u{202E}.json")
        try Data("nope".utf8).write(to: URL(fileURLWithPath: hostile))
        let r = try CLI.run(["compare", hostile, hostile])
        XCTAssertEqual(r.status, 2)
        XCTAssertFalse(
            r.stderr.contains("\u{1B}") || r.stderr.contains("\u{202E}") || r.stderr.contains("\u{07}"), r.stderr)
        XCTAssertTrue(r.stderr.contains("a\\x1B]0;pwned\\x07\\u{202E}.json"), r.stderr)
        let missing = try CLI.run(["compare", dir.sub("\u{1B}[31mred"), hostile])
        XCTAssertFalse(missing.stderr.contains("\u{1B}"), missing.stderr)
        let s = try CLI.run(["scan", dir.path, "--baseline", hostile])
        XCTAssertFalse(s.stderr.contains("\u{1B}"), s.stderr)
    }
}
