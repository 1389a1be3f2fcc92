import Foundation

/// The chat history and its thumbnails, shared with the notification extension.
final class GroupStore {
    let root = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: AppGroup.id)!
    let defaults = UserDefaults(suiteName: AppGroup.id)!

    var database: URL { root.appendingPathComponent("ChatStorage.sqlite") }

    lazy var thumbnails: URL = {
        let folder = root.appending(path: "Library/Caches/Thumbnails", directoryHint: .isDirectory)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }()

    func thumbnail(forMessage id: Int) -> URL {
        thumbnails.appendingPathComponent("chat-\(String(format: "%04d", id)).jpg")
    }
}
