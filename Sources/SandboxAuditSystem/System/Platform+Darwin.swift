#if canImport(Darwin)
    import Darwin

    /// What differs on macOS (the constants both platforms read alike are in Platform.swift).
    package enum Platform {
        package static let descriptorLimit = RLIMIT_NOFILE

        /// The most descriptors the system lets one process open (`kern.maxfilesperproc`; setrlimit(2)
        /// refuses a soft limit above it with EINVAL), nil when it cannot be read.
        package static var descriptorCeiling: rlim_t? {
            var value: Int32 = 0
            var size = MemoryLayout<Int32>.size
            guard sysctlbyname("kern.maxfilesperproc", &value, &size, nil, 0) == 0, value > 0 else { return nil }
            return rlim_t(value)
        }

        package static func modified(_ st: stat) -> timespec { st.st_mtimespec }

        /// The extended attributes a copy leaves out: those the system sets and owns, which a copy
        /// may not write (`com.apple.provenance`, `com.apple.rootless`) or should not carry
        /// (`com.apple.quarantine`). Everything else is copied, the backup attributes
        /// `com.apple.metadata:com_apple_backup_excludeItem` and `com.apple.MobileBackup` among them.
        package static let attributeCopySkipPrefixes = [
            "com.apple.quarantine", "com.apple.provenance", "com.apple.rootless",
        ]

        /// posix_spawn(3)'s file actions and attributes: pointers the init calls fill on Darwin.
        package typealias SpawnFileActions = posix_spawn_file_actions_t?
        package typealias SpawnAttributes = posix_spawnattr_t?
        package static func spawnFileActions() -> SpawnFileActions { nil }
        package static func spawnAttributes() -> SpawnAttributes { nil }
        /// The environment this process runs with, as posix_spawn(3) takes it.
        package static var environmentPointer: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
            _NSGetEnviron().pointee
        }
    }
#endif
