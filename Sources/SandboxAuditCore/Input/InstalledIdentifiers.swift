/// Bundle identifiers of installed apps, for finding the app an extension belongs to: the one
/// with the longest identifier that the extension's identifier extends, followed by a dot
/// (`com.example.app.pro.widget` belongs to `com.example.app.pro` before `com.example.app`).
///
/// An identifier may be a hostile name of hundreds of kilobytes made of dots: trying every
/// dot-prefix would hash each (quadratic in its length). Only prefixes as long as some installed
/// identifier can match, so only those are hashed, and their lengths are distinct: the cost is
/// one scan of `id` plus at most the installed identifiers' total length (docs/limits.md).
package struct InstalledIdentifiers: Sendable {
    private let identifiers: Set<String>
    private let lengths: Set<Int>

    package init(_ identifiers: some Sequence<String>) {
        self.identifiers = Set(identifiers)
        lengths = Set(self.identifiers.map(\.utf8.count))
    }

    package func contains(_ id: String) -> Bool { identifiers.contains(id) }

    /// The longest installed identifier longer than `minimum` bytes that `id` begins with,
    /// followed by a dot; nil when there is none.
    package func longest(extendedBy id: String, longerThan minimum: Int) -> String? {
        let bytes = Array(id.utf8)
        var end = bytes.count
        while end > minimum, let dot = bytes[..<end].lastIndex(of: UInt8(ascii: ".")), dot > minimum {
            if lengths.contains(dot), case let candidate = String(decoding: bytes[..<dot], as: UTF8.self),
                identifiers.contains(candidate)
            {
                return candidate
            }
            end = dot
        }
        return nil
    }
}
