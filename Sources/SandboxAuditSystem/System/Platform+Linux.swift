#if os(Linux)
    import Glibc

    /// What differs on Linux (the constants both platforms read alike are in Platform.swift).
    package enum Platform {
        package static let descriptorLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

        /// No ceiling besides the hard limit: Linux refuses a soft limit above it (and the hard
        /// limit above fs.nr_open) with EPERM/EINVAL, and `raiseDescriptorLimit` keeps to it.
        package static var descriptorCeiling: rlim_t? { nil }

        package static func modified(_ st: stat) -> timespec { st.st_mtim }

        /// posix_spawn(3)'s file actions and attributes: structures on Linux.
        package typealias SpawnFileActions = posix_spawn_file_actions_t
        package typealias SpawnAttributes = posix_spawnattr_t
        package static func spawnFileActions() -> SpawnFileActions { posix_spawn_file_actions_t() }
        package static func spawnAttributes() -> SpawnAttributes { posix_spawnattr_t() }
        /// The environment this process runs with, as posix_spawn(3) takes it.
        package static var environmentPointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? { environ }
    }
#endif
