import CLibArchive
import Foundation

/// Reads an app data container out of a tar or zip archive, as a stream: nothing is extracted,
/// and memory grows with the number of entries, not with the archive's size. The result is the
/// same `WalkResult` a directory walk gives, so everything after the walk is shared.
///
/// Attributes come from what libarchive decodes (pax `SCHILY.xattr.*` and
/// `LIBARCHIVE.xattr.*` records), from `._NAME` AppleDouble members (macOS tar) and from
/// `__MACOSX/` members (Finder zips, `ditto -c -k --sequesterRsrc`). The data root is the archive
/// root, a single top-level folder, or `NAME.xcappdata/AppData`.
public enum ArchiveWalk {
    public static let suffixes = [".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".zip"]

    public static func isArchive(_ path: String) -> Bool {
        let lower = path.lowercased()
        return suffixes.contains { lower.hasSuffix($0) }
    }

    /// libarchive's AE_IF* file types (cast macros, which Swift does not import).
    enum FileType {
        static let reg: UInt32 = 0o100000, dir: UInt32 = 0o040000, lnk: UInt32 = 0o120000, fifo: UInt32 = 0o010000
        static let sock: UInt32 = 0o140000, chr: UInt32 = 0o020000, blk: UInt32 = 0o060000
    }

    /// One archive member, as read.
    struct Member {
        var path: [UInt8]
        var type: UInt32
        var size: Int64
        var mode: UInt32
        var mtime: Int64
        var mtimeNanoseconds: Int32
        var symlink: [UInt8]?
        var hardlink: [UInt8]?
        var xattrs: [(String, [UInt8])]
        /// Small contents kept: sidecars, identity plists; the first bytes of other files.
        var data: [UInt8]?
    }

    /// The one place that calls libarchive.
    final class Reader {
        private let archive: OpaquePointer
        let location: String

        init(_ location: String) throws {
            guard let a = archive_read_new() else { throw InputError("cannot read \(location): out of memory") }
            archive = a
            self.location = location
            archive_read_support_filter_all(a)
            archive_read_support_format_tar(a)
            archive_read_support_format_gnutar(a)
            archive_read_support_format_zip(a)
            // On failure deinit frees the archive: it runs once every property is set.
            // tar's own record size: reading a member's first bytes then pulls in 10 kB, not 64.
            guard archive_read_open_filename(a, location, 10_240) == ARCHIVE_OK else {
                throw InputError("cannot read \(location) as a tar or zip archive: \(errorString)")
            }
        }

        deinit { archive_read_free(archive) }

        var errorString: String { archive_error_string(archive).map { String(cString: $0) } ?? "unknown error" }

        /// The next member's header, with up to `keep(path, size)` bytes of its data; nil at the
        /// end. Throws on a corrupt or truncated archive.
        func next(keep: ([UInt8], Int64) -> Int) throws -> Member? {
            var entry: OpaquePointer?
            let rc = archive_read_next_header(archive, &entry)
            if rc == ARCHIVE_EOF { return nil }
            guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN, let e = entry else {
                throw InputError("\(location) is damaged or truncated: \(errorString)")
            }
            func bytes(_ p: UnsafePointer<CChar>?) -> [UInt8]? {
                p.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) }
            }
            var member = Member(
                path: bytes(archive_entry_pathname(e)) ?? [], type: UInt32(archive_entry_filetype(e)),
                size: Int64(archive_entry_size(e)), mode: UInt32(archive_entry_perm(e)),
                mtime: Int64(archive_entry_mtime(e)), mtimeNanoseconds: Int32(archive_entry_mtime_nsec(e)),
                symlink: bytes(archive_entry_symlink(e)), hardlink: bytes(archive_entry_hardlink(e)),
                xattrs: [], data: nil)
            archive_entry_xattr_reset(e)
            var name: UnsafePointer<CChar>?
            var value: UnsafeRawPointer?
            var size = 0
            // bsdtar writes each attribute twice, LIBARCHIVE.xattr (base64, exact) first and
            // SCHILY.xattr second, and libarchive decodes both in that order: keep the first.
            while archive_entry_xattr_next(e, &name, &value, &size) == ARCHIVE_OK {
                guard let name else { continue }
                let key = String(cString: name)
                guard !member.xattrs.contains(where: { $0.0 == key }) else { continue }
                let v = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) } ?? []
                member.xattrs.append((key, v))
            }
            let wanted = member.type == FileType.reg ? keep(member.path, member.size) : 0
            if wanted > 0 {
                var buffer = [UInt8](repeating: 0, count: wanted)
                var got = 0
                while got < wanted {
                    let n = buffer[got...].withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                    if n < 0 { throw InputError("\(location) is damaged or truncated: \(errorString)") }
                    if n == 0 { break }
                    got += n
                }
                member.data = Array(buffer[0..<got])
            }
            return member
        }

        /// Streams the current member's data (what `next` has not consumed already) as blocks
        /// with their offsets in the file; sparse members skip their holes. Throws on a corrupt
        /// or truncated archive.
        func readData(_ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
            var buffer: UnsafeRawPointer?
            var size = 0
            var offset: la_int64_t = 0
            while true {
                let rc = archive_read_data_block(archive, &buffer, &size, &offset)
                if rc == ARCHIVE_EOF { return }
                guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN else {
                    throw InputError("\(location) is damaged or truncated: \(errorString)")
                }
                if size > 0 { try body(UnsafeRawBufferPointer(start: buffer, count: size), Int64(offset)) }
            }
        }
    }

    /// What a member's stored path means.
    enum MemberPath: Equatable {
        /// The archive's own root (`.`, `./`, empty): nothing to record.
        case root
        /// An absolute path or one with a `..` component: refused.
        case unsafe
        /// Relative to the archive root, without `./` in front or `/` behind.
        case path([UInt8])
    }

    /// The one reading of a stored path, shared by the scan and by materialising.
    static func normalise(_ raw: [UInt8]) -> MemberPath {
        var p = raw[...]
        while p.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) { p = p.dropFirst(2) }
        while p.last == UInt8(ascii: "/") { p = p.dropLast() }
        if p.first == UInt8(ascii: "/") || hasDotDot(p) { return .unsafe }
        if p.isEmpty || p.elementsEqual([UInt8(ascii: ".")]) { return .root }
        return .path(Array(p))
    }

    /// True when a `..` component appears (without splitting the path).
    static func hasDotDot(_ p: ArraySlice<UInt8>) -> Bool {
        var start = p.startIndex
        while start < p.endIndex {
            let end = p[start...].firstIndex(of: UInt8(ascii: "/")) ?? p.endIndex
            if end - start == 2, p[start] == UInt8(ascii: "."), p[start + 1] == UInt8(ascii: ".") { return true }
            start = end + 1
        }
        return false
    }

    /// Whether a member may lie in Library/Caches or tmp under any data root the archive can
    /// have (the root, one folder down, or NAME.xcappdata/AppData): only those files' first
    /// bytes are read, so the rest of the data is skipped, not read.
    static func mayBePurgeable(_ path: [UInt8]) -> Bool {
        let c = path.split(separator: UInt8(ascii: "/"), maxSplits: 4, omittingEmptySubsequences: true).prefix(4).map { Array($0) }
        let library = Array("Library".utf8), caches = Array("Caches".utf8), tmp = Array("tmp".utf8)
        for i in 0..<min(3, c.count) {
            if c[i] == tmp && i + 1 < c.count { return true }
            if c[i] == library && i + 1 < c.count && c[i + 1] == caches { return true }
        }
        return false
    }

    static let identityNames: Set<[UInt8]> = [Array(Container.simulatorMetadata.utf8), Array(Container.appDataInfo.utf8)]

    /// Reads the archive and returns the container and the walk of its data root.
    public static func read(_ location: String) throws -> (Container, WalkResult) {
        let reader = try Reader(location)
        var members: [Member] = []
        var index: [[UInt8]: Int] = [:]
        var problems: [WalkProblem] = []
        let headerLength = VolatileStore.headerLength
        while let m = try reader.next(keep: { path, size in
            let name = path[(path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0)...]
            if name.starts(with: AppleDouble.sidecarPrefix) || identityNames.contains(Array(name)) { return Int(min(size, Int64(AppleDouble.maximumSize))) }
            return VolatileStore.mayBeDatabase(size: size) && mayBePurgeable(path) ? headerLength : 0
        }) {
            var m = m
            let p: [UInt8]
            switch normalise(m.path) {
            case .root: continue
            case .unsafe:
                problems.append(WalkProblem(path: ContainerPath(bytes: m.path), operation: "read archive entry", reason: "absolute path or '..' in the archive: skipped"))
                continue
            case .path(let normal): p = normal
            }
            let shown = ContainerPath(bytes: p)
            m.path = p
            if let existing = index[p] {
                problems.append(WalkProblem(path: shown, operation: "read archive entry", reason: "the archive holds this path twice: the later one counts"))
                members[existing] = m
            } else {
                index[p] = members.count
                members.append(m)
            }
        }
        return try assemble(location, members, problems)
    }

    static func assemble(_ location: String, _ members: [Member], _ readProblems: [WalkProblem]) throws -> (Container, WalkResult) {
        // Where the data root is.
        // Every folder a member implies, down to the depth a data root can have.
        var folders = Set<[UInt8]>()
        for m in members {
            var end = 0, depth = 0
            while depth < 4, let slash = m.path[end...].firstIndex(of: UInt8(ascii: "/")) {
                folders.insert(Array(m.path[..<slash]))
                end = slash + 1
                depth += 1
            }
            if m.type == FileType.dir { folders.insert(m.path) }
        }
        func has(_ prefix: String) -> Bool {
            ["Documents", "Library", "tmp"].contains { folders.contains(Array((prefix + $0).utf8)) }
        }
        var candidates = [""]
        let tops = Set(members.compactMap { $0.path.split(separator: UInt8(ascii: "/")).first.map(Array.init) })
            .filter { !$0.elementsEqual(AppleDouble.mirrorFolder.utf8) && !$0.starts(with: AppleDouble.sidecarPrefix) }
        for top in tops.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let t = String(decoding: top, as: UTF8.self)
            candidates += [t + "/", t + "/AppData/"]
        }
        candidates.append("AppData/")
        guard let prefix = candidates.first(where: has) else {
            throw InputError("\(location) holds no app data container: no Documents, Library or tmp at its root, in a single top folder, or in NAME.xcappdata/AppData")
        }
        let prefixBytes = Array(prefix.utf8)
        let packagePrefix = prefix.hasSuffix("/AppData/") ? Array(prefix.dropLast("AppData/".count).utf8) : prefixBytes

        // Identity, from the members that carry it.
        func plist(_ path: [UInt8]) -> [String: Any]? {
            guard let m = members.first(where: { $0.path == path }), let d = m.data else { return nil }
            return (try? PropertyListSerialization.propertyList(from: Data(d), options: [], format: nil)) as? [String: Any]
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
        let container = Container(input: location, dataRoot: location + (prefix.isEmpty ? "" : "!/" + String(prefix.dropLast())),
                                  kind: kind, bundleIdentifier: bundle, version: version, identitySource: source)

        // Sidecars: `._NAME` beside NAME, and `__MACOSX/…/._NAME` mirrors.
        var result = WalkResult()
        result.problems = readProblems
        var sidecarMarks: [[UInt8]: [AttributeMark]] = [:]
        let mirror = Array(AppleDouble.mirrorFolder.utf8) + [UInt8(ascii: "/")]
        func isSidecar(_ m: Member) -> Bool {
            guard m.type == FileType.reg, let data = m.data, AppleDouble.hasMagic(data) else { return false }
            let start = m.path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            return m.path.count - start > 2 && m.path[start...].starts(with: AppleDouble.sidecarPrefix)
        }
        for m in members where isSidecar(m) {
            result.sidecarCount += 1
            var target = m.path
            let inMirror = target.starts(with: mirror)
            if inMirror { target.removeFirst(mirror.count) }
            let slash = target.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            target.removeSubrange(slash..<(slash + 2))
            let sidecarPath = ContainerPath(bytes: m.path)
            do {
                let parsed = try AppleDouble.parse(m.data ?? [])
                for a in parsed.attributes {
                    guard let attribute = BackupAttribute(attributeName: Array(a.name.utf8)) else { continue }
                    let source: AttributeSource = inMirror ? .macosxMirror(sidecar: sidecarPath.display) : .appleDouble(sidecar: relative(sidecarPath.bytes, prefixBytes) ?? sidecarPath)
                    sidecarMarks[target, default: []].append(AttributeMark(attribute: attribute, value: a.value, source: source))
                }
            } catch {
                result.problems.append(WalkProblem(path: relative(m.path, prefixBytes) ?? sidecarPath, operation: "parse AppleDouble file", reason: "\(error)"))
            }
        }

        // Entries below the data root; folders the archive only implies are added.
        var inodes: [[UInt8]: UInt64] = [:]
        var fileByInode: [UInt64: Int] = [:]
        var seenFolders = Set<[UInt8]>()
        var entries: [WalkEntry] = []
        for (i, m) in members.enumerated() where !isSidecar(m) && !m.path.starts(with: mirror) {
            if m.path + [UInt8(ascii: "/")] == prefixBytes {
                result.rootMarks = marks(m, sidecarMarks[m.path] ?? [])
                continue
            }
            guard let rel = relative(m.path, prefixBytes) else { continue }
            var entry = WalkEntry(path: rel, kind: .other, special: nil, size: m.size, allocated: 0, mode: m.mode,
                                  modifiedSeconds: m.mtime, modifiedNanoseconds: m.mtimeNanoseconds,
                                  device: 0, inode: UInt64(i + 1), linkCount: 1, symlinkTarget: nil, header: nil,
                                  marks: marks(m, sidecarMarks[m.path] ?? []))
            if let target = m.hardlink {
                var t = target
                while t.starts(with: [UInt8(ascii: "."), UInt8(ascii: "/")]) { t.removeFirst(2) }
                guard let inode = inodes[t], let original = fileByInode[inode].map({ entries[$0] }) else {
                    result.problems.append(WalkProblem(path: rel, operation: "read archive entry", reason: "hard link to \(ByteText.display(target)), which the archive does not hold before it"))
                    continue
                }
                entry.kind = .file
                entry.size = original.size
                entry.inode = inode
                entry.header = original.header
            } else {
                switch m.type {
                case FileType.reg:
                    entry.kind = .file
                    inodes[m.path] = entry.inode
                    fileByInode[entry.inode] = entries.count
                    if VolatileStore.wantsHeader(rel, size: m.size) { entry.header = m.data }
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
            if entry.kind == .directory { seenFolders.insert(rel.bytes) }
        }
        for e in entries {
            var parent = e.path.parent
            while let p = parent, !p.isRoot, !seenFolders.contains(p.bytes) {
                seenFolders.insert(p.bytes)
                entries.append(WalkEntry(path: p, kind: .directory, special: nil, size: 0, allocated: 0, mode: 0o755,
                                         modifiedSeconds: e.modifiedSeconds, modifiedNanoseconds: 0, device: 0, inode: 0,
                                         linkCount: 1, symlinkTarget: nil, header: nil, marks: sidecarMarks[prefixBytes + p.bytes] ?? []))
                parent = p.parent
            }
        }
        // Hard links: every path of a file shares its inode and its count.
        var counts: [UInt64: UInt64] = [:]
        for e in entries where e.kind == .file { counts[e.inode, default: 0] += 1 }
        for i in entries.indices where entries[i].kind == .file { entries[i].linkCount = counts[entries[i].inode] ?? 1 }
        result.entries = entries
        return (container, result)
    }

    /// `path` below `prefix`, or nil.
    static func relative(_ path: [UInt8], _ prefix: [UInt8]) -> ContainerPath? {
        guard path.count > prefix.count, path.starts(with: prefix) else { return prefix.isEmpty && !path.isEmpty ? ContainerPath(bytes: path) : nil }
        return ContainerPath(bytes: Array(path[prefix.count...]))
    }

    /// The backup attributes among a member's extended attributes (either spelling), plus its
    /// sidecar's.
    static func marks(_ m: Member, _ sidecar: [AttributeMark]) -> [AttributeMark] {
        m.xattrs.compactMap { name, value in
            BackupAttribute(attributeName: Array(name.utf8)).map { AttributeMark(attribute: $0, value: value, source: .native(name: name)) }
        } + sidecar
    }
}
