import Foundation

/// Notes the user has not finished.
struct DraftStore {
    let folder = Paths.documents.appendingPathComponent("Drafts", isDirectory: true)

    func url(forTitle title: String) -> URL {
        folder.appendingPathComponent(title).appendingPathExtension("md")
    }
}
