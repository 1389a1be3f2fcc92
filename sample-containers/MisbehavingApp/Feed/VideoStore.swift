import Foundation

/// Trailers downloaded for offline viewing: kept in Documents, so they are backed up (they
/// should be in Library/Caches).
struct VideoStore {
    let folder = Paths.documents.appendingPathComponent(Paths.videoCacheFolder)

    var indexFile: URL { folder.appendingPathComponent("index.json") }

    func file(for id: String, quality: String) -> URL {
        folder.appendingPathComponent("\(id)-\(quality).mp4")
    }

    func save(_ data: Data, id: String, quality: String) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try data.write(to: file(for: id, quality: quality))
    }
}
