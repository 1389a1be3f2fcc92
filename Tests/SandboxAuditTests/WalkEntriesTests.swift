import Foundation
import XCTest
@testable import SandboxAuditSystem
@testable import SandboxAuditCore

/// The walk's chunked entries: what an array would do, chunk boundaries included, and the moves
/// the inventory makes of them.
final class WalkEntriesTests: XCTestCase {
    static func entry(_ name: String, size: Int64 = 0, kind: WalkEntry.Kind = .file) -> WalkEntry {
        WalkEntry(path: ContainerPath(name), kind: kind, special: nil, size: size, allocated: 0, mode: 0o644,
                  modifiedSeconds: 0, modifiedNanoseconds: 0, device: 1, inode: UInt64(size), linkCount: 1,
                  symlinkTarget: kind == .symlink ? Array("target".utf8) : nil, header: kind == .file ? [1, 2, 3] : nil, marks: [])
    }

    static func entries(_ prefix: String, _ count: Int) -> WalkEntries {
        WalkEntries((0..<count).map { entry("\(prefix)/\($0)", size: Int64($0)) })
    }

    func testAppendAndReadAcrossChunks() {
        let n = WalkEntries.chunkCapacity * 2 + 17
        var e = Self.entries("a", n)
        XCTAssertEqual(e.count, n)
        XCTAssertEqual(e.map(\.size), (0..<n).map(Int64.init))
        e[WalkEntries.chunkCapacity].size = -1
        XCTAssertEqual(e[WalkEntries.chunkCapacity].size, -1)
        XCTAssertEqual(e[WalkEntries.chunkCapacity - 1].path, ContainerPath("a/\(WalkEntries.chunkCapacity - 1)"))
    }

    /// A copy is a value: writing to it leaves the original as it was, in a shared chunk too.
    func testACopyIsAValue() {
        let original = Self.entries("a", 100)
        var copy = original
        copy[5].size = 999
        copy[6].marks = [AttributeMark(attribute: .exclude, value: BackupAttribute.canonicalValue, source: .native(name: "x"))]
        copy.append(Self.entry("b"))
        XCTAssertEqual(original[5].size, 5)
        XCTAssertTrue(original[6].marks.isEmpty)
        XCTAssertEqual(original.count, 100)
        XCTAssertEqual(copy[5].size, 999)
        XCTAssertEqual(copy.count, 101)
    }

    /// Two walks joined hold every entry once, each walk's entries in their own order.
    func testJoinKeepsEveryEntryAndEachSidesOrder() {
        for (a, b) in [(20_000, 30_000), (WalkEntries.chunkCapacity, 5), (0, 7), (7, 0), (3, 4), (WalkEntries.chunkCapacity - 1, WalkEntries.chunkCapacity - 1)] {
            var joined = Self.entries("a", a)
            joined.join(Self.entries("b", b))
            XCTAssertEqual(joined.count, a + b, "\(a) + \(b)")
            let paths = joined.map(\.path.display)
            XCTAssertEqual(paths.filter { $0.hasPrefix("a/") }, (0..<a).map { "a/\($0)" }, "\(a) + \(b)")
            XCTAssertEqual(paths.filter { $0.hasPrefix("b/") }, (0..<b).map { "b/\($0)" }, "\(a) + \(b)")
            // Every chunk but the last is full: an index finds its entry.
            for i in stride(from: 0, to: joined.count, by: 997) { XCTAssertEqual(joined[i].path.display, paths[i]) }
        }
    }

    /// `permute` puts entry order[k] at k, moving each once (symlinks and headers kept).
    func testPermuteMovesEveryEntryOnce() {
        let n = WalkEntries.chunkCapacity + 500
        var e = WalkEntries((0..<n).map { Self.entry("p/\($0)", size: Int64($0), kind: $0 % 3 == 0 ? .symlink : .file) })
        let kept = e
        var rng = SystemRandomNumberGenerator()
        let order = Array(0..<n).shuffled(using: &rng)
        e.permute(by: order)
        for k in 0..<n {
            XCTAssertEqual(e[k].size, Int64(order[k]))
            XCTAssertEqual(e[k].path, ContainerPath("p/\(order[k])"))
            XCTAssertEqual(e[k].symlinkTarget, order[k] % 3 == 0 ? Array("target".utf8) : nil)
            XCTAssertEqual(e[k].header, order[k] % 3 == 0 ? nil : [1, 2, 3])
        }
        // The copy taken before is untouched.
        XCTAssertEqual(kept.map(\.size), (0..<n).map(Int64.init))
    }

    /// The entry stays small: it is held once per entry in the walk and in the inventory.
    func testAnEntryIsSmall() {
        XCTAssertLessThanOrEqual(MemoryLayout<WalkEntry>.size, 86)
        var e = Self.entry("x", kind: .symlink)
        XCTAssertNil(e.header)
        e.linkCount = UInt64(UInt32.max) + 5
        XCTAssertEqual(e.linkCount, UInt64(UInt32.max))
        e.protectionClass = .completeUnlessOpen
        XCTAssertEqual(e.protectionClass, .completeUnlessOpen)
        e.protectionClass = nil
        XCTAssertNil(e.protectionClass)
    }
}
