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

    /// A path the archive stores as a file, symlink or special file, with members below it (as
    /// if it were a folder too): one of the two cannot be extracted, and counting both would count
    /// the path twice. The stored entry is kept; every member below it is left out, with one
    /// problem per such path naming it (the scan is then incomplete), so the scan, the inventory,
    /// `simulate --into` (which writes only inventory entries) and the ncdu export all hold the
    /// one entry. Each folder is checked once, and the folders checked are bounded as the
    /// implied folders are (`maximumPathBytes`).
    private static func leaveOutShadowed(_ entries: inout [WalkEntry], problems: inout [WalkProblem]) {
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
    private static func addImpliedFolders(
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

    /// Hard links: every path of a file shares its inode and its count.
    private static func shareLinkCounts(_ entries: inout [WalkEntry]) {
        var counts: [UInt64: UInt64] = [:]
        for e in entries where e.kind == .file { counts[e.inode, default: 0] += 1 }
        for i in entries.indices where entries[i].kind == .file { entries[i].linkCount = counts[entries[i].inode] ?? 1 }
    }
}

/// An archive's AppleDouble sidecars by the member path of the item they describe. Each is taken
/// when its item is; what is left describes nothing the container holds.
private struct ArchiveSidecars {
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

/// A device's `Containers` folder inside an archive (a zipped file-system extraction, a copy of
/// a Simulator device): an archive is read as one container, so the run names what it holds
/// and how to read it, rather than finding no container.
struct DeviceContainersInArchive: CustomStringConvertible {
    /// Where the first `Containers` folder is, and how many containers of each kind it holds.
    let folder: String
    let data: Int, groups: Int, plugins: Int

    init?(_ members: [ArchiveReader.Member]) {
        let kinds: [(inner: [[UInt8]], index: Int)] = [
            (["Data", "Application"].map { Array($0.utf8) }, 0),
            (["Shared", "AppGroup"].map { Array($0.utf8) }, 1),
            (["Data", "PluginKitPlugin"].map { Array($0.utf8) }, 2),
        ]
        let containers = Array("Containers".utf8)
        var found: [Set<[UInt8]>] = [[], [], []]
        var folder: [UInt8]?
        for m in members {
            let parts = m.path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
            guard parts.count >= 4 else { continue }
            for k in 0..<(parts.count - 3) where parts[k].elementsEqual(containers) {
                guard
                    let kind = kinds.first(where: {
                        parts[k + 1].elementsEqual($0.inner[0]) && parts[k + 2].elementsEqual($0.inner[1])
                    })
                else { continue }
                let top = Array(parts[0...k].joined(separator: [UInt8(ascii: "/")]))
                if folder == nil { folder = top }
                guard top == folder else { continue }
                found[kind.index].insert(Array(parts[k + 3]))
            }
        }
        guard let folder, found.contains(where: { !$0.isEmpty }) else { return nil }
        self.folder = ByteText.display(folder)
        (data, groups, plugins) = (found[0].count, found[1].count, found[2].count)
    }

    var description: String {
        func count(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
        return
            "holds a device's Containers folder (\(folder): \(count(data, "app data container")), "
            + "\(count(groups, "App Group container")), "
            + "\(count(plugins, "extension container"))), and an archive is read as one container: unpack it, "
            + "keeping extended attributes, "
            + "and give the folder (sandbox-audit apps FOLDER lists its apps; scan FOLDER --app ID audits one)"
    }
}
