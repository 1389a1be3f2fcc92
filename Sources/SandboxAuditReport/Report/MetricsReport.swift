import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSystem

/// `--format metrics`: one flat JSON object of the scan's totals in MetricKit's terms
/// (`MXDiskSpaceUsageMetric`'s property names) beside the backup's, for dashboards to set a CI
/// prediction beside the field metric per app version. Formats only: the figures are
/// `StorageMetrics`' (Observe). Fields: docs/metrics-format.md.
enum MetricsReport {
    /// Bumped on any change that could break a reader; fields may be added within a version.
    static let schemaVersion: Int64 = 1

    /// MetricKit's figures no input of this tool gives: the app's bundle is not scanned, and no
    /// walk reads APFS clone information.
    static let neverMeasured = ["totalCloneSize", "totalBinaryFileSize", "totalBinaryFileCount"]

    static func document(_ report: ScanReport) -> JSON {
        let result = report.result
        let m = StorageMetrics(result.inventories)
        let c = result.inventory.container
        var notMeasured: [String] = []
        if m.dataFileSize == nil { notMeasured.append("totalDataFileSize") }
        if !m.deviceFiguresMeasured { notMeasured.append("totalDataFileCount") }
        if m.cacheFolderSize == nil { notMeasured.append("totalCacheFolderSize") }
        // A device backup holds what iOS backs up: not the device's caches, tmp or excluded files.
        let device = m.deviceFiguresMeasured
        func measured(_ v: Int64) -> JSON { device ? .int(v) : .null }
        notMeasured += neverMeasured
        return .object([
            ("schemaVersion", .int(schemaVersion)),
            ("format", .string("sandbox-audit-metrics")),
            ("toolVersion", .string(Audit.toolVersion)),
            ("bundleIdentifier", .optional(c.bundleIdentifier)),
            ("appVersion", .optional(c.version)),
            ("domains", .int(Int64(result.inventories.count))),
            ("complete", .bool(result.complete)),
            ("totalDataFileSize", .optional(m.dataFileSize)),
            ("totalDataFileCount", measured(Int64(m.dataFileCount))),
            ("totalCacheFolderSize", .optional(m.cacheFolderSize)),
            ("totalCloneSize", .null),
            ("totalBinaryFileSize", .null),
            ("totalBinaryFileCount", .null),
            ("notMeasured", .array(notMeasured.map { .string($0) })),
            ("dataFileContentSize", measured(m.dataFileContentSize)),
            ("cacheFolderContentSize", measured(m.cacheFolderContentSize)),
            ("cacheFileCount", measured(Int64(m.cacheFileCount))),
            ("backupSize", .int(m.backupSize)),
            ("backupFileCount", .int(Int64(m.backupFileCount))),
            ("excludedSize", measured(m.excludedSize)),
            ("keptOnUpdateSize", measured(m.keptOnUpdateSize)),
            ("keptOnRestoreSize", .int(m.keptOnRestoreSize)),
        ])
    }
}
