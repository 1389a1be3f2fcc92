import Foundation

/// The few ways work is spread over the cores, as `Sendable` building blocks: every parallel
/// pass of the library is one of these, so that the raw memory and the unchecked `Sendable`
/// they need live here alone, and what callers hand them is checked by the compiler (Swift 6's
/// strict concurrency): a worker's closure is `@Sendable`, what it returns is `Sendable`.
///
/// - `map`: one result per index, in index order.
/// - `share`: workers that take tasks from a pool and hand some of theirs back to it while
///   another waits, each with a state of its own.
/// - `runs` and `array`: an array made in consecutive runs, one per core, each run written by
///   one worker only.
package enum Parallel {
    /// `body(i)` for every `i` in `0..<count`, spread over the cores (`DispatchQueue.concurrentPerform`),
    /// the results in the order of `i`. One index runs on the calling thread.
    package static func map<T: Sendable>(_ count: Int, _ body: @Sendable (Int) -> T) -> [T] {
        guard count > 1 else { return count == 1 ? [body(0)] : [] }
        let slots = Slots<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { i in slots.store(body(i), at: i) }
        return slots.take()
    }

    /// `workers` workers share `tasks` and whatever tasks they hand back (`TaskPool.offer`):
    /// each takes the next task when it is done with its own, and a worker with more work than
    /// it can do alone offers some of it while another waits (`TaskPool.hungry`). Ends when the
    /// pool is empty and every worker waits. Each worker starts from `initial()`; the states come
    /// back in the order of the workers.
    package static func share<Task: Sendable, State: Sendable>(
        workers: Int, tasks: [Task], initial: @Sendable () -> State,
        _ body: @Sendable (inout State, Task, TaskPool<Task>) -> Void
    ) -> [State] {
        let workers = max(1, workers)
        let pool = TaskPool(tasks, workers: workers)
        return map(workers) { _ in
            var state = initial()
            while let task = pool.take() { body(&state, task, pool) }
            return state
        }
    }

    /// The workers a pass over a large input is shared among: the machine's cores, counted in
    /// this one place.
    package static let workers = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// `workers` for a pass over `count` items when there are at least `minimum` (fewer are not
    /// worth a thread each), else 1.
    package static func parts(_ count: Int, atLeast minimum: Int) -> Int { count >= minimum ? workers : 1 }

    /// `0..<count` cut into `parts` consecutive runs as even as they come (the last takes what
    /// is left over): `runs(5, parts: 2)` is `[0..<2, 2..<5]`. At least one run, however small `count`.
    package static func runs(_ count: Int, parts: Int) -> [Range<Int>] {
        let parts = max(1, parts)
        return (0..<parts).map { p in (p * count / parts)..<((p + 1) * count / parts) }
    }

    /// An array of `count` elements made on the cores, one worker per run: `body(part, out)`
    /// writes the elements of `runs[part]` in order (`out.append`), and may read back what it has
    /// written (`out[i]`). `runs` are consecutive and cover `0..<count` (`runs(_:parts:)`).
    /// Returns the array and what each part returned, in the order of the runs.
    package static func array<T: Sendable, R: Sendable>(
        count: Int, runs: [Range<Int>],
        _ body: @Sendable (Int, inout RunWriter<T>) -> R
    ) -> ([T], [R]) {
        var expected = 0
        for run in runs {
            precondition(run.lowerBound == expected, "runs are consecutive and start at 0")
            expected = run.upperBound
        }
        precondition(expected == count, "runs cover every position")
        var results: [R] = []
        let made = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = BaseAddress(pointer: buffer.baseAddress)
            results = map(runs.count) { part in
                var out = RunWriter<T>(base: base.pointer, run: runs[part])
                let result = body(part, &out)
                precondition(out.next == runs[part].upperBound, "a run writes each of its positions")
                return result
            }
            initialized = count
        }
        return (made, results)
    }
}

/// One worker's run of an array `Parallel.array` makes: it writes its positions in order and
/// reads back those it wrote. Not copyable, and lent to the one worker whose run it is.
package struct RunWriter<T>: ~Copyable {
    @usableFromInline let base: UnsafeMutablePointer<T>?
    /// The positions this worker writes.
    package let run: Range<Int>
    /// The next position to write.
    @usableFromInline package internal(set) var next: Int

    fileprivate init(base: UnsafeMutablePointer<T>?, run: Range<Int>) {
        self.base = base
        self.run = run
        self.next = run.lowerBound
    }

    /// Writes the next position of the run (inlined where it is called: a gather writes a
    /// million positions).
    @inlinable package mutating func append(_ value: consuming T) {
        precondition(next < run.upperBound, "a run writes only its positions")
        (base! + next).initialize(to: value)
        next += 1
    }

    /// A position of the run already written.
    @inlinable package subscript(i: Int) -> T {
        precondition(i >= run.lowerBound && i < next, "a run reads back only what it wrote")
        return base![i]
    }
}

/// The address of the array `Parallel.array` makes, handed to its workers.
/// `@unchecked Sendable`: a pointer is not `Sendable`; each worker writes only the positions of
/// its own run (`RunWriter` checks it), and the array is read only once every worker is done
/// (`concurrentPerform` returns after the last), so no two threads touch one element.
private struct BaseAddress<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>?
}

/// One result per index of `Parallel.map`.
/// `@unchecked Sendable`: each index's worker writes its own slot once, and the slots are read
/// once `concurrentPerform` has returned (after every write); the elements are `Sendable`.
private final class Slots<T: Sendable>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<T?>
    private let count: Int

    init(count: Int) {
        self.count = count
        base = .allocate(capacity: count)
        base.initialize(repeating: nil, count: count)
    }

    func store(_ value: T, at i: Int) { base[i] = value }

    /// Every slot's value (each one stored), taken out.
    func take() -> [T] { (0..<count).map { base[$0].take()! } }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// The tasks `Parallel.share`'s workers take and hand back.
/// `@unchecked Sendable`: its mutable fields are read and written only while `condition`'s
/// lock is held.
package final class TaskPool<Task: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var tasks: [Task]
    private let workers: Int
    private var waiting = 0
    private var finished = false

    fileprivate init(_ tasks: [Task], workers: Int) {
        self.tasks = tasks
        self.workers = workers
    }

    /// True while a worker waits for a task and none is there: the time to offer some.
    package var hungry: Bool {
        condition.lock()
        defer { condition.unlock() }
        return waiting > 0 && tasks.isEmpty
    }

    /// Hands tasks to the workers that wait.
    package func offer(_ more: [Task]) {
        guard !more.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        tasks += more
        condition.broadcast()
    }

    /// The next task; nil once the pool is empty and every other worker waits too (none is
    /// left that could offer one).
    fileprivate func take() -> Task? {
        condition.lock()
        defer { condition.unlock() }
        while tasks.isEmpty {
            if finished || waiting == workers - 1 {
                finished = true
                condition.broadcast()
                return nil
            }
            waiting += 1
            condition.wait()
            waiting -= 1
        }
        return tasks.removeLast()
    }
}

/// Work started on a queue now, its result taken later on the thread that started it: the
/// one way a pipeline stage hands a batch to another thread and gets it back.
/// `@unchecked Sendable`: `value` is written once, by the work, before `done` is signalled, and
/// read only after `done` has been waited for; the value is `Sendable`.
package final class Background<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: T?
    private var finished = false

    package init(on queue: DispatchQueue, _ work: @escaping @Sendable () -> T) {
        queue.async {
            self.value = work()
            self.done.signal()
        }
    }

    /// Waits until the work is done (again: returns at once).
    package func wait() {
        guard !finished else { return }
        done.wait()
        finished = true
    }

    /// The work's result, once it is done: taken out, so that the caller holds the only copy.
    package func take() -> T {
        wait()
        defer { value = nil }
        return value!
    }
}
