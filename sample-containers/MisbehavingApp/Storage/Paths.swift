import Foundation

/// Where the app keeps its files. One place for the names, so that every store agrees.
enum Paths {
    static let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]

    static var applicationSupport: URL {
        let url = try! FileManager.default.url(
            for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        return url
    }

    static let videoCacheFolder = "VideoCache"
    static let searchIndexName = "search-index.sqlite"
    static let feedDatabaseName = "feed.sqlite"
}
