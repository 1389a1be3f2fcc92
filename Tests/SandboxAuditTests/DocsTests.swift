import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The documents in docs/ cannot drift from the code.
final class DocsTests: XCTestCase {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func read(_ relative: String) throws -> String {
        try String(contentsOfFile: Self.repo + "/" + relative, encoding: .utf8)
    }

    /// Every file made from the code (the rule catalogue, the owners page, the policy schema,
    /// the usage page) is what the code makes now: checked by the command that writes them.
    func testDerivedFilesAreCurrent() throws {
        let r = try CLI.run(["generate-docs", "--check", "--root", Self.repo])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "")
        // It names what is stale, and writes nothing when checking.
        let dir = try TempDir("derived")
        try FileManager.default.createDirectory(atPath: dir.sub("docs"), withIntermediateDirectories: true)
        try Fixture.bytes(dir.sub("docs/rules.md"), Array("old\n".utf8))
        let stale = try CLI.run(["generate-docs", "--check", "--root", dir.path])
        XCTAssertEqual(stale.status, 1)
        XCTAssertEqual(
            stale.stderr,
            "stale: docs/rules.md, docs/owners.md, docs/policy.schema.json, docs/usage.md (regenerate with: swift "
                + "run sandbox-audit generate-docs)\n"
        )
        XCTAssertEqual(try String(contentsOfFile: dir.sub("docs/rules.md"), encoding: .utf8), "old\n")
        let write = try CLI.run(["generate-docs", "--root", dir.path])
        XCTAssertEqual(write.status, 0, write.stderr)
        XCTAssertEqual(
            try String(contentsOfFile: dir.sub("docs/rules.md"), encoding: .utf8), RulesCatalogueReport.markdown())
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.sub("docs")).sorted(),
            ["owners.md", "policy.schema.json", "rules.md", "usage.md"])
    }

    /// The README is a front door: short, the quick start's two commands, a section per job, and
    /// the reference in docs/ (docs/usage.md holds every option).
    func testTheReadmeIsAFrontDoor() throws {
        let readme = try read("README.md")
        XCTAssertLessThanOrEqual(readme.utf8.count, 25_000)
        let headings = readme.split(separator: "\n").filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
        XCTAssertEqual(
            headings,
            [
                "Quick start", "Scan in CI", "The pre-release report", "Backup-size budgeting", "Install", "Licence",
                "Documentation",
            ])
        XCTAssertTrue(
            readme.contains("```sh\nscripts/setup.sh\nscripts/setup.sh test\n```"), "the quick start's two commands")
        XCTAssertTrue(readme.contains("(docs/usage.md)"))
    }

    /// GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens.
    static func anchors(_ markdown: String) -> Set<String> {
        Set(
            markdown.split(separator: "\n").filter { $0.hasPrefix("#") }.map { line in
                let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
                return String(
                    title.filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }.map {
                        $0 == " " ? "-" : $0
                    })
            })
    }

    /// docs/report-formats.md lists exactly the registered formats, has each one's section at the
    /// anchor it declares, and no section for a format the tool does not have.
    func testReportFormatsDocumentTheRegisteredFormats() throws {
        let doc = try read("docs/report-formats.md")
        let intro = try XCTUnwrap(doc.range(of: "Formats: ").map { doc[$0.upperBound...] }?.prefix { $0 != "." })
        let listed = intro.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
            $0.offset % 2 == 1
        }.map { String($0.element) }
        XCTAssertEqual(listed, ReportFormat.allCases.map(\.rawValue), "docs/report-formats.md: the list of formats")
        let anchors = Self.anchors(doc)
        for format in ReportFormat.allCases {
            XCTAssertTrue(
                anchors.contains(format.documentation),
                "docs/report-formats.md has no section #\(format.documentation) for \(format.rawValue)")
        }
        let sectioned = try NSRegularExpression(pattern: #"^## .*\(`(\w[\w-]*)`\)$"#, options: .anchorsMatchLines)
        for m in sectioned.matches(in: doc, range: NSRange(doc.startIndex..., in: doc)) {
            let name = String(doc[Range(m.range(at: 1), in: doc)!])
            XCTAssertNotNil(
                ReportFormat(rawValue: name),
                "docs/report-formats.md has a section for '\(name)', which is not a format")
        }
    }

    /// The README and docs name only formats the tool has, and the README points at their documentation.
    func testReadmeAndDocsNameRegisteredFormats() throws {
        let readme = try read("README.md")
        XCTAssertTrue(readme.contains("(docs/report-formats.md)"))
        let named = try NSRegularExpression(pattern: #"--format (\w[\w-]*)|--output (\w[\w-]*)="#)
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.repo + "/docs").filter {
            $0.hasSuffix(".md")
        }.map { "docs/" + $0 }
        for file in ["README.md"] + docs {
            let text = try read(file)
            for m in named.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let r = m.range(at: 1).location != NSNotFound ? m.range(at: 1) : m.range(at: 2)
                let name = String(text[Range(r, in: text)!])
                guard name == name.lowercased(), name.first?.isLetter == true else { continue }  // FORMAT, $F
                XCTAssertNotNil(
                    ReportFormat(rawValue: name), "\(file) names the format '\(name)', which the tool does not have")
            }
        }
    }

    /// The rule ids the sample tables of sample-containers/README.md name are rules the tool has.
    func testSampleReadmeNamesRegisteredRules() throws {
        let doc = try read("sample-containers/README.md")
        var inRuleTable = false
        var seen = 0
        for line in doc.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| rule |") {
                inRuleTable = true
                continue
            }
            guard line.hasPrefix("|") else {
                inRuleTable = false
                continue
            }
            guard inRuleTable, line.hasPrefix("| `") else { continue }
            let id = String(line.dropFirst(3).prefix { $0 != "`" })
            XCTAssertNotNil(
                RuleCatalogue.rule(id: id),
                "sample-containers/README.md names the rule '\(id)', which the tool does not have")
            seen += 1
        }
        XCTAssertGreaterThan(seen, 10, "no rule tables found in sample-containers/README.md")
    }

    /// Every key the JSON outputs emit (at any depth) is documented as `key`.
    static func keys(_ value: Any, into set: inout Set<String>) {
        if let object = value as? [String: Any] {
            for (k, v) in object {
                set.insert(k)
                keys(v, into: &set)
            }
        } else if let array = value as? [Any] {
            for v in array { keys(v, into: &set) }
        }
    }

    func testEveryJSONFieldIsDocumented() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/Application Support/a.bin"), size: 2_000_000)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Library/Application Support/a.bin"),
            carrier: .native)
        try Fixture.file(dir.sub("Documents/b.bin"), size: 2_000_000)
        try FileManager.default.createSymbolicLink(atPath: dir.sub("Documents/l"), withDestinationPath: "b.bin")
        XCTAssertEqual(mkfifo(dir.sub("tmp/p"), 0o644), 0)
        // A name that is not UTF-8 (its path's Base64 fields), where the file system takes one.
        if NonUTF8Names.accepted(in: dir.path) {
            let odd = Array(dir.sub("stray").utf8) + [0xFF]
            let fd = (odd + [0]).withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) {
                    open($0, O_WRONLY | O_CREAT, 0o644)
                }
            }
            close(fd)
        }

        var inventoryKeys = Set<String>()
        for (_, entry) in try CLI.inventory(dir.path).entries { Self.keys(entry, into: &inventoryKeys) }
        let inventoryDoc = try read("docs/inventory-format.md")
        for key in inventoryKeys {
            XCTAssertTrue(inventoryDoc.contains("`\(key)`"), "docs/inventory-format.md does not document `\(key)`")
        }

        var scanKeys = Set<String>()
        Self.keys(try CLI.scanJSON([dir.path]).json, into: &scanKeys)
        let scanDoc = try read("docs/json-format.md")
        for key in scanKeys {
            XCTAssertTrue(scanDoc.contains("`\(key)`"), "docs/json-format.md does not document `\(key)`")
        }
    }

    /// The library's public surface is what docs/ARCHITECTURE.md lists: every public type named
    /// there, and each stage small enough to read on one screen.
    func testPublicSurfaceIsTheDocumentedOne() throws {
        let doc = try read("docs/ARCHITECTURE.md")
        let rest = doc[try XCTUnwrap(doc.range(of: "## The public surface")).upperBound...]
        let table = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        let declaration = try NSRegularExpression(
            pattern: #"^\s*(@\w+ )*(nonisolated\(unsafe\) )?public (final |indirect )?(\w+) ?(\w*)"#,
            options: .anchorsMatchLines)
        var perStage: [String: Int] = [:]
        // Every stage target's folders (Sources/SandboxAuditCore/Input …): a stage is a folder.
        var files: [String] = []
        for target in ArchitectureTests.stages {
            files += try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: Self.repo + "/Sources/" + target))
                .filter { $0.hasSuffix(".swift") }.map { target + "/" + $0 }
        }
        for path in files {
            let text = try String(contentsOfFile: Self.repo + "/Sources/" + path, encoding: .utf8)
            let file = String(path.drop { $0 != "/" }.dropFirst())
            let stage = file.contains("/") ? String(file.prefix { $0 != "/" }) : file
            for m in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                perStage[stage, default: 0] += 1
                let keyword = String(text[Range(m.range(at: 4), in: text)!])
                let name = String(text[Range(m.range(at: 5), in: text)!])
                if ["struct", "enum", "class", "protocol"].contains(keyword) {
                    XCTAssertTrue(
                        table.contains("`\(name)`"),
                        "\(file): public \(keyword) \(name) is not listed in docs/ARCHITECTURE.md, The public surface")
                }
            }
        }
        XCTAssertGreaterThan(perStage.count, 5, "no public declarations found under Sources/SandboxAudit*")
        for (stage, count) in perStage.sorted(by: { $0.key < $1.key }) {
            XCTAssertLessThanOrEqual(count, 40, "\(stage) has \(count) public declarations")
        }
    }
}
