import CLibArchive
import Crypto
import Foundation

/// The archive file as the scan opened it (`ArchiveWalk.open`): the descriptor held for the rest
/// of the run, through which every reading of it goes, and its device, inode, size and
/// modification time then.
package struct ArchiveSnapshot: Sendable {
    package let file: HeldDescriptor
    package let status: FileStatus
    /// What the scan read of it, for a second reading to check.
    let record = ArchiveReadRecord()

    package init(file: HeldDescriptor, status: FileStatus) {
        self.file = file
        self.status = status
    }

    /// Whether the open file still has the size and modification time the scan saw (a file
    /// written over in place since is not what was scanned).
    package var isUnchanged: Bool {
        guard let now = try? file.descriptor.status() else { return false }
        return (now.size, now.modifiedSeconds, now.modifiedNanoseconds) == (
            status.size, status.modifiedSeconds, status.modifiedNanoseconds
        )
    }
}

/// What the scan read of the archive, through `Reader.Source`: runs of consecutive bytes, each
/// at most `Source.largest` long, with their SHA-256. `simulate --into` reads the same open
/// file again and is given no byte the scan read unless the run holding it reads as it did, so
/// an archive written over in place after the scan (same size, modification time set back) is
/// refused, while one renamed or replaced by name is still read from the file the scan read.
/// The scan reads every byte of a compressed archive; of an uncompressed tar or a zip, the
/// headers and the bytes of members it keeps (the data it skips is not read, so not checked:
/// docs/limits.md). Costs 48 bytes per run (one per skip, or per 1 MiB read through).
package final class ArchiveReadRecord: @unchecked Sendable {
    struct Run {
        let start: Int64
        let count: Int
        let digest: SHA256.Digest
    }

    /// The runs sorted by start, with, for each, the index of the run reaching furthest among
    /// it and those before it: the run holding a position is found by binary search even where
    /// runs overlap (a zip read back after a seek).
    struct Runs {
        let runs: [Run]
        let furthest: [Int]

        init(_ unsorted: [Run]) {
            runs = unsorted.sorted { $0.start < $1.start }
            var f: [Int] = []
            f.reserveCapacity(runs.count)
            for (i, r) in runs.enumerated() {
                if let last = f.last, runs[last].start + Int64(runs[last].count) >= r.start + Int64(r.count) {
                    f.append(last)
                } else {
                    f.append(i)
                }
            }
            furthest = f
        }

        /// How many runs start at or before `position`.
        private func startingBy(_ position: Int64) -> Int {
            var lo = 0
            var hi = runs.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if runs[mid].start <= position { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }

        /// A run the scan read that holds `position`.
        func covering(_ position: Int64) -> Run? {
            let n = startingBy(position)
            guard n > 0 else { return nil }
            let r = runs[furthest[n - 1]]
            return r.start + Int64(r.count) > position ? r : nil
        }

        /// Where the first run after `position` starts.
        func start(after position: Int64) -> Int64? {
            let n = startingBy(position)
            return n < runs.count ? runs[n].start : nil
        }
    }

    private let lock = NSLock()
    private var runs: [Run] = []
    private var current: (start: Int64, count: Int, hasher: SHA256)?
    /// Whether the last reading recorded (`reset`) or not (`forget`).
    private var recorded = false

    /// A reading that records starts.
    func reset() {
        lock.lock()
        defer { lock.unlock() }
        runs = []
        current = nil
        recorded = true
    }

    /// A reading that does not record starts: nothing is known of what it reads.
    func forget() {
        lock.lock()
        defer { lock.unlock() }
        runs = []
        current = nil
        recorded = false
    }

    /// Bytes read at `offset`: they extend the current run when they follow it and it stays
    /// within `Source.largest`, else start a new one.
    func add(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        lock.lock()
        defer { lock.unlock() }
        if var c = current, c.start + Int64(c.count) == offset, c.count + bytes.count <= ArchiveReader.Source.largest {
            c.hasher.update(bufferPointer: bytes)
            c.count += bytes.count
            current = c
            return
        }
        closeRun()
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        current = (offset, bytes.count, hasher)
    }

    private func closeRun() {
        guard let c = current else { return }
        runs.append(Run(start: c.start, count: c.count, digest: c.hasher.finalize()))
        current = nil
    }

    /// The runs recorded, the last one closed; nil when the last reading did not record.
    func finished() -> Runs? {
        lock.lock()
        defer { lock.unlock() }
        guard recorded else { return nil }
        closeRun()
        return Runs(runs)
    }
}
