import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// What users read cites what users can open: no output format, no `rules` text and no file in
/// docs/ names the project's private notes (domain.md, the seeds) or a repository file that
/// does not exist.
final class CitationTests: XCTestCase {
    static let repo = DocsTests.repo
    static let privateSource = try! NSRegularExpression(
        pattern: #"domain\.md|\bseeds?/|\bseeds? 0\d\d|\bseed 0\d"#, options: [.caseInsensitive])
    /// A repository-relative path: a top-level folder of the repository, not inside a longer path.
    static let repoPath = try! NSRegularExpression(
        pattern: #"(?<![\w/.~-])(?:docs|Sources|Tests|scripts|sample-containers)/[A-Za-z0-9_.\-/]*[A-Za-z0-9_\-/]"#)
    /// A link into the repository's files, built from `References.repository`.
    static let repoURL = try! NSRegularExpression(
        pattern: NSRegularExpression.escapedPattern(for: References.repository)
            + #"/blob/main/([A-Za-z0-9_.\-/]*[A-Za-z0-9_\-])"#)
    /// A relative Markdown link in a document: `](target)`.
    static let markdownLink = try! NSRegularExpression(pattern: #"\]\(([^)#\s]+)(?:#[^)]*)?\)"#)

    static func matches(_ re: NSRegularExpression, _ text: String, group: Int = 0) -> [String] {
        re.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: group), in: text).map { String(text[$0]) }
        }
    }

    /// The path itself, a symlink not followed (the samples hold links that point out of them).
    func exists(_ relative: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: Self.repo + "/" + relative)) != nil
    }

    /// Repository-relative paths in `text`; one that names a folder with a space in its name
    /// ("Library/Application Support/…", in annotations of the sample containers) is read on
    /// across the space when the longer path exists.
    func repoPaths(_ text: String) -> [String] {
        Self.repoPath.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            guard let r = Range(m.range, in: text) else { return nil }
            var path = String(text[r])
            var end = r.upperBound
            var tries = 0
            while !exists(path), tries < 4, end < text.endIndex, text[end] == " " {
                let rest = text[text.index(after: end)...]
                let word = rest.prefix { $0.isLetter || $0.isNumber || "_.-/".contains($0) }
                guard !word.isEmpty else { break }
                path += " " + word.trimmingCharacters(in: CharacterSet(charactersIn: "."))
                end = text.index(end, offsetBy: 1 + word.count)
                tries += 1
            }
            return path
        }
    }

    func check(_ text: String, _ source: String, relativeTo folder: String? = nil) {
        for hit in Self.matches(Self.privateSource, text) { XCTFail("\(source) mentions \(hit)") }
        for path in repoPaths(text) where !exists(path) {
            XCTFail("\(source) names \(path), which is not in the repository")
        }
        for path in Self.matches(Self.repoURL, text, group: 1) where !exists(path) {
            XCTFail("\(source) links to \(path), which is not in the repository")
        }
        if let folder {
            for target in Self.matches(Self.markdownLink, text, group: 1) where !target.contains(":") {
                let resolved = URL(fileURLWithPath: Self.repo + "/" + folder).appendingPathComponent(target)
                    .standardized.path
                XCTAssertTrue(
                    FileManager.default.fileExists(atPath: resolved),
                    "\(source) links to \(target), which is not in the repository")
            }
        }
    }

    func testEveryOutputCitesOnlyPublicSourcesAndExistingFiles() throws {
        let s = Self.repo + "/sample-containers/"
        let runs: [[String]] = [
            [s + "Misbehaving", "--config", s + "Misbehaving.sandbox-audit.yml"],
            [
                "--app", "com.example.misbehaving", "--app-group", "group.com.example.misbehaving",
                s + "MisbehavingDevice",
            ],
        ]
        for args in runs {
            for format in ReportFormat.allCases {
                let r = try CLI.run(["scan", "--format", format.rawValue] + args, cwd: Self.repo)
                XCTAssertEqual(r.status, 1, r.stderr)  // both misbehaving samples have findings at error
                check(r.stdout + r.stderr, "scan --format \(format.rawValue)")
            }
        }
        let list = try CLI.run(["rules"])
        check(list.stdout, "rules")
        for format in ["text", "markdown"] {
            check(try CLI.run(["rules", "--format", format]).stdout, "rules --format \(format)")
        }
        for rule in RuleCatalogue.all {
            check(try CLI.run(["rules", rule.id]).stdout, "rules \(rule.id)")
            check(SARIFReport.rule(rule).pretty, "SARIF rule \(rule.id)")
        }
    }

    func testDocsCiteOnlyPublicSourcesAndExistingFiles() throws {
        let docs = Self.repo + "/docs"
        let names = try FileManager.default.contentsOfDirectory(atPath: docs).filter { $0.hasSuffix(".md") }.sorted()
        XCTAssertTrue(names.contains("rules.md"))
        for name in names {
            check(try String(contentsOfFile: docs + "/" + name, encoding: .utf8), "docs/\(name)", relativeTo: "docs")
        }
        for name in ["README.md", "sample-containers/README.md"] {
            check(
                try String(contentsOfFile: Self.repo + "/" + name, encoding: .utf8), name,
                relativeTo: (name as NSString).deletingLastPathComponent)
        }
    }

    /// The test itself catches what it is for.
    func testTheCheckCatchesPrivateSourcesAndMissingFiles() {
        XCTAssertFalse(Self.matches(Self.privateSource, "(domain.md §1, seed 004 \"App Backup\")").isEmpty)
        XCTAssertEqual(
            Self.matches(Self.repoPath, "see docs/no-such-file.md and /abs/docs/x.md"), ["docs/no-such-file.md"])
        XCTAssertEqual(Self.matches(Self.repoURL, References.ruleHelp("x"), group: 1), ["docs/rules.md"])
    }
}
