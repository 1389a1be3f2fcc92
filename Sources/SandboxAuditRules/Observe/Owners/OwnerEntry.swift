import SandboxAuditCore
import SandboxAuditSystem

/// One entry of the owner catalogue (`OwnerCatalogue.all`): an SDK or an Apple framework that
/// writes into an app's containers, how its files are recognised, and the public source that
/// says so. Reports show the source to the user. Documented in docs/owners.md.
package struct OwnerEntry: Sendable {
    /// Who writes it: a third-party SDK, or Apple's own frameworks (WebKit, CFNetwork, UIKit).
    package enum Kind: String, Sendable { case sdk, framework }

    /// How its files are recognised.
    package enum Match: Sendable {
        /// A path glob (`Glob`), relative to the container's root; a folder it names is the
        /// owner's with everything in it.
        case path(String)
        /// A UserDefaults suite by its name (a glob over it): the file
        /// `Library/Preferences/NAME.plist`, in any of the app's containers.
        case suite(String)
        /// Top-level keys with this prefix inside the app's own preferences plist: the file
        /// stays the app's, the keys are the owner's (`large-user-defaults` names them).
        case keyPrefix(String)
        /// A store named by its companions, wherever the app put it (`*.realm`, `*.realm.lock` …).
        case store(String)

        /// The glob this match puts on paths; nil for a key prefix.
        var glob: String? {
            switch self {
            case .path(let g), .store(let g): return g
            case .suite(let name): return "Library/Preferences/\(name).plist"
            case .keyPrefix: return nil
            }
        }
    }

    /// Whether the owner sets the exclude-from-backup attribute on what it writes.
    package enum Exclusion: String, Sendable {
        /// Set, on the folder or on each file.
        case excluded
        /// Not set anywhere in its source: backed up where its zone is.
        case notExcluded = "not-excluded"
        /// Some of it excluded, some not (the note says which).
        case partly
        /// Written to Caches or tmp, which backup skips anyway.
        case notNeeded = "not-needed"
        /// Closed source, or not read: unknown.
        case unknown
    }

    /// How the entry was established.
    package enum Evidence: String, Sendable {
        /// Read in the owner's own source code.
        case code
        /// Read in the owner's official documentation.
        case docs
        /// Only observed (in containers, logs or issue reports), not read in code.
        case observed
    }

    /// Where it is said: a GitHub repository (`owner/name`), a file (or `issue N`, `pull request N`)
    /// and lines (or the symbol where the path is built).
    package struct Source: Sendable, CustomStringConvertible {
        package let repository: String
        package let file: String
        package let line: String?
        /// The commit the lines were read at (`OwnerCatalogue.commits`); nil: the default branch.
        package let commit: String?
        /// For Apple's frameworks: the page of Apple's documentation of the API that writes and
        /// controls the files (`repository` is then `developer.apple.com`, `file` the page's title).
        package var documentation: String? = nil

        /// How reports name it: `repository/file`, or Apple's page by its title.
        package var title: String { documentation == nil ? "\(repository)/\(file)" : "Apple, \(file)" }
        /// The repository's page, or Apple's documentation page.
        package var home: String { documentation ?? "https://github.com/\(repository)" }

        /// The file at that commit (its first line range as the anchor), the issue or the pull
        /// request; Apple's documentation page.
        package var url: String {
            if let documentation { return documentation }
            let base = "https://github.com/\(repository)"
            for (prefix, path) in [("issue ", "issues"), ("pull request ", "pull")] where file.hasPrefix(prefix) {
                return "\(base)/\(path)/\(file.dropFirst(prefix.count))"
            }
            var url = "\(base)/blob/\(commit ?? "HEAD")/\(file)"
            let first = (line ?? "").prefix { $0.isNumber || $0 == "-" }
            if let start = first.split(separator: "-").first {
                url += "#L\(start)" + (first.split(separator: "-").dropFirst().first.map { "-L\($0)" } ?? "")
            }
            return url
        }

        /// The URL, then the lines or the symbol.
        package var description: String {
            guard let line else { return url }
            return url + (line.first?.isNumber == true ? ", lines " : ", ") + line
        }
    }

    package let owner: String
    package let kind: Kind
    /// Where it writes now.
    package let matches: [Match]
    /// Where it wrote before it moved (`history` says when): still found in apps updated from
    /// an old version.
    package let legacy: [Match]
    package let holds: String
    package let exclusion: Exclusion
    /// What the exclusion verdict rests on, or what it misses (user-visible in Documents …).
    package let exclusionNote: String?
    /// Versions where the location moved.
    package let history: String?
    /// Written only by debug builds (absent from release builds).
    package let debugOnly: Bool
    package let source: Source
    package let evidence: Evidence
    /// What to do when its bytes are backed up: configure the SDK, exclude its folder, move it.
    package let advice: String
    /// Paths (files; a trailing `/` for a folder) that this entry attributes, built and attributed
    /// by the tests; for a key prefix, top-level keys of the app's preferences plist.
    package let examples: [String]
    /// For a name an app may choose itself (`tmp/models`, `Documents/app_log.txt`): paths (no
    /// wildcard) only the owner writes, one of which the container must hold for the entry to
    /// own anything there. Empty: the names are the owner's own.
    package let confirmedBy: [String]

    init(
        _ owner: String, _ matches: [Match], kind: Kind = .sdk, legacy: [Match] = [], holds: String,
        exclusion: Exclusion, note: String? = nil, history: String? = nil, debugOnly: Bool = false,
        source: (String, String, String?)? = nil, docs: (title: String, url: String)? = nil, evidence: Evidence = .code,
        advice: String,
        examples: [String], confirmedBy: [String] = []
    ) {
        self.owner = owner
        self.kind = kind
        self.matches = matches
        self.legacy = legacy
        self.holds = holds
        self.exclusion = exclusion
        self.exclusionNote = note
        self.history = history
        self.debugOnly = debugOnly
        if let docs {
            self.source = Source(
                repository: "developer.apple.com", file: docs.title, line: nil, commit: nil, documentation: docs.url)
            self.evidence = .docs
        } else {
            let source = source ?? ("", "", nil)
            self.source = Source(
                repository: source.0, file: source.1, line: source.2, commit: OwnerCatalogue.commits[source.0])
            self.evidence = evidence
        }
        self.advice = advice
        self.examples = examples
        self.confirmedBy = confirmedBy
    }

    /// The key prefixes it owns in the app's preferences plist.
    var keyPrefixes: [String] {
        matches.compactMap { if case .keyPrefix(let p) = $0 { return p } else { return nil } }
    }
}
