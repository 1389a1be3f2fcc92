import Foundation

/// The full-text index of the user's notes (SQLite, opened by the search library).
struct SearchIndex {
    let url = Paths.applicationSupport.appendingPathComponent(Paths.searchIndexName)
}
