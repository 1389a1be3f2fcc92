import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// `--sources`, through the built binary on a real container and a real source folder: each
/// entry and finding carries the lines that build its path, the formats developers look at put
/// the finding on the code, a framework's file gets no line, and without `--sources` nothing
/// changes.
final class SourcesCLITests: XCTestCase {
    static let store = """
        import Foundation

        enum Folders {
            static let videos = "VideoCache"
        }

        final class VideoStore {
            let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
            lazy var cache = documents.appendingPathComponent(Folders.videos)
            func file(_ id: String) -> URL { cache.appendingPathComponent("\\(id).mp4") }
        }

        """

    /// A working folder holding the container (`App`) and the app's sources (`src`).
    func workspace(_ dir: TempDir) throws -> (app: String, sources: String) {
        let app = dir.sub("App")
        try Fixture.container(at: app)
        try Fixture.file(app + "/Documents/VideoCache/intro.mp4", size: 12_000_000)
        try Fixture.file(app + "/Library/Cookies/Cookies.binarycookies", size: 300)
        try Fixture.file(app + "/Documents/notes.txt", size: 10)
        try Fixture.mkdirs(dir.sub("src/Feed"))
        try Self.store.write(toFile: dir.sub("src/Feed/VideoStore.swift"), atomically: false, encoding: .utf8)
        return (app, dir.sub("src"))
    }

    func testInventoryLinesCarryTheLinesThatBuildEachPath() throws {
        let dir = try TempDir("sources")
        let (app, sources) = try workspace(dir)
        let r = try CLI.run(["inventory", app, "--sources", sources])
        XCTAssertEqual(r.status, 0, r.stderr)
        var lines: [String: [[String: Any]]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            lines[o["path"] as! String] = try XCTUnwrap(o["source"] as? [[String: Any]], "no source on \(line)")
        }
        func first(_ path: String) -> String? {
            lines[path]?.first.map { "\($0["file"]!):\($0["line"]!):\($0["column"]!)" }
        }
        XCTAssertEqual(first("Documents/VideoCache"), "Feed/VideoStore.swift:9:32")
        XCTAssertEqual(first("Documents/VideoCache/intro.mp4"), "Feed/VideoStore.swift:10:44")
        XCTAssertEqual(lines["Documents/VideoCache/intro.mp4"]?.count, 2, "the file's line, then its folder's")
        XCTAssertEqual(lines["Library/Cookies/Cookies.binarycookies"]?.count, 0, "CFNetwork writes it, no app line")
        XCTAssertEqual(lines["Documents/notes.txt"]?.count, 0, "no line of the app names it")
        XCTAssertEqual(lines["Documents"]?.count, 0, "a standard folder is no app line")

        let plain = try CLI.run(["inventory", app])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertFalse(plain.stdout.contains("\"source\""), "without --sources the lines are as they were")
    }

    func testFindingsLandOnTheCodeWhereDevelopersLook() throws {
        let dir = try TempDir("sources")
        let (app, _) = try workspace(dir)
        let args = ["scan", "App", "--sources", "src"]
        let swift = dir.sub("src/Feed/VideoStore.swift")

        let xcode = try CLI.run(args + ["--format", "xcode"], cwd: dir.path)
        XCTAssertEqual(xcode.status, 0, "warnings only: " + xcode.stderr)
        let onCode = xcode.stdout.split(separator: "\n").filter { $0.hasPrefix(swift + ":") }
        XCTAssertTrue(
            onCode.contains { $0.hasPrefix(swift + ":9:32: warning: App/Documents/VideoCache: ") }, xcode.stdout)
        XCTAssertTrue(onCode.contains { $0.hasPrefix(swift + ":10:44: ") && $0.contains("intro.mp4") }, xcode.stdout)

        let github = try CLI.run(args + ["--format", "github"], cwd: dir.path)
        XCTAssertTrue(
            github.stdout.contains("file=src/Feed/VideoStore.swift,line=9,col=32,title=recreatable-in-documents"),
            github.stdout)

        let gitlab = try CLI.run(args + ["--format", "codeclimate"], cwd: dir.path)
        let issues = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(gitlab.stdout.utf8)) as? [[String: Any]])
        let onSource = issues.compactMap { $0["location"] as? [String: Any] }.filter {
            $0["path"] as? String == "src/Feed/VideoStore.swift"
        }
        XCTAssertFalse(onSource.isEmpty, gitlab.stdout)
        XCTAssertTrue(onSource.contains { ($0["lines"] as? [String: Any])?["begin"] as? Int == 9 })

        let text = try CLI.run(args, cwd: dir.path)
        XCTAssertTrue(text.stdout.contains("written by Feed/VideoStore.swift:9\n"), text.stdout)
        for format in ["markdown", "html"] {
            let r = try CLI.run(args + ["--format", format], cwd: dir.path)
            XCTAssertTrue(r.stdout.contains("written by Feed/VideoStore.swift:9"), format)
        }
        let (json, _) = try CLI.scanJSON(["App", "--sources", "src"], cwd: dir.path)
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        let cache = try XCTUnwrap(findings.first { $0["ruleId"] as? String == "recreatable-in-documents" })
        let source = try XCTUnwrap(cache["source"] as? [[String: Any]])
        XCTAssertEqual(source.first?["line"] as? Int, 9)

        // SARIF: the code is the result's location, under SRCROOT (the working folder), and the
        // container's path a related location; valid SARIF 2.1.0.
        let sarifPath = dir.sub("report.sarif")
        let s = try CLI.run(args + ["--output", "sarif=" + sarifPath], cwd: dir.path)
        XCTAssertEqual(s.status, 0, s.stderr)
        let sarif = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: sarifPath))) as? [String: Any])
        let run = try XCTUnwrap((sarif["runs"] as? [[String: Any]])?.first)
        let results = try XCTUnwrap(run["results"] as? [[String: Any]])
        let located = results.compactMap { r -> [String: Any]? in
            let loc = (r["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
            return (loc?["artifactLocation"] as? [String: Any])?["uriBaseId"] as? String == "SRCROOT" ? r : nil
        }
        XCTAssertFalse(located.isEmpty)
        for r in located {
            let loc = (r["locations"] as! [[String: Any]])[0]["physicalLocation"] as! [String: Any]
            XCTAssertEqual((loc["artifactLocation"] as! [String: Any])["uri"] as? String, "src/Feed/VideoStore.swift")
            XCTAssertNotNil((r["relatedLocations"] as? [[String: Any]])?.first)
        }
        let base = try XCTUnwrap((run["originalUriBaseIds"] as? [String: Any])?["SRCROOT"] as? [String: Any])
        XCTAssertEqual(base["uri"] as? String, SARIFReport.fileURI(dir.path))
        try Tool.requirePython("jsonschema", for: "validating SARIF")
        _ = try python(ReportTests.validateSARIF, [ReportTests.schema, sarifPath])

        // Without --sources, no report names a source line.
        for format in ["text", "xcode", "github", "json"] {
            let r = try CLI.run(["scan", app, "--format", format])
            XCTAssertFalse(r.stdout.contains("VideoStore.swift") || r.stdout.contains("\"source\": ["), format)
        }
    }

    func testTheCodeOnlyRuleAndThePolicyKey() throws {
        let dir = try TempDir("sources")
        let (app, _) = try workspace(dir)
        try """
        import Foundation
        let thumbs = URL.documentsDirectory.appending(path: "Thumbnails")
        """.write(toFile: dir.sub("src/Thumbs.swift"), atomically: false, encoding: .utf8)
        // sources: in the policy file, relative to the file's folder.
        try "sources: src\n".write(toFile: dir.sub("policy.yml"), atomically: false, encoding: .utf8)
        let (json, r) = try CLI.scanJSON([app, "--config", dir.sub("policy.yml")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        let code = findings.filter { $0["ruleId"] as? String == "recreatable-in-documents-code" }
        XCTAssertEqual(code.map { $0["path"] as? String }, ["Documents/Thumbnails"])
        XCTAssertEqual((code.first?["source"] as? [[String: Any]])?.first?["file"] as? String, "Thumbs.swift")

        // Without the sources, the rule is not checked, and says why.
        let plain = try CLI.run(["scan", app])
        XCTAssertTrue(
            plain.stdout.contains("recreatable-in-documents-code") && plain.stdout.contains("--sources DIR"),
            plain.stdout)
    }

    func testSourcesThatCannotBeReadFailOrAreSaid() throws {
        let dir = try TempDir("sources")
        let (app, sources) = try workspace(dir)
        // A folder that is not there, or a file: one line, exit 2, before the container is read.
        for bad in [dir.sub("missing"), dir.sub("src/Feed/VideoStore.swift")] {
            let r = try CLI.run(["scan", app, "--sources", bad])
            XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("--sources"), r.stderr)
        }
        // Files it cannot read are said, never a crash or a hang: not UTF-8, a FIFO named .swift,
        // a link out of the tree, a file over the bound.
        try Data([0xFF, 0xFE, 0x00, 0x41]).write(to: URL(fileURLWithPath: sources + "/Latin1.swift"))
        XCTAssertEqual(mkfifo(sources + "/Pipe.swift", 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: sources + "/Out.swift", withDestinationPath: "/etc/passwd")
        try Data(count: 5 << 20).write(to: URL(fileURLWithPath: sources + "/Huge.swift"))
        let r = try CLI.run(["scan", app, "--sources", sources])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("source files under"), r.stdout)
        XCTAssertTrue(r.stdout.contains("written by Feed/VideoStore.swift:9"), "what could be read is used")
    }

    /// The sample app (sample-containers/MisbehavingApp) and its device folder: every finding on a
    /// path its code builds names that line, the HTTP cache URLCache writes names none, xcode
    /// lines start with the Swift file, and SARIF's locations are repository paths.
    func testTheSampleFindingsPointAtTheSampleCode() throws {
        let repo = DocsTests.repo
        let device = [
            "sample-containers/MisbehavingDevice", "--app", "com.example.misbehaving", "--app-group",
            "group.com.example.misbehaving", "--sources", "sample-containers/MisbehavingApp",
        ]
        let (json, r) = try CLI.scanJSON(device, cwd: repo)
        XCTAssertEqual(r.status, 1, r.stderr)
        let findings = try XCTUnwrap(json["findings"] as? [[String: Any]])
        func line(_ f: [String: Any]) -> String? {
            (f["source"] as? [[String: Any]])?.first.map { "\($0["file"]!):\($0["line"]!)" }
        }
        let byPath = Dictionary(findings.map { ($0["path"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(byPath["Documents/VideoCache"].flatMap(line), "Feed/VideoStore.swift:6")
        XCTAssertEqual(byPath["Library/Application Support/Store.sqlite"].flatMap(line), "Persistence/Store.swift:10")
        XCTAssertEqual(byPath["Downloads"].flatMap(line), "Podcasts/Downloads.swift:6")
        XCTAssertEqual(byPath["tmp/upload-queue"].flatMap(line), "Sync/UploadQueue.swift:7")
        let withLine = findings.filter { line($0) != nil }
        XCTAssertGreaterThanOrEqual(withLine.count, 12)

        let inventory = try CLI.run(["inventory"] + device, cwd: repo)
        let cache = try XCTUnwrap(
            inventory.stdout.split(separator: "\n").first {
                $0.contains("\"Library/Caches/com.example.misbehaving/Cache.db\"")
            })
        XCTAssertTrue(cache.contains("\"source\":[]"), "URLCache's database: no line of the app")

        let xcode = try CLI.run(["scan"] + device + ["--format", "xcode"], cwd: repo)
        let onCode = xcode.stdout.split(separator: "\n").filter { $0.contains(".swift:") }
        XCTAssertEqual(onCode.count, withLine.count, xcode.stdout)
        for l in onCode { XCTAssertTrue(l.hasPrefix(repo + "/sample-containers/MisbehavingApp/"), String(l)) }

        let tmp = try TempDir("sample-sarif")
        let sarifPath = tmp.sub("r.sarif")
        _ = try CLI.run(["scan"] + device + ["--output", "sarif=" + sarifPath], cwd: repo)
        let sarif = try String(contentsOfFile: sarifPath, encoding: .utf8)
        XCTAssertTrue(
            sarif.contains("\"uri\" : \"sample-containers/MisbehavingApp/Feed/VideoStore.swift\"")
                || sarif.contains("\"uri\": \"sample-containers/MisbehavingApp/Feed/VideoStore.swift\""))
        try Tool.requirePython("jsonschema", for: "validating SARIF")
        _ = try python(ReportTests.validateSARIF, [ReportTests.schema, sarifPath])
    }

    /// `compare --sources`: the paths that appeared between two baselines name their lines.
    func testCompareNamesTheLinesOfThePathsThatChanged() throws {
        let dir = try TempDir("sources")
        let (app, sources) = try workspace(dir)
        try FileManager.default.removeItem(atPath: app + "/Documents/VideoCache")
        XCTAssertEqual(try CLI.run(["scan", app, "--write-baseline", dir.sub("base.json")]).status, 0)
        try Fixture.file(app + "/Documents/VideoCache/intro.mp4", size: 12_000_000)
        XCTAssertEqual(try CLI.run(["scan", app, "--write-baseline", dir.sub("head.json")]).status, 0)
        let r = try CLI.run([
            "compare", dir.sub("base.json"), dir.sub("head.json"), "--sources", sources, "--format", "json",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let added = try XCTUnwrap(json["added"] as? [[String: Any]])
        let intro = try XCTUnwrap(added.first { $0["path"] as? String == "Documents/VideoCache/intro.mp4" })
        XCTAssertEqual((intro["source"] as? [[String: Any]])?.first?["line"] as? Int, 10)
        let text = try CLI.run(["compare", dir.sub("base.json"), dir.sub("head.json"), "--sources", sources])
        XCTAssertTrue(text.stdout.contains("written by Feed/VideoStore.swift:10"), text.stdout)
        let plain = try CLI.run(["compare", dir.sub("base.json"), dir.sub("head.json"), "--format", "json"])
        XCTAssertFalse(plain.stdout.contains("\"source\""), "without --sources, as before")
        XCTAssertEqual(
            try CLI.run(["compare", dir.sub("base.json"), dir.sub("head.json"), "--sources", dir.sub("no")]).status, 2)
    }
}
