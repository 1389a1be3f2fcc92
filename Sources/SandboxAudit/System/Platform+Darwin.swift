#if canImport(Darwin)
import Darwin
import CSystem

/// macOS's constants and structure layouts for the system layer (see Platform+Linux.swift).
enum Platform {
    /// macOS has no O_NOATIME: opens never ask for it.
    static let noAccessTime = Int32(sandbox_audit_o_noatime)
    static let timeNow = Int(sandbox_audit_utime_now)
    static let timeOmit = Int(sandbox_audit_utime_omit)
    static let seekData = Int32(sandbox_audit_seek_data)
    static let seekHole = Int32(sandbox_audit_seek_hole)
    static let descriptorLimit = RLIMIT_NOFILE

    static func modified(_ st: stat) -> timespec { st.st_mtimespec }

    /// The extended attributes a copy leaves out: those the system sets and owns, which a copy
    /// may not write (`com.apple.provenance`, `com.apple.rootless`) or should not carry
    /// (`com.apple.quarantine`). Everything else is copied, the backup attributes
    /// `com.apple.metadata:com_apple_backup_excludeItem` and `com.apple.MobileBackup` among them.
    static let attributeCopySkipPrefixes = ["com.apple.quarantine", "com.apple.provenance", "com.apple.rootless"]
}
#endif
