import Foundation
import XCTest

@testable import SandboxAuditSystem

/// `generate-docs` on a root whose pages are not what it expects: each is one line and exit 2,
/// never a hang, and nothing is written (docs/limits.md).
final class GenerateDocsTests: XCTestCase {
    func testHostilePagesAreOneLineAndNothingIsWritten() throws {
        let cases: [(name: String, make: (String) throws -> Void, says: String)] = [
            (
                "a FIFO", { guard mkfifo($0, 0o644) == 0 else { throw SystemError(operation: "mkfifo", path: $0) } },
                "is not a regular file"
            ),
            (
                "a folder", { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) },
                "is a directory"
            ),
            ("over 4 MiB", { try Fixture.file($0, size: 5_000_000) }, "over the limit"),
            ("not UTF-8", { try Fixture.bytes($0, [0xFF, 0xFE, 0x00]) }, "not UTF-8 text"),
        ]
        for c in cases {
            let dir = try TempDir("generate-docs")
            try FileManager.default.createDirectory(atPath: dir.sub("docs"), withIntermediateDirectories: true)
            try c.make(dir.sub("docs/owners.md"))
            for check in [true, false] {
                let r = try CLI.run(["generate-docs", "--root", dir.path] + (check ? ["--check"] : []))
                XCTAssertEqual(r.status, 2, "\(c.name): \(r.stdout)")
                XCTAssertTrue(r.stderr.hasPrefix("sandbox-audit: error: "), "\(c.name): \(r.stderr)")
                XCTAssertTrue(r.stderr.contains(c.says), "\(c.name): \(r.stderr)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(c.name): \(r.stderr)")
            }
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.sub("docs")), ["owners.md"], c.name)
        }
    }
}
