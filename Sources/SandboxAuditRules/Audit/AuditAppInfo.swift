import SandboxAuditCore
import SandboxAuditSystem

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
        return
            "\(info.source) declares an App Clip (NSAppClip): iOS never backs App Clips up (MobileBackup skips them: "
            + "https://github.com/EthanArbuckle/iPhone18-3_26.1_23B85_Restore, MBExcludedAppTypeFromAppRecord), so "
            + "nothing of "
            + domains.joined(separator: ", ") + " is backed up or restored: its backup footprint is 0"
    }

    /// The Info.plist that `selection` names (`--app-info`) or the app's bundle on the
    /// Simulator device the data container is on. Throws `InputError` for an `--app-info` that
    /// cannot be read, or that is not the audited app's (`checkIdentity`).
    static func findAppInfo(_ containers: [Container], _ selection: ContainerSelection) throws -> AppInfo? {
        if let path = selection.appInfo {
            let info = try AppInfo.read(path)
            try checkIdentity(info, containers, selection)
            return info
        }
        guard let first = containers.first, first.role == .app, first.source.capabilities.filesOnDisk,
            let app = selection.app ?? first.bundleIdentifier,
            let found = first.listedIn ?? (try? AppContainers.containersAbove(first.dataRoot)) ?? nil
        else { return nil }
        return AppInfo.inBundle(containers: found, app: app)
    }

    /// `--app-info` must be the Info.plist of the app audited: its `CFBundleIdentifier` is the
    /// `--app` named, else the identifier the first container's identity gives (a Simulator
    /// container's metadata, an .xcappdata's AppDataInfo.plist, a backup's domain). An App Clip
    /// or an extension is audited through its own container, whose identity names it, with its
    /// own Info.plist. Throws `InputError` (exit 2) naming both identifiers when they differ, or
    /// when the app audited is known and the Info.plist names none. Nothing to check when
    /// neither `--app` nor the container names the app (a plain copy of a container), or when
    /// the first container is an App Group's.
    static func checkIdentity(_ info: AppInfo, _ containers: [Container], _ selection: ContainerSelection) throws {
        guard let first = containers.first, first.role != .group || selection.app != nil,
            let audited = selection.app ?? first.bundleIdentifier
        else { return }
        let what = info.isAppClip ? " (an App Clip)" : info.isExtension ? " (an app extension)" : ""
        guard let id = info.bundleIdentifier else {
            throw InputError(
                "--app-info \(TerminalText.escaped(info.source)) names no app (no CFBundleIdentifier): give the "
                    + "Info.plist of \(TerminalText.escaped(audited)), the app audited"
            )
        }
        guard id == audited else {
            throw InputError(
                "--app-info \(TerminalText.escaped(info.source)) is the Info.plist of "
                    + "\(TerminalText.escaped(id))\(what), not of \(TerminalText.escaped(audited)), the app audited: "
                    + "give \(TerminalText.escaped(audited))'s own Info.plist (an App Clip or an extension is "
                    + "audited through its own container, with its own Info.plist)"
            )
        }
    }
}
