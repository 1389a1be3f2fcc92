import Foundation
import SandboxAuditSystem

/// What becomes of sidecars that describe no entry, for the folder and the archive readings
/// alike: each is kept with its nearest match, and one whose name differs from an entry's only
/// by Unicode normalisation gives that entry its marks (a Mac's file system takes the two
/// names for one).
enum SidecarOrphans {
    /// Records `orphans` in `walk.orphanSidecars`, each with its nearest match.
    /// Costs nothing when there are none; otherwise one pass over the entries.
    static func resolve(_ orphans: [SidecarOrphan], into walk: inout WalkResult) {
        guard !orphans.isEmpty else { return }
        // The orphans' folders by number: the entries in them, in one pass over the entries'
        // folder numbers (no path made).
        let entries = walk.entries
        let folders = Set(orphans.compactMap { entries.folders.find(folderBytes($0.target)) })
        var siblings: [Int32: [Int]] = [:]
        for i in entries.indices where folders.contains(entries.folder[i]) {
            siblings[entries.folder[i], default: []].append(i)
        }
        // Byte order, so that the result does not depend on the order the walk found things.
        for var orphan in orphans.sorted(by: { $0.sidecar < $1.sidecar }) {
            let candidates = entries.folders.find(folderBytes(orphan.target)).flatMap { siblings[$0] } ?? []
            var anchor: Int?
            if let i = candidates.first(where: { sameUnderNormalisation(entries.name($0), orphan.target.name) }) {
                anchor = i
                orphan.sameUnderNormalisation = true
                walk.entries.addMarks(orphan.marks, at: i)
            } else {
                let name = Array(String(decoding: orphan.target.name, as: UTF8.self).unicodeScalars)
                var best: (distance: Int, index: Int)?
                for i in candidates {
                    let d = distance(name, Array(String(decoding: entries.name(i), as: UTF8.self).unicodeScalars))
                    if best == nil || d < best!.distance
                        || (d == best!.distance && entries.path(i) < entries.path(best!.index))
                    {
                        best = (d, i)
                    }
                }
                anchor = best?.index
            }
            orphan.nearest = anchor.map { entries.path($0) }
            walk.orphanSidecars.append(orphan)
        }
    }

    /// The bytes of the folder holding `path` (empty for the data root).
    static func folderBytes(_ path: ContainerPath) -> ArraySlice<UInt8> {
        path.bytes[..<(path.bytes.lastIndex(of: UInt8(ascii: "/")) ?? 0)]
    }

    /// Two names of different bytes that are canonically equivalent (NFC against NFD): both
    /// must be valid UTF-8.
    static func sameUnderNormalisation(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        guard !a.elementsEqual(b), let sa = String(bytes: a, encoding: .utf8),
            let sb = String(bytes: b, encoding: .utf8)
        else { return false }
        return sa == sb  // Swift compares strings by canonical equivalence
    }

    /// Levenshtein distance between two names, by Unicode scalar.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// `path` (a member path, or a file system path below a common ancestor) relative to the
    /// data root `root`: `../` for each of the root's components it does not share.
    static func relative(_ path: [UInt8], toRoot root: [UInt8]) -> ContainerPath {
        let slash = UInt8(ascii: "/")
        let p = path.split(separator: slash, omittingEmptySubsequences: true)
        let r = root.split(separator: slash, omittingEmptySubsequences: true)
        var shared = 0
        while shared < p.count, shared < r.count, p[shared].elementsEqual(r[shared]) { shared += 1 }
        let parts =
            [ArraySlice<UInt8>](repeating: [UInt8(ascii: "."), UInt8(ascii: ".")], count: r.count - shared)
            + p[shared...]
        return ContainerPath(bytes: Array(parts.joined(separator: [slash])))
    }

    /// The sidecar's path for the item at `target` (relative to some folder): `PARENT/._NAME`.
    static func sidecarPath(for target: ContainerPath) -> ContainerPath {
        let name = AppleDouble.sidecarPrefix + Array(target.name)
        guard let parent = target.parent, !parent.isRoot else { return ContainerPath(bytes: name) }
        return parent.appending(name)
    }
}
