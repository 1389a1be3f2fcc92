import SandboxAuditSystem
import SandboxAuditCore

/// The app's own `Info.plist` in the audit: found (`--app-info`, or the app's bundle on the
/// Simulator device its data container is on), and applied: an App Clip's containers are
/// classified as iOS treats them, none of them backed up.
extension Audit {
    /// iOS backs none of an App Clip's app and extension containers up (its App Groups keep
    /// their verdicts); a backup holds what iOS did, so its containers are read as they are.
    static func skipsBackup(_ container: Container, _ info: AppInfo?) -> Bool {
        info?.isAppClip == true && !container.source.capabilities.recordsBackup && container.role != .group
    }

    /// The note an App Clip's scan carries, naming the domains it leaves out; nil for another app.
    static func appClipNote(_ info: AppInfo, domains: [String]) -> String? {
        guard info.isAppClip, !domains.isEmpty else { return nil }
        return "\(info.source) declares an App Clip (NSAppClip): iOS never backs App Clips up (MobileBackup skips them: "
            + "https://github.com/EthanArbuckle/iPhone18-3_26.1_23B85_Restore, MBExcludedAppTypeFromAppRecord), so nothing of "
            + domains.joined(separator: ", ") + " is backed up or restored: its backup footprint is 0"
    }

    /// The Info.plist that `selection` names (`--app-info`) or the app's bundle on the
    /// Simulator device the data container is on. Throws `InputError` for an `--app-info` that
    /// cannot be read.
    static func findAppInfo(_ containers: [Container], _ selection: ContainerSelection) throws -> AppInfo? {
        if let path = selection.appInfo { return try AppInfo.read(path) }
        guard let first = containers.first, first.role == .app, first.source.capabilities.filesOnDisk,
              let app = selection.app ?? first.bundleIdentifier,
              let found = first.listedIn ?? (try? AppContainers.containersAbove(first.dataRoot)) ?? nil else { return nil }
        return AppInfo.inBundle(containers: found, app: app)
    }
}
