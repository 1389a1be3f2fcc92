import Foundation
import XCTest

@testable import SandboxAuditSources

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Trees no app has but anyone can give: what is not read is listed with its reason, nothing
/// hangs or crashes, and the rest of the tree is indexed.
final class HostileSourceTests: XCTestCase {
    func testWhatIsNotReadIsListedWithItsReason() throws {
        let tree = try SourceTreeFixture([
            "Good.swift": "let a = URL.documentsDirectory.appendingPathComponent(\"good.db\")\n",
            "Pods/Vendor/Vendor.swift": "let v = URL.documentsDirectory.appendingPathComponent(\"vendor.db\")\n",
            ".build/checkouts/x.swift": "let b = URL.documentsDirectory.appendingPathComponent(\"build.db\")\n",
            "node_modules/a/a.m": "",
            "Sub/Carthage/Checkouts/c.swift": "",
            "README.md": "not a source file: neither read nor listed",
        ])
        try tree.write("Bad.swift", Data([0x6C, 0x65, 0x74, 0x20, 0xFF, 0xFE, 0x0A]))
        try tree.write("Big.swift", Data(repeating: 0x20, count: 5 << 20))
        XCTAssertEqual(mkfifo(tree.root + "/Pipe.swift", 0o600), 0)
        XCTAssertEqual(symlink("Loop.swift", tree.root + "/Loop.swift"), 0)
        XCTAssertEqual(symlink("B", tree.root + "/A"), 0)
        XCTAssertEqual(symlink("A", tree.root + "/B"), 0)
        XCTAssertEqual(symlink(".", tree.root + "/Sub/Self"), 0)
        XCTAssertEqual(symlink(tree.root + "/Good.swift", tree.root + "/Sub/Linked.swift"), 0)
        XCTAssertEqual(symlink("/dev/zero", tree.root + "/Zero.swift"), 0)
        let odd = tree.root + "/Name\u{FFFD}.swift"
        try Data("let x = 1\n".utf8).write(to: URL(fileURLWithPath: odd))
        var raw = Array((tree.root + "/Raw").utf8)
        raw += [0xFF, 0x2E, 0x73, 0x77, 0x69, 0x66, 0x74, 0]  // "\xff.swift", not UTF-8
        let fd = raw.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_CREAT | O_WRONLY, 0o600)
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)

        let index = try tree.index()
        XCTAssertEqual(index.filesIndexed, 2, "Good.swift and Name\u{FFFD}.swift")
        XCTAssertEqual(index.best("Documents/good.db"), "Good.swift:1")
        XCTAssertNil(index.best("Documents/vendor.db"))
        XCTAssertNil(index.best("Documents/build.db"))
        let reasons = Dictionary(index.skipped.map { ($0.file, $0.reason) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(reasons["Bad.swift"], "not UTF-8 text: not read")
        XCTAssertEqual(reasons["Big.swift"], "5242880 bytes, over the 4 MiB read of a source file")
        XCTAssertEqual(reasons["Pipe.swift"], "not a regular file: not read")
        for link in ["Loop.swift", "A", "B", "Sub/Self", "Sub/Linked.swift", "Zero.swift"] {
            XCTAssertEqual(reasons[link], "a symbolic link: not followed", link)
        }
        for folder in ["Pods", ".build", "node_modules", "Sub/Carthage"] {
            XCTAssertEqual(reasons[folder], "a dependency or build folder: not the app's own code", folder)
        }
        XCTAssertEqual(reasons["Raw\u{FFFD}.swift"], "its name is not UTF-8: not read")
        XCTAssertNil(reasons["README.md"])
        XCTAssertEqual(index.skipped.count, 14, "\(index.skipped)")
    }

    func testDeepAndLongExpressionsEndQuickly() throws {
        let tree = try SourceTreeFixture()
        let depth = 10_000
        try tree.write(
            "Parens.swift",
            "let p = " + String(repeating: "(", count: depth) + "1" + String(repeating: ")", count: depth))
        try tree.write(
            "Brackets.swift", "let b = " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        try tree.write(
            "Braces.swift", "let c = " + String(repeating: "{ ", count: depth) + String(repeating: "}", count: depth))
        try tree.write(
            "Chain.swift",
            "let m = URL.documentsDirectory" + String(repeating: ".appendingPathComponent(\"x\")", count: depth) + "\n")
        try tree.write("Unwrap.swift", "let u = a" + String(repeating: "!", count: depth) + "\n")
        try tree.write("Plus.swift", "let s = \"a\"" + String(repeating: " + \"a\"", count: depth) + "\n")
        try tree.write("String.swift", "let long = \"" + String(repeating: "x", count: 1 << 20) + "\"\n")
        try tree.write(
            "Names.swift",
            (0..<depth).map { "let n\($0 + 1) = n\($0) + n\($0)" }.joined(separator: "\n")
                + "\nlet n0 = \"Deep\"\nlet d = URL.documentsDirectory.appendingPathComponent(n\(depth))\n")
        try tree.write(
            "Generic.swift",
            "let g: " + String(repeating: "A<", count: depth) + "B" + String(repeating: ">", count: depth) + "? = nil")
        try tree.write(
            "Interpolation.swift",
            "let i = " + String(repeating: "\"\\(", count: depth) + "1" + String(repeating: ")\"", count: depth))
        // Within the bounds: parsed, on whichever thread takes it.
        try tree.write(
            "Deep.swift", "let d = " + String(repeating: "(", count: 60) + "1" + String(repeating: ")", count: 60))
        try tree.write("Run.swift", "let r = " + String(repeating: "[", count: 12) + String(repeating: "]", count: 12))
        try tree.write(
            "Messages.m",
            "x = " + String(repeating: "[a b:", count: depth) + "c" + String(repeating: "]", count: depth) + ";")
        try tree.write("Open.m", String(repeating: "[(", count: depth) + String(repeating: "@\"a\" ", count: depth))
        try tree.write("Good.swift", "let g = URL.documentsDirectory.appendingPathComponent(\"still.db\")\n")
        let start = Date()
        let index = try tree.index()
        let elapsed = Date().timeIntervalSince(start)
        print("hostile expressions: \(String(format: "%.2f", elapsed)) s")
        XCTAssertLessThan(elapsed, 60)
        XCTAssertEqual(index.filesIndexed, 10)
        XCTAssertEqual(index.best("Documents/still.db"), "Good.swift:1")
        XCTAssertEqual(
            index.skipped.map { "\($0.file): \($0.reason)" },
            [
                "Braces.swift: nested over 64 brackets deep: not parsed",
                "Brackets.swift: over 12 opening brackets in a row: not parsed",
                "Generic.swift: nested over 64 brackets deep: not parsed",
                "Interpolation.swift: nested over 64 brackets deep: not parsed",
                "Parens.swift: nested over 64 brackets deep: not parsed",
            ])
        XCTAssertTrue(index.paths.allSatisfy { $0.pattern.split(separator: "/").count <= 64 })
    }

    func testRootsThatCannotBeIndexed() throws {
        let tree = try SourceTreeFixture(["a.swift": "", "b/b.swift": "", "c/c.m": ""])
        XCTAssertThrowsError(try SourceIndex.build(root: tree.root + "/missing")) { error in
            XCTAssertEqual(
                error as? SourceIndexError,
                .unreadableRoot(path: tree.root + "/missing", reason: "No such file or directory"))
        }
        XCTAssertThrowsError(try SourceIndex.build(root: tree.root + "/a.swift")) { error in
            XCTAssertEqual(
                error as? SourceIndexError, .unreadableRoot(path: tree.root + "/a.swift", reason: "Not a directory"))
        }
        XCTAssertThrowsError(try SourceIndex.build(root: tree.root, maximumFiles: 2)) { error in
            XCTAssertEqual(error as? SourceIndexError, .tooManyFiles(limit: 2))
            XCTAssertEqual(
                "\(error)", "the source folder holds more than 2 Swift and Objective-C files: give the app's own folder"
            )
        }
        XCTAssertEqual(try SourceIndex.build(root: tree.root, maximumFiles: 3).filesIndexed, 3)
        XCTAssertEqual(SourceTree.maximumFiles, 100_000)
    }

    func testAnUnreadableFolderIsListed() throws {
        guard geteuid() != 0 else { throw XCTSkip("root reads every folder") }
        let tree = try SourceTreeFixture(["Locked/a.swift": "", "b.swift": ""])
        XCTAssertEqual(chmod(tree.root + "/Locked", 0), 0)
        defer { chmod(tree.root + "/Locked", 0o755) }
        let index = try tree.index()
        XCTAssertEqual(index.filesIndexed, 1)
        XCTAssertEqual(index.skipped.map(\.file), ["Locked"])
    }
}
