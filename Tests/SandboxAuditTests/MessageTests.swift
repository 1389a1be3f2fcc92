import Foundation
import XCTest

@testable import SandboxAuditReport

/// Messages as a developer reads them (issue 49): one line for a slip, one banner per cause, no
/// empty sections, numbers grouped, nothing said of a file that is not so.
final class MessageTests: XCTestCase {
    func testAFormatNotKnownNamesTheNearest() throws {
        let app = PluginTests.repository + "/sample-containers/WellBehaved"
        for (value, hint) in [
            ("gitlab", "did you mean 'codeclimate' or 'github'?"), ("xcodee", "did you mean 'xcode'?"),
        ] {
            let r = try CLI.run(["scan", app, "--format", value])
            XCTAssertEqual(r.status, 2)
            XCTAssertEqual(
                r.stderr,
                "sandbox-audit: error: '\(value)' is not a value of --format; \(hint) (it takes "
                    + "\(ReportFormat.allCases.map(\.rawValue).joined(separator: ", "))) (see 'sandbox-audit --help')\n"
            )
        }
        let short = try CLI.run(["compare", "a.json", "b.json", "--format", "mardown"])
        XCTAssertEqual(short.status, 2)
        XCTAssertEqual(
            short.stderr,
            "sandbox-audit: error: 'mardown' is not a value of --format; did you mean 'markdown'? (it takes text, "
                + "markdown, json) (see 'sandbox-audit --help')\n"
        )
    }

    /// Two baselines of one container, the second with a 12 MB MMKV file (an owner's path, and
    /// an oversized-backed-up-file finding); the first marked incomplete, with 12 missed items.
    private func baselines(_ dir: TempDir) throws -> (String, String) {
        let root = dir.sub("app")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/a.bin", size: 1000)
        XCTAssertEqual(try CLI.run(["scan", root, "--write-baseline", dir.sub("a.json")]).status, 0)
        try Fixture.file(root + "/Documents/mmkv/big.mmkv", size: 12_000_000)
        XCTAssertEqual(try CLI.run(["scan", root, "--write-baseline", dir.sub("b.json")]).status, 0)
        var a = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("a.json"))))
                as? [String: Any])
        a["complete"] = false
        a["missed"] = (0..<12).map { ["path": "Library/x\($0)", "what": "open directory", "why": "Permission denied"] }
        try JSONSerialization.data(withJSONObject: a).write(to: URL(fileURLWithPath: dir.sub("a.json")))
        return (dir.sub("a.json"), dir.sub("b.json"))
    }

    func testCompareMarkdownHasOneBannerAndNoEmptySection() throws {
        let dir = try TempDir("messages-compare")
        let (a, b) = try baselines(dir)
        let r = try CLI.run(["compare", a, b, "--format", "markdown", "--allow-incomplete"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.components(separatedBy: "INCOMPLETE SCAN").count - 1, 1, r.stdout)
        XCTAssertTrue(
            r.stdout.contains("; missed: Library/x0: open directory (Permission denied); Library/x1: "), r.stdout)
        XCTAssertTrue(r.stdout.contains("; and 2 more**"), r.stdout)
        XCTAssertFalse(r.stdout.contains("None."), r.stdout)
        XCTAssertFalse(r.stdout.contains("(0)"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains("*Nothing in: Paths grown most, Removed paths, Newly backed up, No longer backed up, "),
            r.stdout)
        XCTAssertTrue(r.stdout.contains("### New paths (1)\n\n- +12.0 MB  Documents/mmkv/big.mmkv"), r.stdout)
    }

    /// A baseline's findings name no owner, but its files do: compare's JSON names the owner its
    /// text does.
    func testCompareJSONNamesTheFindingsOwner() throws {
        let dir = try TempDir("messages-owner")
        let (a, b) = try baselines(dir)
        let text = try CLI.run(["compare", a, b, "--allow-incomplete"])
        XCTAssertTrue(
            text.stdout.contains("Documents/mmkv/big.mmkv: 12.0 MB file is backed up (limit 10.0 MB) (owner MMKV)"),
            text.stdout)
        let r = try CLI.run(["compare", a, b, "--format", "json", "--allow-incomplete"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        let found = try XCTUnwrap(
            (json["newFindings"] as? [[String: Any]])?.first { $0["path"] as? String == "Documents/mmkv/big.mmkv" })
        XCTAssertEqual(found["owner"] as? String, "MMKV")
    }

    func testTrendHasOneBannerForEveryIncompletePoint() throws {
        let dir = try TempDir("messages-trend")
        let (a, b) = try baselines(dir)
        let r = try CLI.run(["trend", a, b, a, "--format", "markdown"])
        XCTAssertEqual(r.stdout.components(separatedBy: "INCOMPLETE SCAN").count - 1, 1, r.stdout)
        XCTAssertTrue(
            r.stdout.contains("INCOMPLETE SCAN: file 1 (12 items), file 3 (12 items) could not be read in full"),
            r.stdout)
        XCTAssertFalse(r.stdout.contains("### Paths grown most"), r.stdout)
        XCTAssertTrue(r.stdout.hasSuffix("*Nothing in: Paths grown most.*\n"), r.stdout)
    }

    /// A file excluded from backup that grows at every step is not said to be where backup
    /// carries it.
    func testTrendSaysAnExcludedFileIsNotBackedUp() throws {
        let dir = try TempDir("messages-excluded")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        var files: [String] = []
        for (i, size) in [1000, 2000, 3000].enumerated() {
            try Fixture.file(root + "/Documents/queue.log", size: size)
            XCTAssertEqual(try CLI.run(["exclude", root + "/Documents/queue.log"]).status, 0)
            XCTAssertEqual(try CLI.run(["scan", root, "--write-baseline", dir.sub("\(i).json")]).status, 0)
            files.append(dir.sub("\(i).json"))
        }
        let r = try CLI.run(["trend"] + files + ["--format", "json"])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
        let flagged = try XCTUnwrap((json["grewEveryStep"] as? [[String: Any]])?.first, "\(json)")
        XCTAssertEqual(flagged["backedUp"] as? Bool, false)
        XCTAssertEqual(flagged["cause"] as? String, "excluded")
        XCTAssertFalse((flagged["why"] as? String ?? "").contains("where backup carries it"))
    }

    func testOneSystemEntryIsOneEntry() throws {
        let dir = try TempDir("messages-system")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        try Fixture.file(root + "/.com.apple.mobile_container_manager.metadata.plist", size: 10)
        let r = try CLI.run(["scan", root])
        XCTAssertTrue(r.stdout.contains("(1 system entry listed but not counted)"), r.stdout)
    }
}
