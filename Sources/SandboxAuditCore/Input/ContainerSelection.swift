import Foundation
import SandboxAuditSystem

/// Which containers to audit, from the command line and the policy file.
public struct ContainerSelection: Sendable {
    /// `--kind`: the role of a container given alone (overrides its metadata and folder).
    package var role: ContainerRole?
    /// `--app BUNDLE_ID`: the app whose containers a Simulator device folder holds.
    package var app: String?
    /// `--app-group ID` (repeatable) and the policy's `appGroups:`.
    package var appGroups: [String] = []
    /// The password of an encrypted backup folder (`--password-file`,
    /// `SANDBOX_AUDIT_BACKUP_PASSWORD`); without it, such a backup is refused.
    var password: String?
    /// `--simulator DEVICE`: `booted`, a UDID or a device name, found in `deviceSets`.
    var simulator: String?
    /// `--device-set DIR` (repeatable); empty: the default sets under `$HOME`.
    var deviceSets: [String] = []
    /// `--app-info PATH`: the app's `Info.plist`, or its `.app` folder (`AppInfo`).
    public var appInfo: String?
    /// Whether an archive's scan records what it reads (`ArchiveReadRecord`: the SHA-256 of each
    /// run of bytes), so that a second reading of it (`simulate --into`) can be checked against
    /// it. On unless the caller knows the archive is read once: the command line turns it off
    /// for every command but `simulate --into` (the digests took 8 % of the CPU time of the
    /// benchmark's archive scan), and a second reading of an archive scanned without it is refused.
    package var recordsArchiveReading = true
    /// `--stdin-limit SIZE`: the most bytes `scan -` copies from a pipe (nil: `StandardInput.defaultLimit`).
    public var standardInputLimit: Int64?

    public init(
        role: ContainerRole? = nil, app: String? = nil, appGroups: [String] = [], password: String? = nil,
        simulator: String? = nil, deviceSets: [String] = []
    ) {
        self.role = role
        self.app = app
        self.appGroups = appGroups
        self.password = password
        self.simulator = simulator
        self.deviceSets = deviceSets
    }
}
