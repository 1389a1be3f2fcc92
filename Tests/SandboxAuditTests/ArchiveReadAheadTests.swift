import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The archive's reading on a thread of its own (`ReadAhead`, SandboxAuditSystem), and what the
/// scan records of it for a second reading (`ArchiveReadRecord`): only when one is to come.
final class ArchiveReadAheadTests: XCTestCase {
    /// Every element arrives once, in the order made, in batches cut at `batchSize` elements
    /// or once their costs reach `batchCost`.
    func testBatchesKeepTheOrderAndTheirBounds() throws {
        var made = 0
        let stream = ReadAhead<Int>(batchSize: 10, batchCost: 25, maximumBatches: 2) {
            guard made < 1000 else { return nil }
            made += 1
            // Costly elements every hundred: the batch holding one ends there.
            return (made, made % 100 == 0 ? 30 : 1)
        }
        defer { stream.close() }
        var all: [Int] = []
        while let batch = try stream.next() {
            XCTAssertFalse(batch.isEmpty)
            XCTAssertLessThanOrEqual(batch.count, 10)
            if batch.count < 10, batch.last! != 1000 { XCTAssertEqual(batch.last! % 100, 0, "\(batch)") }
            all += batch
        }
        XCTAssertEqual(all, Array(1...1000))
        XCTAssertNil(try stream.next(), "the end stays the end")
    }

    /// What the maker throws comes after every element made before it, once.
    func testAFailureComesAfterTheElementsBeforeIt() throws {
        struct Broken: Error {}
        var made = 0
        let stream = ReadAhead<Int>(batchSize: 4, batchCost: .max, maximumBatches: 1) {
            made += 1
            if made == 7 { throw Broken() }
            return (made, 0)
        }
        defer { stream.close() }
        var all: [Int] = []
        do {
            while let batch = try stream.next() { all += batch }
            XCTFail("no failure")
        } catch is Broken {}
        XCTAssertEqual(all, [1, 2, 3, 4, 5, 6])
        XCTAssertNil(try stream.next(), "thrown once")
    }

    /// Closed before the end: the making thread stops (it is waiting on the full queue) and no
    /// element is made after `close` returns.
    func testCloseStopsTheMaker() throws {
        let count = Locked(0)
        let stream = ReadAhead<Int>(batchSize: 2, batchCost: .max, maximumBatches: 2) {
            (
                count.withLock {
                    $0 += 1
                    return $0
                }, 0
            )
        }
        XCTAssertEqual(try stream.next(), [1, 2])
        stream.close()
        let stopped = count.withLock { $0 }
        // At most the queue's two batches, the one being filled and the element in hand.
        XCTAssertLessThanOrEqual(stopped, 2 + 2 * 2 + 2 + 1)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(count.withLock { $0 }, stopped)
    }

    /// A scan records what it reads only when a second reading is to come (the command line
    /// asks for it for `simulate --into` alone): one that did not record cannot be read again,
    /// and says so, with nothing written; one that did is copied.
    func testOnlyAScanToBeReadAgainRecordsAndOnlyItIsReadAgain() throws {
        try Tool.require("tar", for: "the archive is made with tar")
        let dir = try TempDir("readrecord")
        try Fixture.container(at: dir.sub("A"))
        try Data("first\n".utf8).write(to: URL(fileURLWithPath: dir.sub("A/Documents/notes.txt")))
        try sh("tar -C A -cf A.tar .", in: dir.path)

        var once = ContainerSelection()
        once.recordsArchiveReading = false
        let scanned = try Audit.inventories(of: dir.sub("A.tar"), once)[0]
        XCTAssertNil(scanned.archive?.record.finished(), "a scan read once records nothing")
        XCTAssertThrowsError(try Materializer.write(SimulationResult(.update, scanned), into: dir.sub("out"))) {
            error in
            XCTAssertTrue("\(error)".contains("its scan did not record what it read"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("out")))

        let recorded = try Audit.inventories(of: dir.sub("A.tar"))[0]
        XCTAssertGreaterThan(
            recorded.archive?.record.finished()?.runs.count ?? 0, 0, "a scan to be read again records its runs")
        let report = try Materializer.write(SimulationResult(.update, recorded), into: dir.sub("out"))
        XCTAssertEqual(report.files, 1)
        XCTAssertEqual(try String(contentsOfFile: dir.sub("out/Documents/notes.txt"), encoding: .utf8), "first\n")

        // The command line: `simulate --into` records (it copies), a plain scan does not need to.
        let r = try CLI.run(["simulate", "update", dir.sub("A.tar"), "--into", dir.sub("out2")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir.sub("out2/Documents/notes.txt"), encoding: .utf8), "first\n")
    }

    /// Writes a tar of `members` (path, "dir" or "file", in that order), each file holding its path.
    static let writeTar = """
        import io, sys, tarfile
        out, spec = sys.argv[1], sys.argv[2:]
        with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
            for path, kind in zip(spec[0::2], spec[1::2]):
                info = tarfile.TarInfo(path)
                if kind == "dir":
                    info.type = tarfile.DIRTYPE; info.mode = 0o755; t.addfile(info)
                else:
                    data = path.encode(); info.size = len(data); info.mode = 0o644; t.addfile(info, io.BytesIO(data))
        """

    /// The entries made while the archive is read (`ArchiveWalk.EarlyEntries`) are dropped when a
    /// member read later decides otherwise: a top folder found later that comes first in byte
    /// order is the data root, and so is one that only a later copy of a path makes a container
    /// (the data root is then found again over the members kept); and with neither, the entries
    /// are those of the data root found first.
    func testEntriesMadeWhileReadingFollowTheDataRootFoundAtTheEnd() throws {
        try Tool.require("python3", for: "the archives are written by Python")
        let dir = try TempDir("earlyentries")
        func scanned(_ name: String, _ members: [(String, String)]) throws -> (root: String, paths: Set<String>) {
            _ = try python(Self.writeTar, [dir.sub(name)] + members.flatMap { [$0.0, $0.1] })
            let inventory = try Audit.inventory(of: dir.sub(name))
            return (inventory.container.dataRoot, Set(inventory.entries.map { $0.path.display }))
        }
        // B/ is found first, A/ later: A/ is the data root.
        let later = try scanned(
            "later.tar", [("B/Documents/b.txt", "file"), ("B/Library/x", "file"), ("A/Documents/a.txt", "file")])
        XCTAssertEqual(later.root, dir.sub("later.tar") + "!/A")
        XCTAssertEqual(later.paths, ["Documents", "Documents/a.txt"])
        // A/Library stored as a file, then again as a folder: only then is A/ a container, and
        // the first in byte order.
        let again = try scanned(
            "again.tar", [("A/Library", "file"), ("B/Documents/b.txt", "file"), ("A/Library", "dir")])
        XCTAssertEqual(again.root, dir.sub("again.tar") + "!/A")
        XCTAssertEqual(again.paths, ["Library"])
        // One top folder all along: its entries as they were made.
        let one = try scanned(
            "one.tar",
            [("App/Documents/a.txt", "file"), ("App/tmp", "dir"), ("App/Library/Caches/c", "file"), ("App", "dir")])
        XCTAssertEqual(one.root, dir.sub("one.tar") + "!/App")
        XCTAssertEqual(
            one.paths, ["Documents", "Documents/a.txt", "tmp", "Library", "Library/Caches", "Library/Caches/c"])
    }
}
