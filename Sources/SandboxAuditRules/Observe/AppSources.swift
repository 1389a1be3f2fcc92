import SandboxAuditCore
import SandboxAuditSources
import SandboxAuditSystem

/// The app's sources (`--sources DIR`) as a scan reads them: for an entry of a container, the
/// lines of the app that build its path, best first. What a framework or an SDK writes (an
/// entry the owner catalogue attributes: cookies, HTTP storages, WebKit data, SDK caches) and
/// the system's own entries get none: no line of the app wrote them.
package struct AppSources: Sendable {
    /// The folder given, as given: the report names files relative to it.
    package let root: String
    package let index: SourceIndex

    package init(root: String, index: SourceIndex) {
        self.root = root
        self.index = index
    }

    /// Reads the app's sources below `root`; an `InputError` names the folder and why.
    package static func read(_ root: String) throws -> AppSources {
        do {
            return AppSources(root: root, index: try SourceIndex.build(root: root))
        } catch let e as SourceIndexError {
            throw InputError("--sources \(TerminalText.escaped(root)): \(e)")
        }
    }

    /// Where code puts the paths of the container of backup domain `domain`: its own home, or
    /// its App Group's folder (`AppDomainGroup-ID`).
    static func base(domain: String) -> SourceBase {
        let prefix = ContainerRole.group.domainPrefix
        return domain.hasPrefix(prefix) ? .appGroup(String(domain.dropFirst(prefix.count))) : .home
    }

    /// The lines that build entry `entry` of `inventory` (or `path`, when it lists no entry
    /// there); none for an entry a catalogue owner writes, a system entry or the data root.
    package func candidates(
        _ path: ContainerPath, entry: Int?, in inventory: Inventory, owner: Attribution?
    ) -> [SourceLocation] {
        guard !path.isRoot, owner?.entry == nil else { return [] }
        var isDirectory = false
        if let entry {
            let item = inventory.entries[entry]
            guard !item.isSystem else { return [] }
            isDirectory = item.entry.kind == .directory
        }
        return index.candidates(for: path.display, base: Self.base(domain: inventory.domain), isDirectory: isDirectory)
    }

    /// The lines that build `path` of the container of backup domain `domain`, for what names a
    /// path without its inventory (`compare`'s reports and baselines): none for a path whose
    /// recorded owner is one of the catalogue's SDKs or frameworks.
    package func candidates(_ path: ContainerPath, domain: String, owner: String?) -> [SourceLocation] {
        guard !path.isRoot, owner.map({ !Self.catalogueOwners.contains($0) }) ?? true else { return [] }
        return index.candidates(for: path.display, base: Self.base(domain: domain), isDirectory: false)
    }

    /// The names of the catalogue's owners (a team of the policy's `owners:` is none of them).
    static let catalogueOwners = Set(OwnerCatalogue.all.map(\.owner))

    /// The note a scan gives for the source files it could not read (none when it read them all).
    package var skippedNote: String? {
        let skipped = index.skipped
        guard !skipped.isEmpty else { return nil }
        let shown = skipped.prefix(3).map { "\(TerminalText.escaped($0.file)) (\($0.reason))" }
        return
            "\(skipped.count) source \(skipped.count == 1 ? "file" : "files") under \(TerminalText.escaped(root)) "
            + "not read, so no finding points at \(skipped.count == 1 ? "it" : "them"): "
            + shown.joined(separator: "; ") + (skipped.count > shown.count ? "; …" : "")
    }
}
