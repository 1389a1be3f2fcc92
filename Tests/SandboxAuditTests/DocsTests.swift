import Foundation
import XCTest
@testable import SandboxAudit

/// The documents in docs/ cannot drift from the code.
final class DocsTests: XCTestCase {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    func read(_ relative: String) throws -> String {
        try String(contentsOfFile: Self.repo + "/" + relative, encoding: .utf8)
    }

    func testRulesCatalogueIsGeneratedFromTheCode() throws {
        XCTAssertEqual(try read("docs/rules.md"), RulesCatalogueReport.markdown(),
                       "docs/rules.md is stale: run `swift run sandbox-audit rules --format markdown > docs/rules.md`")
    }

    /// Every key the JSON outputs emit (at any depth) is documented as `key`.
    static func keys(_ value: Any, into set: inout Set<String>) {
        if let object = value as? [String: Any] {
            for (k, v) in object { set.insert(k); keys(v, into: &set) }
        } else if let array = value as? [Any] {
            for v in array { keys(v, into: &set) }
        }
    }

    func testEveryJSONFieldIsDocumented() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/Application Support/a.bin"), size: 2_000_000)
        try BackupMarker.set(.exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Library/Application Support/a.bin"), carrier: .native)
        try Fixture.file(dir.sub("Documents/b.bin"), size: 2_000_000)
        try FileManager.default.createSymbolicLink(atPath: dir.sub("Documents/l"), withDestinationPath: "b.bin")
        XCTAssertEqual(mkfifo(dir.sub("tmp/p"), 0o644), 0)
        let odd = Array(dir.sub("stray").utf8) + [0xFF]
        let fd = (odd + [0]).withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { open($0, O_WRONLY | O_CREAT, 0o644) }
        }
        close(fd)

        var inventoryKeys = Set<String>()
        for (_, entry) in try CLI.inventory(dir.path).entries { Self.keys(entry, into: &inventoryKeys) }
        let inventoryDoc = try read("docs/inventory-format.md")
        for key in inventoryKeys { XCTAssertTrue(inventoryDoc.contains("`\(key)`"), "docs/inventory-format.md does not document `\(key)`") }

        var scanKeys = Set<String>()
        Self.keys(try CLI.scanJSON([dir.path]).json, into: &scanKeys)
        let scanDoc = try read("docs/json-format.md")
        for key in scanKeys { XCTAssertTrue(scanDoc.contains("`\(key)`"), "docs/json-format.md does not document `\(key)`") }
    }

    /// The library's public surface is what docs/ARCHITECTURE.md lists: every public type named
    /// there, and each stage small enough to read on one screen.
    func testPublicSurfaceIsTheDocumentedOne() throws {
        let doc = try read("docs/ARCHITECTURE.md")
        let rest = doc[try XCTUnwrap(doc.range(of: "## The public surface")).upperBound...]
        let table = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        let sources = Self.repo + "/Sources/SandboxAudit"
        let declaration = try NSRegularExpression(pattern: #"^\s*(@\w+ )*(nonisolated\(unsafe\) )?public (final |indirect )?(\w+) ?(\w*)"#, options: .anchorsMatchLines)
        var perStage: [String: Int] = [:]
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: sources)).filter { $0.hasSuffix(".swift") }
        for file in files {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            let stage = file.contains("/") ? String(file.prefix { $0 != "/" }) : file
            for m in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                perStage[stage, default: 0] += 1
                let keyword = String(text[Range(m.range(at: 4), in: text)!])
                let name = String(text[Range(m.range(at: 5), in: text)!])
                if ["struct", "enum", "class", "protocol"].contains(keyword) {
                    XCTAssertTrue(table.contains("`\(name)`"), "\(file): public \(keyword) \(name) is not listed in docs/ARCHITECTURE.md, The public surface")
                }
            }
        }
        XCTAssertGreaterThan(perStage.count, 5, "no public declarations found under \(sources)")
        for (stage, count) in perStage.sorted(by: { $0.key < $1.key }) {
            XCTAssertLessThanOrEqual(count, 40, "\(stage) has \(count) public declarations")
        }
    }
}
