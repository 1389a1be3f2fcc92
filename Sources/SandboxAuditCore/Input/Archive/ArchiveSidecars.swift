import Foundation
import SandboxAuditSystem

/// An archive's AppleDouble sidecars by the member path of the item they describe. Each is taken
/// when its item is; what is left describes nothing the container holds.
struct ArchiveSidecars {
    typealias Found = (sidecar: [UInt8], sidecarPath: ContainerPath, marks: [AttributeMark], size: Int64)
    var byTarget: [ContainerPath: [Found]] = [:]

    static let mirror = Array(AppleDouble.mirrorFolder.utf8) + [UInt8(ascii: "/")]

    static func isSidecar(_ m: ArchiveWalk.Member) -> Bool {
        guard m.type == ArchiveWalk.FileType.reg, let data = m.data, AppleDouble.hasMagic(data) else { return false }
        let start = m.path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        return m.path.count - start > 2 && m.path[start...].starts(with: AppleDouble.sidecarPrefix)
    }

    /// The `__MACOSX/` component of `path` when it lies in a mirror: one at the archive root
    /// or in any folder down to the data root (`PREFIX/__MACOSX/REST` describes `PREFIX/REST`,
    /// as a mirror inside the folder does when the folder is read).
    static func mirror(holding path: [UInt8], prefix: [UInt8]) -> Range<Int>? {
        var start = 0
        while true {
            if path.count > start + mirror.count, path[..<start].elementsEqual(prefix[..<start]),
                path[start...].starts(with: mirror)
            {
                return start..<(start + mirror.count)
            }
            guard start < prefix.count, let slash = prefix[start...].firstIndex(of: UInt8(ascii: "/")) else {
                return nil
            }
            start = slash + 1
        }
    }

    /// `__MACOSX` itself and everything below it (at the archive root or in a folder down to
    /// the data root): never entries.
    /// `mirror(holding:)` of the path, or of the path with a component added (for `__MACOSX`
    /// itself), checked in place: this runs once per member, and a path copied for it was an
    /// allocation each.
    static func inMirror(_ path: [UInt8], prefix: [UInt8]) -> Bool {
        let name = mirror.dropLast()
        var start = 0
        while true {
            if path.count >= start + name.count, path[..<start].elementsEqual(prefix[..<start]) {
                let rest = path[start...]
                if rest.starts(with: mirror) || rest.elementsEqual(name) { return true }
            }
            guard start < prefix.count, let slash = prefix[start...].firstIndex(of: UInt8(ascii: "/")) else {
                return false
            }
            start = slash + 1
        }
    }

    /// The marks of the sidecars describing `path`, which they are then taken by.
    mutating func take(_ path: [UInt8]) -> [AttributeMark] {
        guard !byTarget.isEmpty, let found = byTarget.removeValue(forKey: ContainerPath(bytes: path)) else { return [] }
        return found.count == 1 ? found[0].marks : found.flatMap(\.marks)
    }

    /// The sidecars left over that describe nothing in the data root (those about members
    /// outside it, beside the container, are not the container's business).
    func orphans(below prefixBytes: [UInt8]) -> [SidecarOrphan] {
        var orphans: [SidecarOrphan] = []
        for (target, found) in byTarget {
            guard let rel = ArchiveWalk.relative(target.bytes, prefixBytes) else { continue }
            for s in found.sorted(by: { $0.sidecar.lexicographicallyPrecedes($1.sidecar) }) {
                orphans.append(SidecarOrphan(sidecar: s.sidecarPath, target: rel, marks: s.marks, size: s.size))
            }
        }
        return orphans
    }
}
