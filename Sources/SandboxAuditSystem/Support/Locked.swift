import Foundation

/// A value shared between threads, read and changed only under its lock: what a `Sendable`
/// class that keeps mutable state (a progress count, a reader's cache) holds instead of a lock
/// and `var`s of its own, so that it needs no `@unchecked Sendable`.
/// `@unchecked Sendable`: `value` is reached only inside `withLock`, while `lock` is held, and
/// it is `Sendable`, so nothing taken out of it shares state with it.
package final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    /// `body` with the value, alone: no other thread reads or changes it meanwhile.
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
