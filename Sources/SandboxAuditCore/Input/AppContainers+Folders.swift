import Foundation
import SandboxAuditSystem

extension AppContainers {
    /// The Containers folder of a Simulator device: `DEVICE/data/Containers`, given the
    /// device folder, its `data`, or that folder itself. Nil when `path` is none of these.
    /// The path is opened once (a symlink to it followed: the user named it); below it,
    /// nothing is reached through a symlink (`containersFolder(in:)`).
    /// With `search`, a folder that is none of these is searched for a device's `Containers`
    /// at any depth (a full-file-system extraction: `…/private/var/mobile/Containers`, under
    /// whatever prefix the tool that made it used): breadth first, never through a symlink, at
    /// most `searchDepth` levels and `searchFolders` folders listed (docs/limits.md).
    static func containersFolder(_ path: String, search: Bool = false) throws -> ContainersFolder? {
        var trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let top = try? FileDescriptor.currentDirectory.open(trimmed.utf8, .namedDirectory, keepAccessTime: true)
        else { return nil }
        let held = HeldDescriptor(top)
        // Reports name each container by an absolute path, as they do a folder given alone.
        if let real = Paths.real(trimmed.utf8) { trimmed = String(decoding: real, as: UTF8.self) }
        if let found = try containersFolder(in: held, path: trimmed, candidates: ["", "Containers", "data/Containers"])
        {
            return found
        }
        return search ? try searchContainers(in: held, path: trimmed) : nil
    }

    /// How deep and how wide the search for a device's `Containers` goes.
    static let searchDepth = 10, searchFolders = 10_000

    /// The first folder named `Containers` holding `Data/Application` or `Shared/AppGroup`,
    /// breadth first below `top`; nil when there is none within the bounds.
    static func searchContainers(in top: HeldDescriptor, path: String) throws -> ContainersFolder? {
        var level: [(relative: [[UInt8]], shown: String)] = [([], path)]
        var listed = 0
        for _ in 0..<searchDepth {
            var next: [(relative: [[UInt8]], shown: String)] = []
            for folder in level {
                guard listed < searchFolders else { return nil }
                listed += 1
                guard
                    let fd = folder.relative.isEmpty
                        ? try? top.descriptor.duplicate()
                        : try? top.descriptor.openDirectory(componentwise: folder.relative)
                else { continue }
                defer { fd.close() }
                guard let names = try? fd.names() else { continue }
                for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                    guard (try? fd.status(of: name))?.kind == .directory else { continue }
                    let shown = folder.shown + "/" + String(decoding: name, as: UTF8.self)
                    let relative = folder.relative + [name]
                    if name == Array("Containers".utf8), let held = try? fd.openDirectory(name) {
                        let candidate = HeldDescriptor(held)
                        if let found = try containersFolder(in: candidate, path: shown, candidates: [""]) {
                            return found
                        }
                    }
                    next.append((relative, shown))
                }
            }
            level = next
            if level.isEmpty { break }
        }
        return nil
    }

    /// The first of `candidates` (relative to the folder `top` at `path`) holding
    /// `Data/Application` or `Shared/AppGroup`, each component opened without following a
    /// symlink. Throws `InputError` when a candidate leads through a symlink: a device's folders
    /// are read only where they are (a symlink there could lead anywhere, a folder the device
    /// set's owner cannot read included).
    static func containersFolder(in top: HeldDescriptor, path: String, candidates: [String]) throws -> ContainersFolder?
    {
        func beneath(_ folder: HeldDescriptor, _ relative: String, _ shown: String) throws -> HeldDescriptor? {
            switch Result(catching: { () throws(Errno) in try folder.descriptor.openDirectory(beneath: relative) }) {
            case .success(let fd): return HeldDescriptor(fd)
            case .failure(let e) where [ELOOP, EXDEV, ENOTDIR].contains(e.code):
                if let link = symlink(on: relative, in: folder) { throw refusal(path + "/" + link) }
                return nil
            case .failure: return nil
            }
        }
        for candidate in candidates {
            let shown = candidate.isEmpty ? path : path + "/" + candidate
            guard let folder = candidate.isEmpty ? top : try beneath(top, candidate, shown) else { continue }
            for inner in ["Data/Application", "Shared/AppGroup"]
            where try beneath(folder, inner, shown + "/" + inner) != nil {
                return ContainersFolder(path: shown, held: folder)
            }
        }
        return nil
    }

    /// The first component of `relative` (below `folder`) that is a symlink, as a relative
    /// path; nil when none is (each component looked at without following one).
    static func symlink(on relative: String, in folder: HeldDescriptor) -> String? {
        let parts = relative.split(separator: "/").map { Array($0.utf8) }
        for i in parts.indices {
            let parent: FileDescriptor
            if i == 0 {
                parent = folder.descriptor
            } else {
                guard let opened = try? folder.descriptor.openDirectory(componentwise: Array(parts[..<i])) else {
                    return nil
                }
                parent = opened
            }
            defer { if i > 0 { parent.close() } }
            guard let st = try? parent.status(of: parts[i]) else { return nil }
            if st.kind == .symlink {
                return parts[...i].map { String(decoding: $0, as: UTF8.self) }.joined(separator: "/")
            }
            if st.kind != .directory { return nil }
        }
        return nil
    }

    /// The error for a device folder reached through a symlink.
    static func refusal(_ path: String) -> InputError {
        InputError(
            "\(TerminalText.escaped(path)) is a symbolic link: refused (the folders of a Simulator device are read "
                + "where they are, never through a symlink)"
        )
    }

    /// One container of a device folder: where it is, what its metadata says, and how to open
    /// it again (through the listing, identity checked: `Container.locate(listed:)`).
    struct Found {
        let path: String
        let identifier: String
        let listing: DeviceListing
        let containers: ContainersFolder
        /// How the identifier was found when the container has no metadata plist (the files
        /// that name it: `ContainerEvidence`); nil when its metadata plist names it.
        var evidence: String? = nil
    }
}
