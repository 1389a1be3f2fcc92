import Foundation

/// The feed's local database and its small settings.
final class FeedCache {
    let databaseURL = URL.cachesDirectory.appendingPathComponent(Paths.feedDatabaseName)
    let settings = UserDefaults(suiteName: "com.example.misbehaving.feedcache")

    func loadImages() {
        // URLSession's shared cache: URLCache writes it, not this code.
        let session = URLSession.shared
        _ = session
    }
}
