import SandboxAuditCore
import SandboxAuditSources
import SandboxAuditSystem

/// `recreatable-in-documents-code`: the app's code builds a path in Documents whose name reads
/// re-creatable, the static twin of `recreatable-in-documents`, seen whether or not the run
/// that filled the container wrote it.
struct RecreatableInDocumentsCode: Rule {
    init() {}
    let needs: [RuleNeed] = [.requires(.sources)]
    /// Once, on the app's data container: the sources are the app's, its extensions' among
    /// them (their homes are told apart by no line), and an App Group's folder is another matter.
    var roles: Set<ContainerRole> { [.app] }

    let description = RuleDescription(
        id: "recreatable-in-documents-code",
        name: "Re-creatable content in Documents, in the code",
        summary:
            "The app's code (--sources) builds a path in Documents whose name reads re-creatable, by the names "
            + "recreatable-in-documents knows (*cache folders, thumbnails, tmp, *.part, *.download …), and the "
            + "container holds nothing there: the run that filled it did not write it.",
        rationale: """
            Documents is for what the user created and the app cannot re-create; it is always backed up. A cache, \
            a thumbnail folder or a partial download there inflates every backup (\(References.backupBestPractices); \
            \(References.dataStorageGuidelines)). Read from the code, the path is found before any run writes it: \
            UI tests rarely reach every download or cache. A path the container holds is left to \
            recreatable-in-documents, which weighs what is there.
            """,
        fix:
            "Build the path from the caches directory (FileManager.default.urls(for: .cachesDirectory, in: "
            + ".userDomainMask)) or the temporary directory, not the document directory.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A thumbnail folder built in Documents", [.directory("Documents")], expect: ["Documents/Thumbnails"],
                sources: [
                    "Thumbs.swift": """
                    import Foundation
                    let docs = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
                    let thumbs = docs.appendingPathComponent("Thumbnails")
                    """
                ]),
            RuleExample(
                "A partial download named at run time", [.directory("Documents")], expect: ["Documents/*.part"],
                sources: [
                    "Download.swift": """
                    import Foundation
                    func partial(_ id: String) -> URL { URL.documentsDirectory.appending(path: "\\(id).part") }
                    """
                ]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "A cache where it belongs", [.directory("Documents")],
                sources: [
                    "Cache.swift": """
                    import Foundation
                    let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
                    let images = caches.appendingPathComponent("ImageCache")
                    """
                ]),
            RuleExample(
                "User documents", [.directory("Documents")],
                sources: [
                    "Notes.swift": """
                    import Foundation
                    let notes = URL.documentsDirectory.appendingPathComponent("Notes")
                    """
                ]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        guard let sources = context.sources else { return [] }
        var seen: Set<String> = []
        var out: [Finding] = []
        for built in sources.index.paths where built.base == .home {
            guard let (path, why) = Self.recreatable(built.pattern), seen.insert(path).inserted else { continue }
            let at = ContainerPath(path)
            // What the container holds there, recreatable-in-documents judges on its bytes.
            guard inventory.index(of: at) == nil else { continue }
            out.append(
                finding(
                    at,
                    "the code builds \(path) (\(why)) in Documents, where it would be backed up; the container "
                        + "holds nothing there yet"))
        }
        return out.sorted(by: Finding.ordered)
    }

    /// The topmost part of a path under Documents whose name reads re-creatable, and why.
    static func recreatable(_ pattern: String) -> (path: String, why: String)? {
        let parts = pattern.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count > 1, parts[0] == "Documents" else { return nil }
        for k in 1..<parts.count {
            let name = Array(parts[k].utf8)[...]
            let last = k == parts.count - 1
            let why =
                RecreatableInDocuments.matches(name: name, kind: .directory)
                ?? (last ? RecreatableInDocuments.matches(name: name, kind: .file) : nil)
            if let why { return (parts[...k].joined(separator: "/"), why) }
        }
        return nil
    }
}
