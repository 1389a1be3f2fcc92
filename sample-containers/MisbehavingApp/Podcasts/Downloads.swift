import Foundation

/// Episodes downloaded for listening offline, in a folder of their own at the container's root:
/// neither backed up nor kept by an update (the home folder is no place for them).
struct EpisodeDownloads {
    let folder = URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Downloads")

    func file(forEpisode number: Int) -> URL {
        let padded = String(format: "%03d", number)
        return folder.appendingPathComponent("episode-\(padded).mp3")
    }
}
