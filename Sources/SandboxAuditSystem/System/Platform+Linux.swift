#if os(Linux)
import Glibc

/// What differs on Linux (the constants both platforms read alike are in Platform.swift).
package enum Platform {
    package static let descriptorLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

    package static func modified(_ st: stat) -> timespec { st.st_mtim }
}
#endif
