import Foundation
import SandboxAuditSystem

/// The container and the walk of its data root, from the members read.
extension ArchiveWalk {
    /// `dataRoot`, `early`: the data root found (`dataRootPrefix`) and the entries made as the
    /// members were read (`ArchiveWalk.read`); the entries are taken out of `early` when they
    /// are the ones `memberEntries` makes.
    static func assemble(
        _ location: String, _ members: [Member], _ numbering: MemberNumbering, _ readProblems: [WalkProblem],
        rootMember: Member?, role: ContainerRole?,
        dataRoot: [UInt8]?, early: inout EarlyEntries
    ) throws -> (Container, WalkResult) {
        guard let prefixBytes = dataRoot ?? (role == .group ? groupRootPrefix(members) : nil) else {
            if let device = DeviceContainersInArchive(members) { throw InputError("\(location) \(device.description)") }
            throw InputError(
                "\(location) holds no app data container: no Documents, Library or tmp at its root, in a single top "
                    + "folder, or in NAME.xcappdata/AppData (for an App Group container, add --kind group)"
            )
        }
        let container = identify(location, members, prefix: prefixBytes, role: role)
        var result = WalkResult()
        result.problems = readProblems
        var sidecars = readSidecars(members, prefix: prefixBytes, into: &result)
        // The archive root's `./` member is the data root when the archive was made inside it.
        if prefixBytes.isEmpty, let root = rootMember { result.rootMarks = marks(root, []) }
        let hasHardLinks = members.contains { $0.hardlink != nil }
        let madeEarly = early.holds(prefix: prefixBytes, members: members.count)
        if madeEarly, let marks = early.rootMarks { result.rootMarks = marks }
        // Taken out (not copied): the entries are changed below, and a second holder would
        // make that a copy of them all.
        var entries =
            madeEarly
            ? early.takeEntries()
            : memberEntries(
                members, numbering, prefix: prefixBytes, hasHardLinks: hasHardLinks, sidecars: &sidecars, into: &result)
        // The data root's own sidecars, when the archive does not store its folder.
        if !prefixBytes.isEmpty { result.rootMarks += sidecars.take(Array(prefixBytes.dropLast())) }
        leaveOutShadowed(&entries, problems: &result.problems)
        addImpliedFolders(&entries, prefix: prefixBytes, sidecars: &sidecars, problems: &result.problems)
        if hasHardLinks { shareLinkCounts(&entries) }
        result.entries = WalkEntries(entries)
        SidecarOrphans.resolve(sidecars.orphans(below: prefixBytes), into: &result)
        return (container, result)
    }

    /// The container's kind, identity and role, from the members that carry them (the package's
    /// AppDataInfo.plist, the Simulator's metadata plist).
    private static func identify(
        _ location: String, _ members: [Member], prefix prefixBytes: [UInt8], role: ContainerRole?
    ) -> Container {
        let prefix = String(decoding: prefixBytes, as: UTF8.self)
        let packagePrefix =
            prefix.hasSuffix("/AppData/") ? Array(prefixBytes.dropLast(appDataName.count + 1)) : prefixBytes
        func plist(_ path: [UInt8]) -> [String: Any]? {
            guard let m = members.first(where: { $0.path == path }), let d = m.data else { return nil }
            return BoundedPlist.dictionary(d, maximumSize: Container.maximumIdentityPlistSize)
        }
        var kind = Container.Kind.directory
        var bundle: String?
        var version: String?
        var source: String?
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
            let r = Container.metadataRole(meta)
        {
            chosen = (r, meta["MCMMetadataContentClass"] != nil ? "metadata" : "identifier")
        }
        return Container(
            input: location, dataRoot: dataRoot(location, prefix: prefixBytes), kind: kind,
            role: chosen.0, roleSource: chosen.1, bundleIdentifier: bundle, version: version, identitySource: source,
            source: ArchiveInput.self)
    }

    /// Sidecars: `._NAME` beside NAME, and `__MACOSX/…/._NAME` mirrors, by the member path of
    /// the item they describe. One that does not parse is reported as unreadable, as the folder
    /// reading does, and not as an orphan.
    private static func readSidecars(_ members: [Member], prefix prefixBytes: [UInt8], into result: inout WalkResult)
        -> ArchiveSidecars
    {
        var sidecars = ArchiveSidecars()
        for m in members where ArchiveSidecars.isSidecar(m) {
            result.sidecarCount += 1
            var target = m.path
            let mirror = ArchiveSidecars.mirror(holding: target, prefix: prefixBytes)
            let isMirrored = mirror != nil
            if let mirror { target.removeSubrange(mirror) }
            let slash = target.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            target.removeSubrange(slash..<(slash + 2))
            let sidecarPath = SidecarOrphans.relative(m.path, toRoot: prefixBytes)
            var found: [AttributeMark] = []
            do {
                if let reason = m.sidecarError { throw InputError(reason) }
                let parsed = try AppleDouble.parse(m.data ?? [])
                let source: AttributeSource =
                    isMirrored
                    ? .macosxMirror(sidecar: ContainerPath(bytes: m.path).display) : .appleDouble(sidecar: sidecarPath)
                found = AttributeMark.marks(in: parsed, source: source)
            } catch {
                result.problems.append(
                    WalkProblem(path: sidecarPath, operation: "parse AppleDouble file", reason: "\(error)"))
                continue
            }
            sidecars.byTarget[ContainerPath(bytes: target), default: []].append((m.path, sidecarPath, found, m.size))
        }
        return sidecars
    }

    /// An entry for each member below the data root (the root member gives the root's marks).
    /// A hard link names a member by path: its position, then the entry made of it (only
    /// archives that hold hard links need that table).
    private static func memberEntries(
        _ members: [Member], _ numbering: MemberNumbering, prefix prefixBytes: [UInt8], hasHardLinks: Bool,
        sidecars: inout ArchiveSidecars, into result: inout WalkResult
    ) -> [WalkEntry] {
        var entryOfPosition: [Int: Int] = [:]
        var entries: [WalkEntry] = []
        entries.reserveCapacity(members.count)
        for i in members.indices
        where !ArchiveSidecars.inMirror(members[i].path, prefix: prefixBytes) && !ArchiveSidecars.isSidecar(members[i])
        {
            let m = members[i]
            let rel: ContainerPath
            switch placement(m.path, prefix: prefixBytes) {
            case .dataRoot:
                result.rootMarks = marks(m, sidecars.take(m.path))
                continue
            case .outside: continue
            case .below(let path): rel = path
            }
            var entry = newEntry(m, index: i, path: rel, marks: marks(m, sidecars.take(m.path)))
            if let target = m.hardlink {
                var t = target[...]
                while t.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) { t = t.dropFirst(2) }
                guard let position = numbering.position(of: ContainerPath(bytes: Array(t))),
                    let original = entryOfPosition[position].map({ entries[$0] })
                else {
                    result.problems.append(
                        WalkProblem(
                            path: rel, operation: "read archive entry",
                            reason:
                                "hard link to \(ByteText.display(target)), which the archive does not hold before it"))
                    continue
                }
                linkEntry(&entry, to: original)
            } else {
                if m.type == FileType.reg, hasHardLinks { entryOfPosition[i] = entries.count }
                setKind(&entry, of: m, path: rel)
            }
            entries.append(entry)
        }
        return entries
    }

    /// Where a member lies: it is the data root's own folder, it is below it (its path there),
    /// or neither.
    private enum Placement {
        case dataRoot
        case below(ContainerPath)
        case outside
    }

    private static func placement(_ path: [UInt8], prefix prefixBytes: [UInt8]) -> Placement {
        if path.count + 1 == prefixBytes.count, prefixBytes.starts(with: path) { return .dataRoot }
        return relative(path, prefixBytes).map { .below($0) } ?? .outside
    }

    /// Member `i`'s entry at `rel`, before its kind is set (`setKind`) or its hard link followed
    /// (`linkEntry`).
    private static func newEntry(_ m: Member, index i: Int, path rel: ContainerPath, marks: [AttributeMark])
        -> WalkEntry
    {
        WalkEntry(
            path: rel, kind: .other, special: nil, size: m.size, allocated: 0, mode: m.mode,
            modifiedSeconds: m.mtime, modifiedNanoseconds: m.mtimeNanoseconds,
            device: 0, inode: UInt64(i + 1), linkCount: 1, symlinkTarget: nil, header: nil, marks: marks)
    }

    /// The entries `memberEntries` makes, made as the archive is read (`ArchiveWalk.read` calls
    /// `add` after each member it keeps), on the thread that otherwise waits for libarchive,
    /// below the data root found so far. They are `memberEntries`' own when that root is the final
    /// one and no member needed what only the whole archive tells: no path stored twice (the
    /// later member takes the first one's place), no hard link (it names a member by path), no
    /// AppleDouble sidecar (its marks go to an item that may come before it). Otherwise they are
    /// dropped, and the entries are made after the reading, as always.
    struct EarlyEntries {
        fileprivate var entries: [WalkEntry] = []
        /// The marks of the data root's own folder, when a member is that folder.
        fileprivate var rootMarks: [AttributeMark]?
        /// The data root the entries are below; nil until one is found.
        fileprivate var prefix: [UInt8]?
        /// The members made into entries so far: `members[..<done]`.
        fileprivate var done = 0
        fileprivate var abandoned = false

        init(expected: Int) { entries.reserveCapacity(expected) }

        /// Something only the whole archive tells decides the entries: none are made here.
        mutating func abandon() {
            abandoned = true
            entries = []
        }

        /// The entries of `members[done...]`, below `current` (the data root found so far; nil
        /// while none is). A root other than the one the entries were made below abandons them.
        mutating func add(_ members: [Member], prefix current: [UInt8]?) {
            guard !abandoned, let current else { return }
            if let made = prefix {
                guard made == current else { return abandon() }
            } else {
                prefix = current
            }
            while done < members.count {
                let m = members[done]
                guard m.hardlink == nil, !ArchiveSidecars.isSidecar(m) else { return abandon() }
                if !ArchiveSidecars.inMirror(m.path, prefix: current) {
                    switch ArchiveWalk.placement(m.path, prefix: current) {
                    case .dataRoot: rootMarks = ArchiveWalk.marks(m, [])
                    case .outside: break
                    case .below(let rel):
                        var entry = ArchiveWalk.newEntry(m, index: done, path: rel, marks: ArchiveWalk.marks(m, []))
                        ArchiveWalk.setKind(&entry, of: m, path: rel)
                        entries.append(entry)
                    }
                }
                done += 1
            }
        }

        /// Whether the entries are `memberEntries`' for the data root `final` and `count` members.
        fileprivate func holds(prefix final: [UInt8], members count: Int) -> Bool {
            !abandoned && prefix == final && done == count
        }

        /// The entries, moved out.
        fileprivate mutating func takeEntries() -> [WalkEntry] {
            defer { entries = [] }
            return entries
        }
    }

    /// A hard link's entry: the file of the member it names, whose attributes it shares.
    private static func linkEntry(_ entry: inout WalkEntry, to original: WalkEntry) {
        entry.kind = .file
        entry.size = original.size
        entry.inode = original.inode
        entry.header = original.header
        // Attributes belong to the file, not the path: GNU tar records them only on the
        // first path of a hard-linked file.
        if !entry.marks.contains(where: { if case .native = $0.source { return true } else { return false } }) {
            entry.marks += original.marks.filter { if case .native = $0.source { return true } else { return false } }
        }
    }

    /// The entry's kind (and what goes with it) from the member's type.
    private static func setKind(_ entry: inout WalkEntry, of m: Member, path rel: ContainerPath) {
        switch m.type {
        case FileType.reg:
            entry.kind = .file
            if StoreSignature.wantsHeader(rel, size: m.size) { entry.header = m.data }
        case FileType.dir:
            entry.kind = .directory
            entry.size = 0
        case FileType.lnk:
            entry.kind = .symlink
            entry.symlinkTarget = m.symlink
            entry.size = Int64(m.symlink?.count ?? 0)
        case FileType.fifo: entry.special = .fifo
        case FileType.sock: entry.special = .socket
        case FileType.chr: entry.special = .characterDevice
        case FileType.blk: entry.special = .blockDevice
        default: break
        }
    }

    /// Hard links: every path of a file shares its inode and its count.
    private static func shareLinkCounts(_ entries: inout [WalkEntry]) {
        var counts: [UInt64: UInt64] = [:]
        for e in entries where e.kind == .file { counts[e.inode, default: 0] += 1 }
        for i in entries.indices where entries[i].kind == .file { entries[i].linkCount = counts[entries[i].inode] ?? 1 }
    }
}
