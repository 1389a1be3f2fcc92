import Foundation
import XCTest
@testable import SandboxAudit
@testable import SandboxAuditSystem
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate

/// The archive's reading on a thread of its own (`ReadAhead`, SandboxAuditSystem).
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
            (count.withLock { $0 += 1; return $0 }, 0)
        }
        XCTAssertEqual(try stream.next(), [1, 2])
        stream.close()
        let stopped = count.withLock { $0 }
        // At most the queue's two batches, the one being filled and the element in hand.
        XCTAssertLessThanOrEqual(stopped, 2 + 2 * 2 + 2 + 1)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(count.withLock { $0 }, stopped)
    }
}
