import Foundation

extension ArchiveWalk {
    /// The members of an archive read on a second thread, a batch ahead of the thread that
    /// numbers and places them: libarchive's reading and the walk's own work per member then
    /// take a core each. The reader is used on that thread alone, from the first member to
    /// the last or until `close`, which waits for it to stop. A sidecar member is reduced
    /// (`compactSidecar`) on that thread as it is read, and at most `maximumBatches` batches
    /// wait at any time, each handed on at `batchSize` members or once its kept contents reach
    /// `batchBytes` (a member keeps at most 1 MiB), so what is read ahead is bounded whatever
    /// the archive holds (docs/limits.md).
    final class ReadAhead: @unchecked Sendable {
        static let batchSize = 256
        static let batchBytes = 4 << 20
        static let maximumBatches = 4

        private let condition = NSCondition()
        private var ready: [[Member]] = []
        private var ended = false
        private var failure: (any Error)?
        private var stopping = false

        /// Starts reading `reader` (which nothing else may use until `close` returns), keeping
        /// `keep(path, size)` leading bytes of each regular file.
        init(_ reader: Reader, keep: @escaping ([UInt8], Int64) -> Int) {
            let unchecked = UncheckedReader(reader: reader, keep: keep)
            Thread.detachNewThread { [self] in self.produce(unchecked) }
        }

        private struct UncheckedReader: @unchecked Sendable {
            let reader: Reader
            let keep: ([UInt8], Int64) -> Int
        }

        private func produce(_ source: UncheckedReader) {
            var batch: [Member] = []
            batch.reserveCapacity(Self.batchSize)
            var bytes = 0
            var error: (any Error)?
            while true {
                var member: Member
                do {
                    guard let read = try source.reader.next(keep: source.keep) else { break }
                    member = read
                } catch let e { error = e; break }
                compactSidecar(&member)
                bytes += member.data?.count ?? 0
                batch.append(member)
                guard batch.count == Self.batchSize || bytes >= Self.batchBytes else { continue }
                guard hand(batch) else { break }
                batch = []
                batch.reserveCapacity(Self.batchSize)
                bytes = 0
            }
            condition.lock()
            if !batch.isEmpty, !stopping { ready.append(batch) }
            failure = error
            ended = true
            condition.broadcast()
            condition.unlock()
        }

        /// Queues a full batch, waiting while the queue is full; false once the walk stopped.
        private func hand(_ batch: [Member]) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while ready.count >= Self.maximumBatches, !stopping { condition.wait() }
            guard !stopping else { return false }
            ready.append(batch)
            condition.broadcast()
            return true
        }

        /// The next batch in archive order; nil at the end. Throws what reading threw, once
        /// every member read before it has been given.
        func next() throws -> [Member]? {
            condition.lock()
            defer { condition.unlock() }
            while ready.isEmpty, !ended { condition.wait() }
            if !ready.isEmpty {
                condition.broadcast()
                return ready.removeFirst()
            }
            if let failure { self.failure = nil; throw failure }
            return nil
        }

        /// Stops the reading thread and waits until it no longer uses the reader.
        func close() {
            condition.lock()
            stopping = true
            ready = []
            condition.broadcast()
            while !ended { condition.wait() }
            condition.unlock()
        }
    }
}
