import SandboxAuditCore
import SandboxAuditSystem

/// What to tell an SDK's maintainers: for each catalogue entry of an SDK whose files in this scan
/// are backed up, or grew since the baseline, those files (largest first) with their sizes and
/// growth, and the entry's public source, where the SDK builds the path. The reports format it
/// (`OwnerReport`); a policy file's teams are not SDKs and get none, nor Apple's frameworks.
package struct MaintainerNote: Sendable {
    package struct File: Sendable {
        /// The path, `DOMAIN/PATH` for a container other than the app's data container.
        package let path: ContainerPath
        package let size: Int64
        package let backedUp: Bool
        /// The size in the baseline when the file grew since; nil otherwise.
        package let before: Int64?
        /// Whether the baseline was given and did not have the file.
        package let added: Bool

        /// Bytes more than the baseline's (a new file's whole size); 0 when it did not grow.
        package var growth: Int64 { added ? size : before.map { max(0, size - $0) } ?? 0 }
    }

    package let entry: OwnerEntry
    /// Its files that are backed up or grew, largest growth then largest size first.
    package let files: [File]
    /// Every file of the entry's (backed up or not), and their bytes.
    package let fileCount: Int
    package let size: Int64
    package let backedUpBytes: Int64
    /// Bytes more than the baseline's, over its files; nil without a baseline.
    package let growth: Int64?

    /// Apple's documentation of the attribute an SDK sets to keep a file out of backups.
    package static let exclusionReference = References.isExcludedFromBackup
    package static let backupReference = References.optimizingForICloudBackup
}

extension OwnerMap {
    /// The notes of a scan: one per SDK entry with backed-up or grown files, the most
    /// backed-up bytes first (then most growth, then by owner). Growth is read from
    /// `comparison` (a scan with `--baseline`). Costs one pass over the entries.
    package func maintainerNotes(_ inventories: [Inventory], comparison: BaselineComparison?) -> [MaintainerNote] {
        var grown: [ContainerPath: BaselineComparison.Change] = [:]
        var added = Set<ContainerPath>()
        if let comparison {
            for c in comparison.grew { grown[c.path] = c }
            for c in comparison.added { added.insert(c.path) }
        }
        struct Acc {
            var files: [MaintainerNote.File] = []
            var count = 0
            var size: Int64 = 0
            var backedUp: Int64 = 0
            var growth: Int64 = 0
        }
        var byEntry: [Int: Acc] = [:]
        for (c, inventory) in inventories.enumerated() where c < codes.count {
            let codes = self.codes[c]
            let entries = inventory.entries
            for i in entries.indices where codes[i] >= 0 && entries.countsInTotals(i) && entries.kind(i) == .file {
                let e = entries[i]
                guard let index = matcher.entryIndex(code: codes[i]), matcher.catalogue[index].kind == .sdk else {
                    continue
                }
                let path = Baseline.qualified(e.path, domain: c == 0 ? nil : inventory.domain)
                let size = e.entry.contentSize
                let backedUp = e.backedUp == true
                let isNew = comparison != nil && added.contains(path)
                let file = MaintainerNote.File(
                    path: path, size: size, backedUp: backedUp, before: grown[path]?.before, added: isNew)
                var acc = byEntry[index] ?? Acc()
                acc.count += 1
                acc.size +|= size
                if backedUp { acc.backedUp +|= size }
                acc.growth +|= file.growth
                if backedUp || file.growth > 0 { acc.files.append(file) }
                byEntry[index] = acc
            }
        }
        let notes = byEntry.compactMap { index, acc -> MaintainerNote? in
            guard !acc.files.isEmpty else { return nil }
            let files = acc.files.sorted {
                if $0.growth != $1.growth { return $0.growth > $1.growth }
                if $0.size != $1.size { return $0.size > $1.size }
                return $0.path < $1.path
            }
            return MaintainerNote(
                entry: matcher.catalogue[index], files: files, fileCount: acc.count, size: acc.size,
                backedUpBytes: acc.backedUp, growth: comparison == nil ? nil : acc.growth)
        }
        return notes.sorted {
            if $0.backedUpBytes != $1.backedUpBytes { return $0.backedUpBytes > $1.backedUpBytes }
            if ($0.growth ?? 0) != ($1.growth ?? 0) { return ($0.growth ?? 0) > ($1.growth ?? 0) }
            return ($0.entry.owner, $0.entry.source.description) < ($1.entry.owner, $1.entry.source.description)
        }
    }
}
