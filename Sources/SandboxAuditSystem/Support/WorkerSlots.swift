import Foundation

/// What the workers of a `DispatchQueue.concurrentPerform` pass hand back: one result slot
/// each, written under a lock, and the next task index for workers that take tasks in turn.
package final class WorkerSlots<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [T]
    private var next = 0

    package init(count: Int, initial: T) { values = Array(repeating: initial, count: count) }

    package func store(_ value: T, at i: Int) {
        lock.lock(); defer { lock.unlock() }
        values[i] = value
    }

    /// Every slot, once the pass is over.
    package var results: [T] {
        lock.lock(); defer { lock.unlock() }
        return values
    }

    /// The next task index below `count`, or nil when every task is taken.
    package func nextTask(below count: Int) -> Int? {
        lock.lock(); defer { lock.unlock() }
        guard next < count else { return nil }
        next += 1
        return next - 1
    }
}
