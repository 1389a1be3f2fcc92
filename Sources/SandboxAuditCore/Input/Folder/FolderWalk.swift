import Foundation
import SandboxAuditSystem

/// Reads a container folder: the walk of its data root, with the attributes that `__MACOSX`
/// mirror trees (what unzipping a Finder archive leaves) hold for its entries, and those the
/// data root's own sidecars hold for it. The data root, and the mirror inside it, are read
/// through the descriptor held since the container was located (`Container.root`); outside the
/// data root only those sidecars and mirrors are read, and nothing is written.
enum FolderWalk {
    /// Walks `container`'s data root. Throws `InputError` when the root cannot be read.
    static func read(_ container: Container) throws -> WalkResult {
        var walker = Walker(root: container.dataRoot)
        walker.opened = container.root
        walker.skipAtTop = [Array(AppleDouble.mirrorFolder.utf8)]
        walker.headerLength = { zone, size in StoreSignature.headerLength(zone, size: size) }
        var walk: WalkResult
        do {
            walk = try walker.walk()
        } catch let e as SystemError {
            throw InputError("cannot read \(container.input): \(e.reason)")
        }
        let root = Array(container.dataRoot.utf8)
        // Sidecars beside nothing in the data root.
        var orphans = walk.unmatchedSidecars.map { target, sidecar in
            SidecarOrphan(
                sidecar: SidecarOrphans.sidecarPath(for: target), target: target, marks: sidecar.marks,
                size: sidecar.size)
        }
        // The data root's own sidecar beside it (`../._NAME`, as macOS tar or a copy to a
        // foreign volume leaves it).
        let (parent, name) = PathText.split(container.dataRoot)
        if !name.isEmpty, container.listedIn == nil {
            readRootSidecar(parent + "/._" + name, root: root, mirror: false, into: &walk)
        }

        // Sidecars in __MACOSX mirrors describe the entry at the same relative path; a mirror
        // beside the data root also holds the data root's own sidecar beside its folder.
        var mirrored: [ContainerPath: [(sidecar: ContainerPath, marks: [AttributeMark], size: Int64)]] = [:]
        for mirror in container.mirrorRoots {
            let inside = mirror.hasPrefix(container.dataRoot + "/")
            let label = inside ? String(mirror.dropFirst(container.dataRoot.count + 1)) : mirror
            if !inside {
                let (mirrorParent, mirrorName) = PathText.split(mirror)
                if !mirrorName.isEmpty {
                    readRootSidecar(mirrorParent + "/._" + mirrorName, root: root, mirror: true, into: &walk)
                }
            }
            var mirrorWalker = Walker(root: mirror)
            mirrorWalker.matchSidecars = false
            if inside, let root = container.root {
                guard let held = try? HeldDescriptor.directory(AppleDouble.mirrorFolder.utf8, in: root) else {
                    continue
                }
                mirrorWalker.opened = held
            } else if !Container.isDirectory(mirror) {
                continue
            }
            guard let found = try? mirrorWalker.walk() else { continue }
            walk.sidecarCount += found.sidecarCount
            let base = SidecarOrphans.relative(Array(mirror.utf8), toRoot: root)
            for (path, sidecar) in found.unmatchedSidecars {
                let name = SidecarOrphans.sidecarPath(for: path)
                let source = AttributeSource.macosxMirror(sidecar: label + "/" + name.display)
                mirrored[path, default: []].append(
                    (
                        base.appending(name.bytes),
                        sidecar.marks.map { AttributeMark(attribute: $0.attribute, value: $0.value, source: source) },
                        sidecar.size
                    ))
            }
            walk.problems += found.problems.map {
                WalkProblem(
                    path: ContainerPath(label).appending($0.path.bytes), operation: $0.operation, reason: $0.reason,
                    vanished: $0.vanished)
            }
        }
        if !mirrored.isEmpty {
            for i in walk.entries.indices {
                if let found = mirrored.removeValue(forKey: walk.entries.path(i)) {
                    for s in found { walk.entries.addMarks(s.marks, at: i) }
                }
            }
            for (target, found) in mirrored {
                for s in found {
                    orphans.append(SidecarOrphan(sidecar: s.sidecar, target: target, marks: s.marks, size: s.size))
                }
            }
        }
        SidecarOrphans.resolve(orphans, into: &walk)
        return walk
    }

    /// Reads the AppleDouble file at `path` (outside the data root) as the data root's own
    /// sidecar: its marks go to `rootMarks`. A missing file, or one that is not AppleDouble,
    /// is no sidecar; anything else that stops the read is a problem.
    private static func readRootSidecar(_ path: String, root: [UInt8], mirror: Bool, into walk: inout WalkResult) {
        let relative = SidecarOrphans.relative(Array(path.utf8), toRoot: root)
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.currentDirectory.readFile(path.utf8, limit: AppleDouble.maximumSize)
        } catch {
            // Missing, a symlink, or not a regular file: not a sidecar.
            if [ENOENT, ELOOP, EINVAL, ENOTDIR].contains(error.code) { return }
            walk.problems.append(WalkProblem(path: relative, operation: "read AppleDouble file", reason: error.reason))
            return
        }
        guard AppleDouble.hasMagic(bytes) else { return }
        walk.sidecarCount += 1
        do {
            let source: AttributeSource = mirror ? .macosxMirror(sidecar: path) : .appleDouble(sidecar: relative)
            walk.rootMarks += AttributeMark.marks(in: try AppleDouble.parse(bytes), source: source)
        } catch {
            walk.problems.append(WalkProblem(path: relative, operation: "parse AppleDouble file", reason: "\(error)"))
        }
    }
}
