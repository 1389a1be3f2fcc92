import Foundation
import SandboxAuditSystem

extension ArchiveWalk {
    /// A path the archive stores as a file, symlink or special file, with members below it (as
    /// if it were a folder too): one of the two cannot be extracted, and counting both would count
    /// the path twice. The stored entry is kept; every member below it is left out, with one
    /// problem per such path naming it (the scan is then incomplete), so the scan, the inventory,
    /// `simulate --into` (which writes only inventory entries) and the ncdu export all hold the
    /// one entry. Each folder is checked once, and the folders checked are bounded as the
    /// implied folders are (`maximumPathBytes`).
    static func leaveOutShadowed(_ entries: inout [WalkEntry], problems: inout [WalkProblem]) {
        let stored = mayShadow(entries)
        guard !stored.isEmpty else { return }
        var shadowedBy: [ContainerPath: ContainerPath?] = [.root: nil]
        var budget = maximumPathBytes
        var reported = Set<ContainerPath>()
        var keep = [Bool](repeating: true, count: entries.count)
        for i in entries.indices {
            // The folders above the entry, up to one whose verdict is known.
            var chain: [ContainerPath] = []
            var p = entries[i].path.parent ?? .root
            var verdict: ContainerPath?? = shadowedBy[p]
            while verdict == nil {
                budget -= p.bytes.count
                if stored[p] != nil {
                    verdict = .some(p)
                    break
                }
                chain.append(p)
                guard budget > 0, let up = p.parent else {
                    verdict = .some(nil)
                    break
                }
                p = up
                verdict = shadowedBy[p]
            }
            let by = verdict ?? nil
            for folder in chain where budget > 0 { shadowedBy[folder] = by }
            guard let by else { continue }
            keep[i] = false
            if reported.insert(by).inserted {
                problems.append(
                    WalkProblem(
                        path: by, operation: "read archive entry",
                        reason:
                            "the archive stores this path as a \(stored[by] ?? "file") and holds members below it as "
                            + "if it were a folder: the members below it are left out"
                    ))
            }
        }
        guard keep.contains(false) else { return }
        entries = entries.indices.filter { keep[$0] }.map { entries[$0] }
    }

    /// The entries that are not folders and may have entries below them, by path, with what
    /// they are. Only a path some entry lies below can shadow: the folders above the entries are
    /// gathered first (siblings come together, so an entry is compared in place with the last
    /// one's folder), then the entries stored at one of them as something else are taken. Past
    /// `maximumAboveBytes` of such folders (a chain thousands deep; a container's folders take
    /// a few hundred kB), every entry that is not a folder is taken, as the caller then walks up
    /// every chain anyway.
    private static func mayShadow(_ entries: [WalkEntry]) -> [ContainerPath: String] {
        var above = Set<ContainerPath>()
        var aboveBytes = 0
        var lastFolder: ContainerPath?
        // By index, not `for e in entries`: that copies every entry (a retain per field).
        gathering: for i in entries.indices {
            if let last = lastFolder, entries[i].path.isChild(of: last) { continue }
            var p = entries[i].path.parent ?? .root
            lastFolder = p
            while !p.isRoot, above.insert(p).inserted {
                aboveBytes += p.bytes.count
                guard aboveBytes <= maximumAboveBytes else { break gathering }
                p = p.parent ?? .root
            }
        }
        let allAbove = aboveBytes <= maximumAboveBytes
        var stored: [ContainerPath: String] = [:]
        for i in entries.indices where entries[i].kind != .directory && (!allAbove || above.contains(entries[i].path)) {
            stored[entries[i].path] = kindWord(entries[i])
        }
        return stored
    }

    /// The most bytes of folder paths `mayShadow` gathers before it takes every entry instead.
    private static let maximumAboveBytes = 4 << 20

    private static func kindWord(_ e: WalkEntry) -> String {
        switch e.kind {
        case .file: return "file"
        case .symlink: return "symlink"
        case .directory: return "folder"
        case .other: return "special file"
        }
    }

    /// Folders the archive only implies. Members of one folder usually come together, so the
    /// last parent checked is remembered. Implied folders' paths count against the archive's path
    /// budget (`maximumPathBytes`, which the members' own paths used first): one member at the
    /// bottom of a chain implies every folder above it, whose paths add up to the square of its
    /// depth. Once a member's folders would pass the budget, no more folders are implied, and
    /// every entry whose folders are not all there is left out, with one problem.
    static func addImpliedFolders(
        _ entries: inout [WalkEntry], prefix prefixBytes: [UInt8], sidecars: inout ArchiveSidecars,
        problems: inout [WalkProblem]
    ) {
        var folders = Set<ContainerPath>()
        var budget = maximumPathBytes
        for i in entries.indices {
            budget -= entries[i].path.bytes.count
            if entries[i].kind == .directory { folders.insert(entries[i].path) }
        }
        var lastChecked = ContainerPath.root
        var leftOut = false
        for i in entries.indices {
            let path = entries[i].path
            if path.isChild(of: lastChecked) { continue }
            var parent = path.parent ?? .root
            lastChecked = parent
            var missing: [ContainerPath] = []
            var cost = 0
            while !parent.isRoot, !folders.contains(parent) {
                cost += parent.bytes.count
                guard cost <= budget else { break }
                missing.append(parent)
                guard let up = parent.parent else { break }
                parent = up
            }
            guard cost <= budget else {
                if !leftOut {
                    problems.append(
                        WalkProblem(
                            path: path, operation: "read archive entry",
                            reason:
                                "the archive's paths, with the folders they imply, add up to more than "
                                + "\(maximumPathBytes / (1 << 20)) MiB: this entry, and every later one whose "
                                + "folders are not listed yet, are left out"
                        ))
                }
                leftOut = true
                budget = 0
                continue
            }
            budget -= cost
            for folder in missing {
                folders.insert(folder)
                entries.append(
                    WalkEntry(
                        path: folder, kind: .directory, special: nil, size: 0, allocated: 0, mode: 0o755,
                        modifiedSeconds: entries[i].modifiedSeconds, modifiedNanoseconds: 0, device: 0, inode: 0,
                        linkCount: 1, symlinkTarget: nil, header: nil,
                        marks: sidecars.take(prefixBytes + folder.bytes)))
            }
        }
        guard leftOut else { return }
        // Only entries whose every folder is there: shallowest first, so that an entry left out
        // takes everything below it.
        var kept = Set<ContainerPath>()
        var keep = [Bool](repeating: false, count: entries.count)
        for i in entries.indices.sorted(by: { entries[$0].path.depth < entries[$1].path.depth }) {
            let parent = entries[i].path.parent ?? .root
            guard parent.isRoot || kept.contains(parent) else { continue }
            keep[i] = true
            if entries[i].kind == .directory { kept.insert(entries[i].path) }
        }
        entries = entries.indices.filter { keep[$0] }.map { entries[$0] }
    }
}
