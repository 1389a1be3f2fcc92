import Foundation

/// Episodes downloaded for listening offline.
struct EpisodeDownloads {
    let folder = FileManager.default.urls(for: .downloadsDirectory, in: .userDomainMask).first!

    func file(forEpisode number: Int) -> URL {
        let padded = String(format: "%03d", number)
        return folder.appendingPathComponent("episode-\(padded).mp3")
    }
}
