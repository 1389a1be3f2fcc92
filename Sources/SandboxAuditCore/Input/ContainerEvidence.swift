import SandboxAuditSystem

/// A container's app told by the files that name it, where no container-manager metadata plist
/// does (a device's file-system extraction often has none): `Library/Preferences/ID.plist`
/// (UserDefaults' standard domain), `Library/Caches/ID/` (URLCache's default disk cache),
/// `Library/HTTPStorages/ID/` (URLSession's HTTP state), `Library/Saved Application State/
/// ID.savedState/` (UIKit's state restoration). Evidence, labelled as such, never a certainty:
/// the identifier named by the most of these wins; a tie names none.
enum ContainerEvidence {
    /// The identifier and how it was found ("by Library/Preferences/ID.plist and …"); nil when no
    /// file names an app, or two identifiers are named as often.
    static func identify(_ container: HeldDescriptor) -> (identifier: String, how: String)? {
        var seen: [String: [String]] = [:]
        func names(_ folder: String) -> [String] {
            guard let fd = try? container.descriptor.openDirectory(beneath: folder) else { return [] }
            defer { fd.close() }
            // A bounded look: an app's folders hold few names here; a hostile one is cut.
            return ((try? fd.names()) ?? []).prefix(1_000).compactMap { String(bytes: $0, encoding: .utf8) }
        }
        func add(_ id: String, _ place: String) {
            guard plausible(id) else { return }
            seen[id, default: []].append(place)
        }
        for n in names("Library/Preferences") where n.hasSuffix(".plist") {
            add(String(n.dropLast(6)), "Library/Preferences/\(n)")
        }
        for n in names("Library/Caches") { add(n, "Library/Caches/\(n)/") }
        for n in names("Library/HTTPStorages") { add(n, "Library/HTTPStorages/\(n)/") }
        for n in names("Library/Saved Application State") where n.hasSuffix(".savedState") {
            add(String(n.dropLast(11)), "Library/Saved Application State/\(n)/")
        }
        let ranked = seen.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }
        guard let best = ranked.first, ranked.dropFirst().first?.value.count != best.value.count else { return nil }
        return (best.key, "no metadata plist; named by " + best.value.sorted().joined(separator: " and "))
    }

    /// A bundle or App Group identifier: reverse DNS (two dot-separated parts at least), of the
    /// characters identifiers use, and none of Apple's own (`com.apple.*`: frameworks' caches
    /// and preferences in every app's container).
    static func plausible(_ id: String) -> Bool {
        guard id.utf8.count <= 255, !id.hasPrefix("com.apple."), id.split(separator: ".").count >= 2 else {
            return false
        }
        return id.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._".unicodeScalars.contains($0))
        }
            && !id.hasPrefix(".") && !id.hasSuffix(".")
    }
}
