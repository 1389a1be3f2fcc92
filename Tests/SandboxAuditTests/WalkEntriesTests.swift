import Foundation
import XCTest

@testable import SandboxAuditCore
@testable import SandboxAuditSystem

/// The walk's entries as columns: what an array of entries would hold, and the path order the
/// inventory gets from them without making a path.
final class WalkEntriesTests: XCTestCase {
    static func entry(_ name: String, size: Int64 = 0, kind: WalkEntry.Kind = .file) -> WalkEntry {
        WalkEntry(
            path: ContainerPath(name), kind: kind, special: nil, size: size, allocated: 0, mode: 0o644,
            modifiedSeconds: 0, modifiedNanoseconds: 0, device: 1, inode: UInt64(size), linkCount: 1,
            symlinkTarget: kind == .symlink ? Array("target".utf8) : nil, header: kind == .file ? [1, 2, 3] : nil,
            marks: [])
    }

    static func entries(_ prefix: String, _ count: Int) -> WalkEntries {
        WalkEntries((0..<count).map { entry("\(prefix)/\($0)", size: Int64($0)) })
    }

    static let exclude = AttributeMark(
        attribute: .exclude, value: BackupAttribute.canonicalValue, source: .native(name: "x"))

    func testAppendAndReadEveryField() {
        var e = Self.entries("a", 1000)
        XCTAssertEqual(e.count, 1000)
        XCTAssertEqual(e.map(\.size), (0..<1000).map(Int64.init))
        e[500].size = -1
        e[501].marks = [Self.exclude]
        XCTAssertEqual(e[500].size, -1)
        XCTAssertEqual(e[501].marks, [Self.exclude])
        XCTAssertEqual(e[999].path, ContainerPath("a/999"))
        XCTAssertEqual(e[999].header, [1, 2, 3])
        var special = Self.entry("fifo")
        special.kind = .other
        special.special = .fifo
        special.protectionClass = .completeUnlessOpen
        e.append(special)
        XCTAssertEqual(e[1000].special, .fifo)
        XCTAssertEqual(e[1000].kind, .other)
        XCTAssertEqual(e[1000].protectionClass, .completeUnlessOpen)
        XCTAssertEqual(e[1000].path, ContainerPath("fifo"))
    }

    /// A copy is a value: writing to it leaves the original as it was.
    func testACopyIsAValue() {
        let original = Self.entries("a", 100)
        var copy = original
        copy[5].size = 999
        copy[6].marks = [Self.exclude]
        copy.append(Self.entry("b"))
        XCTAssertEqual(original[5].size, 5)
        XCTAssertTrue(original[6].marks.isEmpty)
        XCTAssertEqual(original.count, 100)
        XCTAssertEqual(copy[5].size, 999)
        XCTAssertEqual(copy.count, 101)
    }

    /// Two walks joined hold every entry once, with its fields, marks and folder.
    func testJoinKeepsEveryEntry() {
        for (a, b) in [(20_000, 30_000), (0, 7), (7, 0), (3, 4)] {
            var first = Self.entries("a", a)
            var second = Self.entries("b/c", b)
            if a > 0 { first[0].marks = [Self.exclude] }
            if b > 0 { second[b - 1].marks = [Self.exclude] }
            first.join(&second)
            XCTAssertEqual(second.count, 0, "taken out of the part joined")
            XCTAssertEqual(first.count, a + b, "\(a) + \(b)")
            XCTAssertEqual(
                first.map(\.path.display), (0..<a).map { "a/\($0)" } + (0..<b).map { "b/c/\($0)" }, "\(a) + \(b)")
            XCTAssertEqual(
                first.filter { !$0.marks.isEmpty }.map(\.path.display),
                (a > 0 ? ["a/0"] : []) + (b > 0 ? ["b/c/\(b - 1)"] : []))
            XCTAssertEqual(first.map(\.size), (0..<a).map(Int64.init) + (0..<b).map(Int64.init))
        }
    }

    /// `ordered()` puts the entries in the byte order of their paths, names that sort around
    /// a slash included ("a", "a.txt", "a-b", "a/…", "a0"), whatever order they came in, with
    /// each entry's fields, marks and content following it.
    func testOrderedIsPathByteOrder() {
        let names = [
            "a", "a.txt", "a-b", "a0", "a/b", "a/b.c", "a/b/c", "a/b-c/d", "a/b0", "b", "b/", "é", "e\u{301}", " x",
            "x/ y/z",
            "x/!", "x/~", "Library/Caches/f", "Library/Caches.old/g", "Library/Caches/sub/h", "Documents/f",
            "Documents",
            "Library", "Library/Caches", "x", "x/ y", "a/b",
        ]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let shuffled = names.enumerated().shuffled(using: &rng)
            var e = WalkEntries()
            for (n, name) in shuffled {
                var entry = Self.entry(
                    name, size: Int64(n), kind: n % 4 == 0 ? .symlink : (n % 4 == 1 ? .directory : .file))
                if n % 3 == 0 { entry.marks = [Self.exclude] }
                e.append(entry)
            }
            let columns = e.ordered()
            let expected = shuffled.map { (path: ContainerPath($0.element), n: $0.offset) }
                .enumerated().sorted {
                    $0.element.path < $1.element.path || ($0.element.path == $1.element.path && $0.offset < $1.offset)
                }
                .map(\.element)
            XCTAssertEqual((0..<columns.count).map { columns.path($0) }, expected.map(\.path))
            for (k, x) in expected.enumerated() {
                let w = columns.walkEntry(k)
                XCTAssertEqual(w.size, Int64(x.n))
                XCTAssertEqual(w.marks.isEmpty, x.n % 3 != 0)
                XCTAssertEqual(w.symlinkTarget, x.n % 4 == 0 ? Array("target".utf8) : nil)
                XCTAssertEqual(columns.comparePath(k, x.path.bytes), 0)
                if k > 0 { XCTAssertLessThanOrEqual(columns.comparePath(k - 1, x.path.bytes), 0) }
            }
        }
    }

    /// A large walk in many folders, its folders' sort cut into a run per core (and into 3, 5
    /// and 64 runs, as a machine with that many cores cuts it), comes out as a sort of its paths.
    func testOrderedLargeWalkMatchesASortOfItsPaths() {
        var rng = SystemRandomNumberGenerator()
        var paths: [String] = []
        for i in 0..<30_000 {
            let depth = Int.random(in: 1...4, using: &rng)
            paths.append(
                (0..<depth).map { _ in ["d", "d.x", "d-1", "e", "dd"].randomElement(using: &rng)! }.joined(
                    separator: "/") + "/f\(i % 97)")
        }
        let sorted = paths.map { ContainerPath($0) }.sorted().map(\.display)
        for runs in [nil, 3, 5, 64] {
            var e = WalkEntries(paths.map { Self.entry($0) })
            let columns = e.ordered(sortRuns: runs)
            XCTAssertEqual(
                (0..<columns.count).map { columns.path($0).display }, sorted,
                "\(runs.map(String.init) ?? "default") runs")
        }
    }

    /// Values past 32 bits (a file past 4 GiB, a time before 1970, 64-bit device and inode
    /// numbers) are kept exactly through a join and the path order, beside narrow ones; names
    /// that share their first eight bytes or more (the sort compares those as one number) and
    /// folders whose name is another entry's start sort as their paths do.
    func testWideValuesAndLongSharedNamesSurviveJoinAndOrder() {
        let stems = [
            "IMG_00001234.jpg", "IMG_0000123", "IMG_00001234", "IMG_00001234.jpg.part", "abcdefgh", "abcdefg",
            "abcdefgh.x",
            "abcdefghi", "ABCDEFGH", "abcdefgh-", "verylongnamethatgoesonandon", "verylongnamethatgoesonandon2",
        ]
        var paths =
            stems + stems.map { "abcdefgh/\($0)" } + stems.map { "IMG_00001234/\($0)" }
            + stems.map { "abcdefgh.x/y/\($0)" }
        paths.shuffle()
        func wide(_ k: Int) -> WalkEntry {
            var e = Self.entry(paths[k], size: k % 2 == 0 ? (Int64(1) << 40) + Int64(k) : Int64(k))
            e.allocated = k % 3 == 0 ? Int64(UInt32.max) + Int64(k) : Int64(k)
            e.modifiedSeconds = k % 5 == 0 ? -86_400 * Int64(k + 1) : Int64(k)
            e.device = k % 7 == 0 ? UInt64.max - UInt64(k) : 66305
            e.inode = k % 2 == 1 ? (UInt64(1) << 63) + UInt64(k) : UInt64(k)
            return e
        }
        func fields(_ e: WalkEntry) -> String {
            "\(e.path.display) \(e.size) \(e.allocated) \(e.modifiedSeconds) \(e.device) \(e.inode)"
        }
        let half = paths.count / 2
        var first = WalkEntries((0..<half).map(wide))
        var second = WalkEntries((half..<paths.count).map(wide))
        first.join(&second)
        for k in 0..<paths.count { XCTAssertEqual(fields(first[k]), fields(wide(k))) }
        let columns = first.ordered()
        let expected = paths.indices.sorted { ContainerPath(paths[$0]) < ContainerPath(paths[$1]) }
        XCTAssertEqual((0..<columns.count).map { columns.path($0).display }, expected.map { paths[$0] })
        for (position, k) in expected.enumerated() {
            XCTAssertEqual(fields(columns.walkEntry(position)), fields(wide(k)))
        }
    }
}
