import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// A scan's totals in MetricKit's terms (`MXDiskSpaceUsageMetric`, iOS 26; `TotalFileSizeMetric`
/// and `TotalFileCountMetric`, iOS 27) beside the backup's, over every container scanned: what a
/// CI run predicts, to set beside what the field reports for the same app version. A figure the
/// input cannot give is nil (not measured), never a guess. Fields: docs/metrics-format.md.
package struct StorageMetrics: Sendable, Equatable {
    /// Data files (regular files of every container, system entries left out, a hard-linked
    /// file once): `totalDataFileCount` / `dataFileCount`.
    package var dataFileCount = 0
    /// Their bytes on disk (`st_blocks` × 512): `totalDataFileSize` / `dataFileSize`. Nil where
    /// the input does not observe sizes on disk (an archive, a backup).
    package var dataFileSize: Int64?
    /// Their apparent bytes (`st_size`), what a backup records.
    package var dataFileContentSize: Int64 = 0
    /// `Library/Caches` of every container, on disk: `totalCacheFolderSize` / `cacheFolderSize`.
    package var cacheFolderSize: Int64?
    package var cacheFolderContentSize: Int64 = 0
    package var cacheFileCount = 0
    /// Backed-up bytes (the backup footprint) and files.
    package var backupSize: Int64 = 0
    package var backupFileCount = 0
    /// Bytes the exclude attribute keeps out of the backup.
    package var excludedSize: Int64 = 0
    package var keptOnUpdateSize: Int64 = 0
    package var keptOnRestoreSize: Int64 = 0
    /// The input holds only what a backup carries (a device backup): the device's files beside
    /// them (caches, tmp, excluded files) are not in it, so the figures about them are not
    /// measured (`deviceFiguresMeasured` false; the report writes them as null).
    package var deviceFiguresMeasured = true

    package init(_ inventories: [Inventory]) {
        var allocated: Int64 = 0
        var cacheAllocated: Int64 = 0
        var onDisk = !inventories.isEmpty
        for inventory in inventories {
            onDisk = onDisk && inventory.container.source.capabilities.sizesOnDisk
            let entries = inventory.entries
            for i in entries.indices
            where entries.countsInTotals(i) && entries.zone(i) != .system && entries.kind(i) == .file {
                let item = entries[i]
                let e = item.entry
                dataFileCount += 1
                dataFileContentSize +|= e.contentSize
                allocated +|= e.allocated
                if item.zone == .caches {
                    cacheFileCount += 1
                    cacheFolderContentSize +|= e.contentSize
                    cacheAllocated +|= e.allocated
                }
                if item.backedUp == true {
                    backupSize +|= e.contentSize
                    backupFileCount += 1
                }
                if item.excluded == true { excludedSize +|= e.contentSize }
                if item.survivesUpdate == true { keptOnUpdateSize +|= e.contentSize }
                if item.survivesRestore == true { keptOnRestoreSize +|= e.contentSize }
            }
        }
        deviceFiguresMeasured = !inventories.contains { $0.container.source.capabilities.recordsBackup }
        dataFileSize = onDisk ? allocated : nil
        cacheFolderSize = onDisk ? cacheAllocated : nil
    }
}
