import SandboxAuditSystem
import SandboxAuditCore

/// The app's own `Info.plist` in the audit: found (`--app-info`, or the app's bundle on the
/// Simulator device its data container is on), and applied: an App Clip's containers are
/// classified as iOS treats them, none of them backed up.
extension Audit {
    /// The Info.plist that `selection` names or the device holds, and what it changes in
    /// `inventories` and `notes`. Throws `InputError` for an `--app-info` that cannot be read.
    static func applyAppInfo(_ inventories: inout [Inventory], _ notes: inout [String], _ selection: ContainerSelection) throws -> AppInfo? {
        guard let info = try findAppInfo(inventories, selection) else { return nil }
        if info.isAppClip {
            var skipped: [String] = []
            for i in inventories.indices where !inventories[i].container.source.capabilities.recordsBackup && inventories[i].container.role != .group {
                inventories[i] = inventories[i].skippedByBackup()
                skipped.append(inventories[i].domain)
            }
            if !skipped.isEmpty {
                notes.append("\(info.source) declares an App Clip (NSAppClip): iOS never backs App Clips up (MobileBackup skips them: "
                    + "https://github.com/EthanArbuckle/iPhone18-3_26.1_23B85_Restore, MBExcludedAppTypeFromAppRecord), so nothing of "
                    + skipped.joined(separator: ", ") + " is backed up or restored: its backup footprint is 0")
            }
        }
        return info
    }

    static func findAppInfo(_ inventories: [Inventory], _ selection: ContainerSelection) throws -> AppInfo? {
        if let path = selection.appInfo { return try AppInfo.read(path) }
        guard let first = inventories.first, first.container.role == .app, first.container.source.capabilities.filesOnDisk,
              let app = selection.app ?? first.container.bundleIdentifier,
              let containers = AppContainers.containersAbove(first.container.dataRoot) else { return nil }
        return AppInfo.inBundle(containers: containers, app: app)
    }
}
