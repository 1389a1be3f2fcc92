import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Every registered report format, run through the built binary: each one shows an incomplete
/// scan, and the command line takes exactly the registered names (docs/report-formats.md is
/// checked against the registry by `DocsTests`).
final class ReportFormatTests: XCTestCase {
    /// For each format: a complete scan's report lacks the format's incomplete marker; once a
    /// truncated `._` sidecar makes one entry unreadable, the report carries it (with
    /// `--allow-incomplete` too: accepted, the report still says so).
    func testEveryFormatShowsAnIncompleteScan() throws {
        let dir = try TempDir("formats")
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Documents/Recipes.pdf"), size: 4096)
        func report(_ format: ReportFormat, _ extra: [String] = []) throws -> CLI.Result {
            try CLI.run(["scan", dir.path, "--format", format.rawValue, "--color", "never"] + extra)
        }
        var complete: [ReportFormat: String] = [:]
        for format in ReportFormat.allCases {
            let r = try report(format)
            XCTAssertEqual(r.status, 0, "\(format.rawValue): \(r.stderr)")
            complete[format] = r.stdout
        }
        // An AppleDouble header cut short after its entry count: the sidecar cannot be read.
        try Fixture.bytes(dir.sub("Documents/._Recipes.pdf"), [0, 5, 22, 7, 0, 2] + [UInt8](repeating: 0, count: 14))
        for format in ReportFormat.allCases {
            XCTAssertFalse(
                complete[format]!.contains(format.incompleteMarker),
                "\(format.rawValue): the complete scan shows \(format.incompleteMarker)")
            let incomplete = try report(format)
            XCTAssertEqual(incomplete.status, 1, "\(format.rawValue): an incomplete scan fails")
            XCTAssertTrue(
                incomplete.stdout.contains(format.incompleteMarker),
                "\(format.rawValue) does not show the incomplete scan:\n\(incomplete.stdout)")
            let accepted = try report(format, ["--allow-incomplete"])
            XCTAssertEqual(accepted.status, 0, "\(format.rawValue) with --allow-incomplete")
            XCTAssertTrue(
                accepted.stdout.contains(format.incompleteMarker),
                "\(format.rawValue) with --allow-incomplete hides the incomplete scan")
        }
    }

    /// `--format` and `--output` take exactly the registered names, and their errors list them.
    func testTheCommandLineTakesTheRegisteredFormats() throws {
        let help = try CLI.run(["scan", "--help"]).stdout.replacingOccurrences(of: "\n", with: " ")
            .replacingOccurrences(of: "  +", with: " ", options: .regularExpression)
        XCTAssertTrue(help.contains("Console format: \(ReportFormat.helpList) (default: text)."), help)
        let bad = try CLI.run(["scan", ".", "--output", "nosuch=-"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(
            bad.stderr.contains("formats: " + ReportFormat.allCases.map(\.rawValue).joined(separator: ", ")), bad.stderr
        )
    }
}

extension ReportFormatTests {
    /// A JSON document streamed in small parts is, put together, the document printed whole;
    /// objects written in place (JSONObjectWriter) are the bytes their JSON values give; no part
    /// but the last waits for more than an element past the chunk size.
    func testStreamedJSONIsThePrintedDocument() {
        let items: [JSON] = (0..<500).map { i in
            .object([
                ("i", .int(Int64(i))), ("name", .string("entry \"\(i)\"\n")),
                ("ok", .optional(i % 2 == 0 ? true : nil)),
            ])
        }
        // The same objects written in place by JSONObjectWriter, compact and indented.
        let written = JSON.written(count: 500) { i, out, indent, level in
            var o = JSONObjectWriter(&out, indent: indent, level: level)
            o.int("i", Int64(i), &out)
            o.string("name", "entry \"\(i)\"\n", &out)
            o.bool("ok", i % 2 == 0 ? true : nil, &out)
            o.end(&out)
        }
        let document = JSON.object([
            ("a", .array(items)), ("b", written), ("c", .array([])), ("d", .written(count: 0) { _, _, _, _ in }),
        ])
        let expected = JSON.object([("a", .array(items)), ("b", .array(items)), ("c", .array([])), ("d", .array([]))])
        XCTAssertEqual(document.compact, expected.compact)
        var parts: [[UInt8]] = []
        document.writePrettyLine(chunk: 256) { parts.append($0) }
        XCTAssertGreaterThan(parts.count, 10)
        XCTAssertEqual(String(decoding: parts.flatMap { $0 }, as: UTF8.self), expected.prettyLine)
        XCTAssertEqual(document.prettyLine, expected.prettyLine)
        XCTAssertTrue(parts.dropLast().allSatisfy { $0.count >= 256 && $0.count < 256 + 200 })
    }
}
