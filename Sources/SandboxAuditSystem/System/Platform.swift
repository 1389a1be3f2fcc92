import CSystem

/// The platform's constants for the system layer, read from its own headers through CSystem
/// (Glibc's Swift module does not export them; Darwin's spells some differently). What differs
/// by platform beyond these is in Platform+Linux.swift and Platform+Darwin.swift; nothing
/// outside this folder names a platform constant.
extension Platform {
    /// Opens without updating the access time (Linux O_NOATIME: needs ownership or CAP_FOWNER,
    /// EPERM otherwise); 0 where the system has none (macOS).
    package static let noAccessTime = Int32(sandbox_audit_o_noatime)
    /// `timespec.tv_nsec` for "now" in utimensat(2) and futimens(2).
    package static let timeNow = Int(sandbox_audit_utime_now)
    /// lseek(2) whences for sparse files (-1 where the headers have none).
    package static let seekData = Int32(sandbox_audit_seek_data)
    package static let seekHole = Int32(sandbox_audit_seek_hole)
}
