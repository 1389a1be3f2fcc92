import Foundation

/// Elements made on a thread of its own, in batches, ahead of the thread that takes them: the
/// making (an archive's reading through libarchive) and the taking (numbering and placing what
/// was read) then take a core each. The maker is handed over (`sending`): it is used on that
/// thread alone, from the first element to the last or until `close`, which waits for it to
/// stop. A batch is handed on at `batchSize` elements or once the costs `next` gives its
/// elements reach `batchCost`, and at most `maximumBatches` batches wait at any time, so what
/// is made ahead is bounded by `maximumBatches` batches of at most `batchSize` elements, each
/// under `batchCost` plus one element's cost.
///
/// `@unchecked Sendable`: the queue's fields (`ready`, `ended`, `failure`, `stopping`) are
/// read and written only while `condition` is locked; the elements handed across are
/// `Sendable`; and the maker, which need not be, is reached only by the one thread started
/// here, the caller having given it up (`sending`: the compiler checks that nothing else
/// holds what it captures).
package final class ReadAhead<Element: Sendable>: @unchecked Sendable {
    package let batchSize: Int
    package let batchCost: Int
    package let maximumBatches: Int

    private let condition = NSCondition()
    private var ready: [[Element]] = []
    private var ended = false
    private var failure: (any Error)?
    private var stopping = false

    /// Starts a thread that calls `next` until it gives nil (the end) or throws, each element
    /// with its cost toward `batchCost`.
    package init(
        batchSize: Int, batchCost: Int, maximumBatches: Int,
        _ next: sending @escaping () throws -> (Element, cost: Int)?
    ) {
        self.batchSize = max(1, batchSize)
        self.batchCost = batchCost
        self.maximumBatches = max(1, maximumBatches)
        let maker = Maker(next: next)
        Thread.detachNewThread { [self] in self.produce(maker) }
    }

    /// The maker, moved to the reading thread. `@unchecked Sendable`: it was given up by the
    /// caller (`sending`) and only that thread calls it.
    private struct Maker: @unchecked Sendable {
        let next: () throws -> (Element, cost: Int)?
    }

    private func produce(_ maker: Maker) {
        var batch: [Element] = []
        batch.reserveCapacity(batchSize)
        var cost = 0
        var error: (any Error)?
        while true {
            let made: (Element, cost: Int)
            do {
                guard let m = try maker.next() else { break }
                made = m
            } catch let e {
                error = e
                break
            }
            cost += made.cost
            batch.append(made.0)
            guard batch.count == batchSize || cost >= batchCost else { continue }
            guard hand(batch) else { break }
            batch = []
            batch.reserveCapacity(batchSize)
            cost = 0
        }
        condition.lock()
        if !batch.isEmpty, !stopping { ready.append(batch) }
        failure = error
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// Queues a full batch, waiting while the queue is full; false once the taker stopped.
    private func hand(_ batch: [Element]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= maximumBatches, !stopping { condition.wait() }
        guard !stopping else { return false }
        ready.append(batch)
        condition.broadcast()
        return true
    }

    /// The next batch in the order made; nil at the end. Throws what `next` threw, once every
    /// element made before it has been given.
    package func next() throws -> [Element]? {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty, !ended { condition.wait() }
        if !ready.isEmpty {
            condition.broadcast()
            return ready.removeFirst()
        }
        if let failure {
            self.failure = nil
            throw failure
        }
        return nil
    }

    /// Stops the making thread and waits until it no longer runs `next`.
    package func close() {
        condition.lock()
        stopping = true
        ready = []
        condition.broadcast()
        while !ended { condition.wait() }
        condition.unlock()
    }
}
