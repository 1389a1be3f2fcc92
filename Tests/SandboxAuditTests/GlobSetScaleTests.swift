import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// Issue 35 item 3: the policy's globs (`budgets.paths:`, `paths:`) matched on every core, each
/// folder's part of a glob once for all its children. What they find must not depend on how the
/// entries are cut into runs: every run is compared with a plain per-entry reference (each glob's
/// own `covers` on each path) on a generated container, with the benchmark's twenty budget lines.
final class GlobSetScaleTests: XCTestCase {
    static let exclude = "user.com.apple.metadata:com_apple_backup_excludeItem"

    /// The twenty `budgets.paths:` lines of the benchmark (scripts/bench/budgets-policy.yml).
    static func benchPolicy() throws -> Policy {
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let path = repo.appendingPathComponent("scripts/bench/budgets-policy.yml").path
        return try PolicyFile.parse(try String(contentsOfFile: path, encoding: .utf8), source: path)
    }

    /// A container named as scripts/bench/make-container.py names its own (folders d00-d11
    /// nested three deep, files f00000.EXT), with a few names that sort between a folder and
    /// what is inside it (`d01.x`, `d01-old` beside `d01`), some folders and files excluded,
    /// sizes from 0 to 200 kB (sparse).
    static func container(_ dir: TempDir) throws -> String {
        let root = dir.sub("c")
        try Fixture.container(at: root)
        var seed: UInt64 = 20_240_601
        func next(_ n: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(n))
        }
        let ext = [
            ".json", ".plist", ".dat", ".db", ".jpg", ".png", ".cache", ".txt", ".bin", ".sqlite-wal", ".log",
            ".sqlite",
        ]
        var files = 0
        func grow(_ path: String, _ depth: Int) throws {
            try Fixture.mkdirs(path)
            for i in 0..<(3 + next(12)) {
                try Fixture.file(
                    path + "/" + String(format: "f%05d", files + i) + ext[next(ext.count)],
                    size: next(10) == 0 ? 0 : next(200_000))
            }
            files += 15
            if next(9) == 0 {
                try XAttr.set(path: Array(path.utf8), name: exclude, value: BackupAttribute.canonicalValue)
            }
            guard depth < 3 else { return }
            for j in 0..<(1 + next(depth == 0 ? 12 : 4)) {
                let sub = path + "/" + String(format: "d%02d", j)
                try grow(sub, depth + 1)
                if next(5) == 0 { try Fixture.file(sub + ".x", size: next(5000)) }
                if next(6) == 0 { try Fixture.file(sub + "-old/f99999.log", size: next(5000)) }
            }
        }
        for zone in ["Documents", "Library/Application Support", "Library/Caches", "Library/Preferences", "tmp"] {
            try grow(root + "/" + zone, 0)
        }
        try Fixture.file(root + "/Documents/app.sqlite", size: 90_000)
        try Fixture.file(root + "/Documents/debug.log", size: 700)
        return root
    }

    /// Every run of the entries, however cut, finds for each entry the globs whose own `covers`
    /// takes it, each with its topmost match; and the runs agree with one pass exactly.
    func testGlobSetInRunsAgreesWithEachGlobPerEntry() throws {
        let dir = try TempDir("globset")
        let inventory = try Audit.inventory(of: try Self.container(dir))
        let entries = inventory.entries
        XCTAssertGreaterThan(entries.count, 1000)
        let globs =
            try Self.benchPolicy().budgets.compactMap { b -> Glob? in
                if case .glob(let g) = b.scope { return g } else { return nil }
            }
            + ["Documents", "**", "Library", "*/d0?", "**/d01/**", "**/d0*/**/d1*"].map(Glob.init)
        XCTAssertEqual(globs.count, 26)
        let set = GlobSet(globs)
        let one = set.coverage(entries, chunks: 1)
        var covered = 0
        for chunks in [1, 2, 3, 7, 64] {
            let runs = set.coverage(entries, chunks: chunks)
            for (i, e) in entries.enumerated() {
                let got = runs.covering(i)
                let expected = globs.indices.filter { globs[$0].covers(e.path) }
                XCTAssertEqual(got.map { Int($0.glob) }, expected, "\(chunks) runs: \(e.path.display)")
                XCTAssertTrue(
                    got.elementsEqual(one.covering(i), by: { $0.glob == $1.glob && $0.top == $1.top }),
                    "\(chunks) runs: \(e.path.display)")
                for c in got {
                    // The topmost match: the shortest of the path and its folders the glob matches.
                    let top = entries[Int(c.top)].path
                    let first = (1...e.path.depth).lazy.map {
                        ContainerPath(bytes: Array(e.path.leadingComponents($0).joined(separator: [UInt8(ascii: "/")])))
                    }
                    .first { globs[Int(c.glob)].matches($0) }
                    XCTAssertEqual(top, first, "\(globs[Int(c.glob)]) on \(e.path.display)")
                }
                if chunks == 1, !got.isEmpty { covered += 1 }
            }
        }
        XCTAssertGreaterThan(covered, entries.count / 3, "the globs cover a good part of the container")
    }

    /// The twenty budgets measured in runs on every core equal the sums and largest files of a
    /// per-entry reference; the policy rules' totals likewise.
    func testBudgetsInRunsEqualAPerEntryReference() throws {
        let dir = try TempDir("budgetruns")
        let inventory = try Audit.inventory(of: try Self.container(dir))
        let budgets = try Self.benchPolicy().budgets
        XCTAssertEqual(budgets.count, 20)
        let content = inventory.entries.filter(\.countsAsContent)
        var exceeded = 0
        var measuredSomething = 0
        for chunks in [1, 2, 5, 33] {
            let results = Budgets.evaluate(budgets, growth: nil, [inventory], nil, globChunks: chunks)
            XCTAssertEqual(results.count, budgets.count)
            for (b, r) in zip(budgets, results) {
                guard case .glob(let glob) = b.scope else { return XCTFail("not a glob budget: \(b.name)") }
                let counted = content.filter { glob.covers($0.path) && (b.measure == .size || $0.backedUp == true) }
                let sum = counted.reduce(Int64(0)) { $0 + $1.entry.contentSize }
                let top = counted.filter { $0.entry.contentSize > 0 }
                    .sorted {
                        $0.entry.contentSize != $1.entry.contentSize
                            ? $0.entry.contentSize > $1.entry.contentSize : $0.path < $1.path
                    }
                    .prefix(Budgets.contributorCount).map { ($0.path, $0.entry.contentSize) }
                XCTAssertEqual(r.measured, sum, "\(chunks) runs: \(b.name)")
                XCTAssertEqual(r.contributors.map(\.path), top.map(\.0), "\(chunks) runs: \(b.name)")
                XCTAssertEqual(r.contributors.map(\.size), top.map(\.1), "\(chunks) runs: \(b.name)")
                if chunks == 1 {
                    if r.exceeded { exceeded += 1 }
                    if sum > 0 { measuredSomething += 1 }
                }
            }
        }
        XCTAssertGreaterThan(measuredSomething, 12, "most budgets measure something on this container")
        XCTAssertGreaterThan(exceeded, 0, "some budget is exceeded")

        // The policy rules' totals: each topmost match with the bytes beneath it.
        let globs = budgets.compactMap { b -> Glob? in if case .glob(let g) = b.scope { return g } else { return nil } }
        let set = GlobSet(globs)
        let one = set.totals(inventory, chunks: 1) { $0.countedSize }
        for chunks in [2, 5, 33] {
            let runs = set.totals(inventory, chunks: chunks) { $0.countedSize }
            for g in globs.indices {
                XCTAssertEqual(runs[g].map(\.path), one[g].map(\.path), "\(chunks) runs: \(globs[g])")
                XCTAssertEqual(runs[g].map(\.size), one[g].map(\.size), "\(chunks) runs: \(globs[g])")
            }
        }
        for (g, glob) in globs.enumerated() {
            let tops = inventory.entries.filter { e in
                glob.matches(e.path)
                    && !(1..<max(1, e.path.depth)).contains { d in
                        glob.matches(
                            ContainerPath(
                                bytes: Array(e.path.leadingComponents(d).joined(separator: [UInt8(ascii: "/")]))))
                    }
            }
            let expected = tops.map { t in
                (t.path, inventory.entries.filter { $0.path.isWithin(t.path) }.reduce(Int64(0)) { $0 + $1.countedSize })
            }
            XCTAssertEqual(one[g].map(\.path), expected.map(\.0), "\(glob)")
            XCTAssertEqual(one[g].map(\.size), expected.map(\.1), "\(glob)")
        }
    }
}
