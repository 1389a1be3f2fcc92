import Foundation

/// The container and the walk of its data root, from the members read.
extension ArchiveWalk {
    static func assemble(_ location: String, _ members: [Member], _ numbering: MemberNumbering, _ readProblems: [WalkProblem],
                         role: ContainerRole? = nil) throws -> (Container, WalkResult) {
        guard let prefixBytes = dataRootPrefix(members) ?? (role == .group ? groupRootPrefix(members) : nil) else {
            throw InputError("\(location) holds no app data container: no Documents, Library or tmp at its root, in a single top folder, or in NAME.xcappdata/AppData (for an App Group container, add --kind group)")
        }
        let prefix = String(decoding: prefixBytes, as: UTF8.self)
        let packagePrefix = prefix.hasSuffix("/AppData/") ? Array(prefixBytes.dropLast(appDataName.count + 1)) : prefixBytes

        // Identity, from the members that carry it.
        func plist(_ path: [UInt8]) -> [String: Any]? {
            guard let m = members.first(where: { $0.path == path }), let d = m.data else { return nil }
            return BoundedPlist.dictionary(d, maximumSize: Container.maximumIdentityPlistSize)
        }
        var kind = Container.Kind.directory
        var bundle: String?, version: String?, source: String?
        if prefix.hasSuffix("AppData/"), let info = plist(packagePrefix + Array(Container.appDataInfo.utf8)) {
            kind = .xcappdata
            (bundle, version) = Container.appDataInfoIdentity(info)
            source = Container.appDataInfo
        } else if prefix.hasSuffix("AppData/") {
            kind = .xcappdata
        } else if let meta = plist(prefixBytes + Array(Container.simulatorMetadata.utf8)) {
            kind = .simulator
            bundle = Container.metadataIdentity(meta)
            source = Container.simulatorMetadata
        }
        var chosen: (ContainerRole, String) = role.map { ($0, "option") } ?? (.app, "default")
        if role == nil, kind == .simulator, let meta = plist(prefixBytes + Array(Container.simulatorMetadata.utf8)),
           let r = Container.metadataRole(meta) {
            chosen = (r, meta["MCMMetadataContentClass"] != nil ? "metadata" : "identifier")
        }
        let container = Container(input: location, dataRoot: dataRoot(location, prefix: prefixBytes), kind: kind,
                                  role: chosen.0, roleSource: chosen.1, bundleIdentifier: bundle, version: version, identitySource: source)

        // Sidecars: `._NAME` beside NAME, and `__MACOSX/…/._NAME` mirrors, by the member path
        // of the item they describe. Each is taken when its item is; what is left describes
        // nothing the container holds.
        var result = WalkResult()
        result.problems = readProblems
        var sidecars: [ContainerPath: [(sidecar: [UInt8], sidecarPath: ContainerPath, marks: [AttributeMark], size: Int64)]] = [:]
        let mirror = Array(AppleDouble.mirrorFolder.utf8) + [UInt8(ascii: "/")]
        func isSidecar(_ m: Member) -> Bool {
            guard m.type == FileType.reg, let data = m.data, AppleDouble.hasMagic(data) else { return false }
            let start = m.path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            return m.path.count - start > 2 && m.path[start...].starts(with: AppleDouble.sidecarPrefix)
        }
        /// `__MACOSX` itself and everything below it: never entries.
        func inMirror(_ path: [UInt8]) -> Bool {
            path.starts(with: mirror) || (path.count == mirror.count - 1 && mirror.starts(with: path))
        }
        for m in members where isSidecar(m) {
            result.sidecarCount += 1
            var target = m.path
            let isMirrored = target.starts(with: mirror)
            if isMirrored { target.removeFirst(mirror.count) }
            let slash = target.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            target.removeSubrange(slash..<(slash + 2))
            let sidecarPath = SidecarOrphans.relative(m.path, toRoot: prefixBytes)
            var found: [AttributeMark] = []
            do {
                if let reason = m.sidecarError { throw InputError(reason) }
                let parsed = try AppleDouble.parse(m.data ?? [])
                let source: AttributeSource = isMirrored ? .macosxMirror(sidecar: ContainerPath(bytes: m.path).display) : .appleDouble(sidecar: sidecarPath)
                found = AttributeMark.marks(in: parsed, source: source)
            } catch {
                // Reported as unreadable, as the folder reading does, and not as an orphan.
                result.problems.append(WalkProblem(path: sidecarPath, operation: "parse AppleDouble file", reason: "\(error)"))
                continue
            }
            sidecars[ContainerPath(bytes: target), default: []].append((m.path, sidecarPath, found, m.size))
        }
        /// The marks of the sidecars describing `path`, which they are then taken by.
        func takeSidecars(_ path: [UInt8]) -> [AttributeMark] {
            guard !sidecars.isEmpty, let found = sidecars.removeValue(forKey: ContainerPath(bytes: path)) else { return [] }
            return found.count == 1 ? found[0].marks : found.flatMap(\.marks)
        }
        func marksOf(_ m: Member) -> [AttributeMark] { marks(m, takeSidecars(m.path)) }

        // Entries below the data root. A hard link names a member by path: its position, then
        // the entry made of it (only archives that hold hard links need that table).
        let hasHardLinks = members.contains { $0.hardlink != nil }
        var entryOfPosition: [Int: Int] = [:]
        var entries: [WalkEntry] = []
        entries.reserveCapacity(members.count)
        for (i, m) in members.enumerated() where !inMirror(m.path) && !isSidecar(m) {
            if m.path.count + 1 == prefixBytes.count, prefixBytes.starts(with: m.path) {
                result.rootMarks = marksOf(m)
                continue
            }
            guard let rel = relative(m.path, prefixBytes) else { continue }
            var entry = WalkEntry(path: rel, kind: .other, special: nil, size: m.size, allocated: 0, mode: m.mode,
                                  modifiedSeconds: m.mtime, modifiedNanoseconds: m.mtimeNanoseconds,
                                  device: 0, inode: UInt64(i + 1), linkCount: 1, symlinkTarget: nil, header: nil,
                                  marks: marksOf(m))
            if let target = m.hardlink {
                var t = target[...]
                while t.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) { t = t.dropFirst(2) }
                guard let position = numbering.position(of: ContainerPath(bytes: Array(t))), let original = entryOfPosition[position].map({ entries[$0] }) else {
                    result.problems.append(WalkProblem(path: rel, operation: "read archive entry", reason: "hard link to \(ByteText.display(target)), which the archive does not hold before it"))
                    continue
                }
                entry.kind = .file
                entry.size = original.size
                entry.inode = original.inode
                entry.header = original.header
                // Attributes belong to the file, not the path: GNU tar records them only on the
                // first path of a hard-linked file.
                if !entry.marks.contains(where: { if case .native = $0.source { return true } else { return false } }) {
                    entry.marks += original.marks.filter { if case .native = $0.source { return true } else { return false } }
                }
            } else {
                switch m.type {
                case FileType.reg:
                    entry.kind = .file
                    if hasHardLinks { entryOfPosition[i] = entries.count }
                    if StoreSignature.wantsHeader(rel, size: m.size) { entry.header = m.data }
                case FileType.dir: entry.kind = .directory; entry.size = 0
                case FileType.lnk: entry.kind = .symlink; entry.symlinkTarget = m.symlink; entry.size = Int64(m.symlink?.count ?? 0)
                case FileType.fifo: entry.special = .fifo
                case FileType.sock: entry.special = .socket
                case FileType.chr: entry.special = .characterDevice
                case FileType.blk: entry.special = .blockDevice
                default: break
                }
            }
            entries.append(entry)
        }
        // The data root's own sidecars, when the archive does not store its folder.
        if !prefixBytes.isEmpty { result.rootMarks += takeSidecars(Array(prefixBytes.dropLast())) }
        // Folders the archive only implies. Members of one folder usually come together, so
        // the last parent checked is remembered.
        var folders = Set<ContainerPath>()
        for e in entries where e.kind == .directory { folders.insert(e.path) }
        var lastChecked = ContainerPath.root
        for i in entries.indices {
            let e = entries[i]
            if e.path.isChild(of: lastChecked) { continue }
            var parent = e.path.parent ?? .root
            lastChecked = parent
            while !parent.isRoot, !folders.contains(parent) {
                folders.insert(parent)
                entries.append(WalkEntry(path: parent, kind: .directory, special: nil, size: 0, allocated: 0, mode: 0o755,
                                         modifiedSeconds: e.modifiedSeconds, modifiedNanoseconds: 0, device: 0, inode: 0,
                                         linkCount: 1, symlinkTarget: nil, header: nil,
                                         marks: takeSidecars(prefixBytes + parent.bytes)))
                guard let up = parent.parent else { break }
                parent = up
            }
        }
        // Hard links: every path of a file shares its inode and its count.
        if hasHardLinks {
            var counts: [UInt64: UInt64] = [:]
            for e in entries where e.kind == .file { counts[e.inode, default: 0] += 1 }
            for i in entries.indices where entries[i].kind == .file { entries[i].linkCount = counts[entries[i].inode] ?? 1 }
        }
        result.entries = entries
        // Sidecars left over describe nothing in the data root (those about members outside
        // it, beside the container, are not the container's business).
        var orphans: [SidecarOrphan] = []
        for (target, found) in sidecars {
            guard let rel = relative(target.bytes, prefixBytes) else { continue }
            for s in found.sorted(by: { $0.sidecar.lexicographicallyPrecedes($1.sidecar) }) {
                orphans.append(SidecarOrphan(sidecar: s.sidecarPath, target: rel, marks: s.marks, size: s.size))
            }
        }
        SidecarOrphans.resolve(orphans, into: &result)
        return (container, result)
    }
}
