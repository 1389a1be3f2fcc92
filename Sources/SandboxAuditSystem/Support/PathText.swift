/// Plain path strings, split by hand: NSString's path methods trap on a one-character name on
/// Linux.
package enum PathText {
    /// The parent folder (`.` for a bare name, `/` at the top) and the last component (empty
    /// for `/` itself).
    package static func split(_ path: String) -> (parent: String, name: String) {
        let slash = path.lastIndex(of: "/")
        let parent = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return (parent, name)
    }
}
