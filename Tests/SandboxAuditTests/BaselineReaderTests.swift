import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// The baseline and scan-report reader (`JSONReader` under `ReportDocument`): real baselines
/// written by `scan`, cut, retyped or reordered as text, read by `compare` and `scan --baseline`.
/// Every refusal is exit 2 and one line naming the field or the byte.
final class BaselineReaderTests: XCTestCase {
    /// A container of three files and its baseline, written by `scan --write-baseline`.
    func baseline(in dir: TempDir) throws -> (container: String, baseline: String, text: String) {
        let root = dir.sub("c")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/a.md", size: 40)
        try Fixture.file(root + "/Documents/b.md", size: 50)
        try Fixture.file(root + "/Library/Caches/c.bin", size: 5_000)
        let file = dir.sub("baseline.json")
        let r = try CLI.run(["scan", root, "--write-baseline", file])
        XCTAssertEqual(r.status, 0, r.stderr)
        return (root, file, try String(contentsOfFile: file, encoding: .utf8))
    }

    /// `compare` and `scan --baseline` of `text` both refuse it in one line holding `needle`.
    func assertRefused(
        _ text: String, in dir: TempDir, container: String, good: String, _ needle: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let bad = dir.sub("bad.json")
        try text.write(toFile: bad, atomically: true, encoding: .utf8)
        let c = try CLI.run(["compare", good, bad])
        XCTAssertEqual(c.status, 2, c.stdout + c.stderr, file: file, line: line)
        XCTAssertTrue(c.stdout.isEmpty, file: file, line: line)
        XCTAssertTrue(c.stderr.contains("HEAD \(bad)") && c.stderr.contains(needle), c.stderr, file: file, line: line)
        XCTAssertEqual(c.stderr.split(separator: "\n").count, 1, c.stderr, file: file, line: line)
        let s = try CLI.run(["scan", container, "--baseline", bad])
        XCTAssertEqual(s.status, 2, s.stderr, file: file, line: line)
        XCTAssertTrue(s.stderr.contains(needle), s.stderr, file: file, line: line)
        XCTAssertEqual(s.stderr.split(separator: "\n").count, 1, s.stderr, file: file, line: line)
    }

    /// `text` with the first `of` after the `files` key replaced.
    func replacing(_ text: String, _ of: String, _ with: String) throws -> String {
        let files = try XCTUnwrap(text.range(of: "\"files\": ["), "no files in the baseline").lowerBound
        let from =
            of.hasPrefix("\"kind\"") || of.hasPrefix("\"files\"") || of.hasPrefix("\"findings\"")
            ? text.startIndex : files
        let range = try XCTUnwrap(text.range(of: of, range: from..<text.endIndex), "\(of) not in the baseline")
        return text.replacingCharacters(in: range, with: with)
    }

    func testATruncatedBaselineIsRefusedWithTheByteWhereItEnds() throws {
        let dir = try TempDir()
        let (container, good, text) = try baseline(in: dir)
        let bytes = Array(text.utf8)
        let cut = try XCTUnwrap(text.range(of: "\"Documents/b.md\"")).upperBound.utf16Offset(in: text)
        let truncated = String(decoding: bytes[..<cut], as: UTF8.self)
        try assertRefused(
            truncated, in: dir, container: container, good: good,
            "is not valid JSON: ',' or '}' was expected at byte \(cut) (found the end of the file, in files[1])")
        // Cut inside a string: it is not closed.
        try assertRefused(
            String(decoding: bytes[..<(cut - 3)], as: UTF8.self), in: dir, container: container, good: good,
            "is not valid JSON: a string is not closed at byte \(cut - 3) (found the end of the file, in files[1].path)"
        )
    }

    func testAValueOfAnotherTypeNamesItsField() throws {
        let dir = try TempDir()
        let (container, good, text) = try baseline(in: dir)
        try assertRefused(
            try replacing(text, "\"zone\": \"documents\"", "\"zone\": 5"), in: dir, container: container, good: good,
            "files[0].zone is not a string")
        try assertRefused(
            try replacing(text, "\"findings\": [", "\"findings\": {\"a\": ["), in: dir, container: container,
            good: good,
            "findings is not an array")
        try assertRefused(
            try replacing(text, "\"excluded\": false", "\"excluded\": null, \"owner\": 3, \"x\": false"), in: dir,
            container: container,
            good: good, "files[0].owner is not a string")
        try assertRefused(
            try replacing(text, "\"path\": \"Documents/a.md\",", ""), in: dir, container: container, good: good,
            "files[0].path is missing")
    }

    /// The files' keys and zones are matched on their bytes: a key or zone written with escapes
    /// reads as itself, a zone the tool does not know is refused naming it, a key it does not
    /// know is gone past, and a message naming a field names an escaped key as it reads.
    func testKeysAndZonesMatchedOnTheirBytes() throws {
        let dir = try TempDir()
        let (container, good, text) = try baseline(in: dir)
        let escaped = try replacing(
            try replacing(text, "\"size\": 40", "\"\\u0073ize\": 40, \"sizes\": \"x\""), "\"zone\": \"documents\"",
            "\"zone\": \"docu\\u006dents\"")
        let path = dir.sub("escaped.json")
        try escaped.write(toFile: path, atomically: true, encoding: .utf8)
        let c = try CLI.run(["compare", good, path, "--format", "json"])
        XCTAssertEqual(c.status, 0, c.stderr)
        let compared = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(c.stdout.utf8)) as? [String: Any])
        for key in ["addedCount", "removedCount", "grewCount", "newlyBackedUpCount", "noLongerBackedUpCount"] {
            XCTAssertEqual(compared[key] as? Int, 0, key)
        }
        try assertRefused(
            try replacing(text, "\"zone\": \"documents\"", "\"zone\": \"documentz\""), in: dir, container: container,
            good: good,
            "files[0].zone is not a zone (documentz)")
        try assertRefused(
            try replacing(text, "\"size\": 40", "\"\\u0073ize\": \"40\""), in: dir, container: container, good: good,
            "files[0].size is not")
        // A control byte far into the file (past the first eight-byte words), in a string.
        let at = try XCTUnwrap(text.range(of: "Library/Caches/c.bin")).lowerBound.utf16Offset(in: text) + 3
        var bytes = Array(text.utf8)
        bytes[at] = 0x01
        try assertRefused(
            String(decoding: bytes, as: UTF8.self), in: dir, container: container, good: good,
            "it holds the byte 0x01 at offset \(at), which JSON text never does")
    }

    func testANumberOutOfRangeIsRefusedWithItsText() throws {
        let dir = try TempDir()
        let (container, good, text) = try baseline(in: dir)
        let inode = try XCTUnwrap(text.range(of: "\"inode\": [0-9]+", options: .regularExpression))
        try assertRefused(
            text.replacingCharacters(in: inode, with: "\"inode\": 18446744073709551616"), in: dir, container: container,
            good: good,
            "files[0].inode is not an integer from -2^63 to 2^63−1 (18446744073709551616)")
        let mtime = try XCTUnwrap(text.range(of: "\"mtime\": [0-9]+", options: .regularExpression))
        try assertRefused(
            text.replacingCharacters(in: mtime, with: "\"mtime\": -1e400"), in: dir, container: container, good: good,
            "files[0].mtime is not an integer from -2^63 to 2^63−1 (-1e400)")
        try assertRefused(
            text.replacingCharacters(in: mtime, with: "\"mtime\": 17.25e1"), in: dir, container: container, good: good,
            "files[0].mtime is not an integer from -2^63 to 2^63−1 (17.25e1)")
        // 17.2e1 and -0 are integers written another way.
        let exact = dir.sub("exact.json")
        try text.replacingCharacters(in: mtime, with: "\"mtime\": 17.2e1").write(
            toFile: exact, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["compare", good, exact]).status, 0)
    }

    /// Before, a path held twice in `files` was read as one (the last), its bytes counted twice
    /// in its domain: now the file is refused naming both entries.
    func testAPathHeldTwiceIsRefusedNamingBothEntries() throws {
        let dir = try TempDir()
        let (container, good, text) = try baseline(in: dir)
        try assertRefused(
            try replacing(text, "\"path\": \"Documents/b.md\"", "\"path\": \"Documents/a.md\""), in: dir,
            container: container,
            good: good, "files[1].path is the path of files[0] again (Documents/a.md)")
        // Also when the files are not in order: the same path under two spellings (`pathBase64`).
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var files = try XCTUnwrap(object["files"] as? [[String: Any]])
        files.reverse()
        files[0]["pathBase64"] = Data("Documents/a.md".utf8).base64EncodedString()
        var o = object
        o["files"] = files
        let data = try JSONSerialization.data(withJSONObject: o)
        try assertRefused(
            String(decoding: data, as: UTF8.self), in: dir, container: container, good: good,
            "files[2].path is the path of files[0] again (Documents/a.md)")
    }

    func testDeepNestingIsRefusedAtItsBound() throws {
        let dir = try TempDir()
        let (container, good, text) = try baseline(in: dir)
        let deep = String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        try assertRefused(
            try replacing(text, "\"kind\":", "\"extra\": \(deep), \"kind\":"), in: dir, container: container,
            good: good,
            "nests deeper than 512 levels")
        try assertRefused(
            try replacing(text, "\"files\": [", "\"files\": [[[[1]]], "), in: dir, container: container, good: good,
            "files[0] is not an object")
        // Nesting within the bound, in a key the reader does not know: read past.
        let shallow = String(repeating: "[", count: 400) + String(repeating: "]", count: 400)
        let ok = dir.sub("ok.json")
        try replacing(text, "\"kind\":", "\"extra\": \(shallow), \"kind\":").write(
            toFile: ok, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["compare", good, ok]).status, 0)
    }

    /// A baseline whose keys come in another order (`kind` and `schemaVersion` after `files`, as
    /// a tool sorting keys writes them) and whose files are not sorted reads as the original.
    func testKeysInAnyOrderAndUnsortedFilesReadAsTheOriginal() throws {
        let dir = try TempDir()
        let (container, good, text) = try baseline(in: dir)
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        object["files"] = Array(try XCTUnwrap(object["files"] as? [[String: Any]]).reversed())
        let other = dir.sub("other.json")
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(
            to: URL(fileURLWithPath: other))
        XCTAssertLessThan(
            try XCTUnwrap(String(contentsOfFile: other, encoding: .utf8).range(of: "\"files\"")).lowerBound,
            try XCTUnwrap(String(contentsOfFile: other, encoding: .utf8).range(of: "\"kind\"")).lowerBound)
        let same = try CLI.run(["compare", good, good, "--format", "json"])
        let reordered = try CLI.run(["compare", good, other, "--format", "json"])
        XCTAssertEqual(reordered.status, 0, reordered.stderr)
        XCTAssertEqual(reordered.stdout.replacingOccurrences(of: other, with: good), same.stdout)
        let a = try CLI.run(["scan", container, "--baseline", good, "--format", "json"])
        let b = try CLI.run(["scan", container, "--baseline", other, "--format", "json"])
        XCTAssertEqual(a.status, b.status)
        XCTAssertEqual(b.stdout.replacingOccurrences(of: other, with: good), a.stdout)
    }
}
