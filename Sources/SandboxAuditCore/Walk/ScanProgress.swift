import Foundation
import SandboxAuditSystem

/// How far a walk has got, for a progress line: entries and bytes seen, and a folder being
/// read. Walkers add to it in batches (every `batch` entries and at the end of each folder
/// list), so the lock is taken a few hundred times a second at most, never per entry.
public final class ScanProgress: Sendable {
    public struct Snapshot: Sendable, Equatable {
        public var entries: Int64 = 0
        /// Regular files' bytes.
        public var bytes: Int64 = 0
        /// The folder (relative to its data root, or an archive member's folder) last reported.
        public var folder: String = ""
    }

    /// Entries a walker counts on its own before it reports them.
    static let batch = 4096

    /// Where walks report, when someone watches (the command line sets it on a terminal).
    nonisolated(unsafe) public static var current: ScanProgress?

    private let state = Locked(Snapshot())

    public init() {}

    /// Adds a batch of entries and bytes; `folder` is where the walker is now.
    func add(entries: Int, bytes: Int64, folder: @autoclosure () -> String) {
        let name = folder()
        state.withLock { state in
            state.entries += Int64(entries)
            state.bytes +|= bytes
            if !name.isEmpty { state.folder = name }
        }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }
}

/// A walker's own count, handed to `ScanProgress.current` every `ScanProgress.batch` entries.
struct ProgressCounter {
    let sink = ScanProgress.current
    var entries = 0
    var bytes: Int64 = 0

    /// Counts one entry (`size`: a file's bytes, else 0); reports the batch when it is full.
    /// Cheap when nobody watches.
    @inline(__always)
    mutating func count(_ size: Int64, folder: @autoclosure () -> String) {
        guard let sink else { return }
        entries += 1
        bytes +|= size
        if entries >= ScanProgress.batch {
            sink.add(entries: entries, bytes: bytes, folder: folder())
            entries = 0
            bytes = 0
        }
    }

    var isWatched: Bool { sink != nil }

    /// Counts the entries one folder listing added.
    mutating func countFolder(_ walk: WalkEntries, from first: Int, _ folder: ContainerPath) {
        guard let sink else { return }
        for i in first..<walk.count where walk.kind[i] == .file { bytes +|= walk.size[i] }
        entries += walk.count - first
        if entries >= ScanProgress.batch {
            sink.add(entries: entries, bytes: bytes, folder: folder.display)
            entries = 0
            bytes = 0
        }
    }

    mutating func flush(folder: @autoclosure () -> String) {
        guard let sink, entries > 0 else { return }
        sink.add(entries: entries, bytes: bytes, folder: folder())
        entries = 0
        bytes = 0
    }
}
