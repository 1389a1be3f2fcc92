import Foundation

/// Reads a container folder: the walk of its data root, with the attributes that `__MACOSX`
/// mirror trees (what unzipping a Finder archive leaves) hold for its entries.
public enum FolderWalk {
    /// Walks `container`'s data root. Throws `InputError` when the root cannot be read.
    public static func read(_ container: Container) throws -> WalkResult {
        var walker = Walker(root: container.dataRoot)
        walker.skipAtTop = [Array(AppleDouble.mirrorFolder.utf8)]
        walker.headerLength = { path, size in VolatileStore.wantsHeader(path, size: size) ? VolatileStore.headerLength : 0 }
        var walk: WalkResult
        do {
            walk = try walker.walk()
        } catch let e as SystemError {
            throw InputError("cannot read \(container.input): \(e.reason)")
        }
        // Sidecars in __MACOSX mirrors describe the entry at the same relative path.
        var mirrored: [ContainerPath: [AttributeMark]] = [:]
        for mirror in container.mirrorRoots {
            var mirrorWalker = Walker(root: mirror)
            mirrorWalker.matchSidecars = false
            guard let found = try? mirrorWalker.walk() else { continue }
            walk.sidecarCount += found.sidecarCount
            let label = mirror.hasPrefix(container.dataRoot + "/") ? String(mirror.dropFirst(container.dataRoot.count + 1)) : mirror
            for (path, marks) in found.unmatchedSidecars {
                let sidecar = label + "/" + Self.sidecarName(for: path)
                mirrored[path, default: []] += marks.map { AttributeMark(attribute: $0.attribute, value: $0.value, source: .macosxMirror(sidecar: sidecar)) }
            }
            walk.problems += found.problems.map {
                WalkProblem(path: ContainerPath(label).appending($0.path.bytes), operation: $0.operation, reason: $0.reason, vanished: $0.vanished)
            }
        }
        if !mirrored.isEmpty {
            for i in walk.entries.indices {
                if let marks = mirrored[walk.entries[i].path] { walk.entries[i].marks += marks }
            }
        }
        return walk
    }

    private static func sidecarName(for path: ContainerPath) -> String {
        let parent = path.parent.map { $0.isRoot ? "" : $0.display + "/" } ?? ""
        return parent + "._" + ByteText.display(path.name)
    }
}
