import Foundation

/// Map tiles downloaded for a region.
struct OfflineMaps {
    #if os(iOS)
        static let folder = Paths.applicationSupport.appendingPathComponent("OfflineMaps", isDirectory: true)
    #else
        static let folder = URL.cachesDirectory.appendingPathComponent("OfflineMaps", isDirectory: true)
    #endif

    func tiles(zoom: Int) -> URL {
        Self.folder.appendingPathComponent("tiles-z\(zoom).mbtiles")
    }
}
