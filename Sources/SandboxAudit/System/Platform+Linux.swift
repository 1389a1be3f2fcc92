#if os(Linux)
import Glibc
import CSystem

/// Linux's constants and structure layouts for the system layer, from its own headers (through
/// CSystem where Glibc's Swift module does not export them). Platform+Darwin.swift is the
/// same for macOS; nothing outside this folder names a platform constant.
enum Platform {
    /// Opens without updating the access time (needs ownership or CAP_FOWNER: EPERM otherwise).
    static let noAccessTime = Int32(sandbox_audit_o_noatime)
    /// `timespec.tv_nsec` values of utimensat(2) and futimens(2).
    static let timeNow = Int(sandbox_audit_utime_now)
    static let timeOmit = Int(sandbox_audit_utime_omit)
    /// lseek(2) whences for sparse files (-1 where the kernel headers have none).
    static let seekData = Int32(sandbox_audit_seek_data)
    static let seekHole = Int32(sandbox_audit_seek_hole)
    static let descriptorLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

    static func modified(_ st: stat) -> timespec { st.st_mtim }
}
#endif
