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

    /// The kinds of archive named in messages.
    public static let kindsText = "tar, tar.gz/tgz, tar.xz/txz, tar.bz2, tar.zst or zip"

    /// Whether `header` (a file's first bytes, 262 or more for tar) starts as an archive does:
    /// gzip, xz, bzip2 or zstd compression (of a tar, presumably), a zip, or a POSIX tar.
    public static func hasArchiveSignature(_ header: [UInt8]) -> Bool {
        let signatures: [[UInt8]] = [
            [0x1F, 0x8B],                               // gzip
            [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00],       // xz
            [0x50, 0x4B, 0x03, 0x04],                   // zip (local file header)
            [0x50, 0x4B, 0x05, 0x06],                   // zip (empty archive)
            [0x42, 0x5A, 0x68],                         // bzip2 "BZh"
            [0x28, 0xB5, 0x2F, 0xFD],                   // zstd
        ]
        if signatures.contains(where: { header.starts(with: $0) }) { return true }
        return header.count >= 262 && header[257..<262].elementsEqual("ustar".utf8)
    }

    /// How many leading bytes `hasArchiveSignature` looks at.
    public static let signatureLength = 512

    /// Whether `input` is read as an archive: a regular file (not through a symlink) whose name
    /// ends as an archive's does or, whatever its name, whose first bytes are an archive's.
    public static func isArchiveInput(_ input: String) -> Bool {
        guard Container.fileExists(input) else { return false }
        if isArchive(input) { return true }
        guard let header = try? FileDescriptor.currentDirectory.readFile(input.utf8, limit: signatureLength) else { return false }
        return hasArchiveSignature(header)
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
        /// Why a sidecar member could not be parsed (its data is then dropped).
        var sidecarError: String?
    }

    /// A sidecar member is reduced as soon as it is read to its backup attributes (rebuilt as
    /// a small AppleDouble file), or to its parse error: however many the archive holds, each
    /// costs memory for what it says, not for its size.
    static func compactSidecar(_ m: inout Member) {
        guard m.type == FileType.reg, let data = m.data, AppleDouble.hasMagic(data) else { return }
        let start = m.path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        guard m.path.count - start > 2, m.path[start...].starts(with: AppleDouble.sidecarPrefix) else { return }
        do {
            let parsed = try AppleDouble.parse(data)
            let kept = parsed.attributes.filter { BackupAttribute(attributeName: Array($0.name.utf8)) != nil }
            m.data = AppleDouble.build(AppleDouble.Parsed(attributes: kept))
        } catch {
            m.sidecarError = "\(error)"
            m.data = Array(data.prefix(4))
        }
    }

    /// The one place that calls libarchive.
    final class Reader {
        private let archive: OpaquePointer
        private let source: Source
        let location: String

        /// Per-value and per-member limits on pax attribute records (Linux caps a value at 64 KiB).
        static let maximumAttributeValue = 64 * 1024
        static let maximumAttributes = 256

        init(_ location: String) throws {
            guard let a = archive_read_new() else { throw InputError("cannot read \(location): out of memory") }
            archive = a
            self.location = location
            // Without updating the archive's access time where permitted (Linux O_NOATIME needs
            // the file's owner or CAP_FOWNER; EPERM otherwise, then opened plainly).
            let opened = Result { () throws(Errno) in
                try FileDescriptor.currentDirectory.open(location.utf8, .readingFollowingSymlink, keepAccessTime: true)
            }
            source = Source(fd: try? opened.get())
            // On failure deinit frees the archive: it runs once every property is set.
            if case .failure(let e) = opened { throw InputError("cannot read \(location): \(errorText(e.code))") }
            archive_read_support_filter_all(a)
            archive_read_support_format_tar(a)
            archive_read_support_format_gnutar(a)
            archive_read_support_format_zip(a)
            archive_read_set_seek_callback(a) { _, client, offset, whence in Source.of(client).seek(offset, whence) }
            guard archive_read_open2(a, Unmanaged.passUnretained(source).toOpaque(), nil,
                                     { _, client, out in Source.of(client).read(out) },
                                     { _, client, request in Source.of(client).skip(request) }, nil) == ARCHIVE_OK else {
                throw InputError("cannot read \(location) as a tar or zip archive: \(errorString)")
            }
        }

        /// The archive file, read in blocks that start small after every skip and double while
        /// libarchive keeps reading. libarchive's own file reader reads 64 KiB for every member
        /// header of an uncompressed tar (about 1.7 GB copied to list a 2 GB archive of 20 kB
        /// files), where a header needs 512 bytes; compressed streams still get large reads.
        final class Source {
            let fd: FileDescriptor?
            static let smallest = 1024, largest = 1 << 20
            var blockSize = smallest
            var failure: Int32 = 0
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: largest, alignment: 16)
            /// The file's size and the read position, for refusing to skip past the end.
            let size: Int64
            var position: Int64 = 0

            init(fd: FileDescriptor?) {
                self.fd = fd
                let status = try? fd?.status()
                size = status?.kind == .regular ? status!.size : -1
            }
            deinit {
                buffer.deallocate()
                fd?.close()
            }

            static func of(_ client: UnsafeMutableRawPointer?) -> Source { Unmanaged<Source>.fromOpaque(client!).takeUnretainedValue() }

            func read(_ out: UnsafeMutablePointer<UnsafeRawPointer?>?) -> Int {
                guard let fd else { failure = EBADF; return -1 }
                let n: Int
                switch Result(catching: { () throws(Errno) in try fd.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: blockSize)) }) {
                case .success(let count): n = count
                case .failure(let e): failure = e.code; return -1
                }
                position += Int64(n)
                out?.pointee = UnsafeRawPointer(buffer)
                blockSize = min(blockSize * 2, Source.largest)
                return n
            }

            /// Skips by seeking; 0 (nothing skipped) makes libarchive read through instead, as
            /// for a skip past the end (so that a truncated archive reads as truncated) or where
            /// the file cannot seek.
            func skip(_ request: Int64) -> Int64 {
                blockSize = Source.smallest
                guard size >= 0, request <= size - position, (try? fd?.seek(request, from: SEEK_CUR)) != nil else { return 0 }
                position += request
                return request
            }

            func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
                blockSize = Source.smallest
                guard let r = try? fd?.seek(offset, from: whence) else { return Int64(ARCHIVE_FATAL) }
                position = r
                return r
            }
        }

        var errorString: String {
            if source.failure != 0 { return errorText(source.failure) }
            return archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
        }

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
            // Bounded (docs/limits.md): at most `maximumAttributeValue` bytes copied per value
            // and `maximumAttributes` attributes kept per member. A backup attribute's value
            // over the limit is kept cut one byte past it, so it is reported as unrecognised
            // (its presence still excludes); any other oversized value is dropped (no Linux
            // file system could hold it).
            var seen = 0
            while archive_entry_xattr_next(e, &name, &value, &size) == ARCHIVE_OK {
                guard let name else { continue }
                seen += 1
                let key = String(cString: name)
                let isBackup = BackupAttribute(attributeName: Array(key.utf8)) != nil
                guard isBackup || (seen <= Self.maximumAttributes && size <= Self.maximumAttributeValue) else { continue }
                guard !member.xattrs.contains(where: { $0.0 == key }) else { continue }
                let kept = min(max(size, 0), Self.maximumAttributeValue + 1)
                let v = value.map { Array(UnsafeRawBufferPointer(start: $0, count: kept)) } ?? []
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
        return .path(p.count == raw.count ? raw : Array(p))
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
        // Components 0 to 2 may be tmp (with something below it) or Library (with Caches next).
        var start = 0, index = 0
        var previousWasLibrary = false
        while index < 4, start < path.count {
            let end = path[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.count
            let component = path[start..<end]
            if previousWasLibrary && component.elementsEqual(cachesName) { return true }
            if index < 3 && end < path.count && component.elementsEqual(tmpName) { return true }
            previousWasLibrary = index < 3 && component.elementsEqual(libraryName)
            start = end + 1
            index += 1
        }
        return false
    }

    static let libraryName = Array("Library".utf8), cachesName = Array("Caches".utf8), tmpName = Array("tmp".utf8)
    static let identityNames: [[UInt8]] = [Array(Container.simulatorMetadata.utf8), Array(Container.appDataInfo.utf8)]
    static let rootFolderNames: [[UInt8]] = ["Documents", "Library", "tmp"].map { Array($0.utf8) }
    static let appDataName = Array("AppData".utf8)

    /// Numbers the stored paths (normalised; the root and unsafe paths are not numbered) by
    /// their first position among the members. An archive entry's inode is its position + 1:
    /// the scan numbers through this, and so does simulate --into when it reads the archive
    /// again, so the two agree.
    struct MemberNumbering {
        private var positions: [ContainerPath: Int] = [:]

        /// The path's position, and whether the archive stored it before.
        mutating func number(_ path: [UInt8]) -> (position: Int, repeated: Bool) {
            let key = ContainerPath(bytes: path)
            if let known = positions[key] { return (known, true) }
            positions[key] = positions.count
            return (positions.count - 1, false)
        }

        func position(of path: ContainerPath) -> Int? { positions[path] }
    }

    /// The data root of a container read from the archive at `location`: the archive itself, or
    /// `ARCHIVE!/PREFIX` for the members below `PREFIX/`.
    static func dataRoot(_ location: String, prefix: [UInt8]) -> String {
        prefix.isEmpty ? location : location + "!/" + String(decoding: prefix.dropLast(), as: UTF8.self)
    }

    /// The members' prefix (`PREFIX/`, or empty) of a container that `dataRoot` made.
    static func memberPrefix(of container: Container) -> [UInt8] {
        container.dataRoot == container.input ? [] : Array(container.dataRoot.utf8.dropFirst(container.input.utf8.count + 2)) + [UInt8(ascii: "/")]
    }

    /// Reads the archive and returns the container and the walk of its data root.
    /// `role` (`--kind`) overrides what the metadata says; `group` also lets the data root be
    /// a folder without Documents, Library or tmp (the archive root, or its one top folder).
    public static func read(_ location: String, role: ContainerRole? = nil) throws -> (Container, WalkResult) {
        let reader = try Reader(location)
        var members: [Member] = []
        var numbering = MemberNumbering()
        var problems: [WalkProblem] = []
        var tooDeepReported = Set<ContainerPath>()
        var progress = ProgressCounter()
        defer { progress.flush(folder: "") }
        let headerLength = VolatileStore.headerLength
        while let m = try reader.next(keep: { path, size in
            let start = (path.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
            let name = path[start...]
            if name.starts(with: AppleDouble.sidecarPrefix) || identityNames.contains(where: { name.elementsEqual($0) }) {
                return Int(min(size, Int64(AppleDouble.maximumSize)))
            }
            return VolatileStore.mayBeDatabase(size: size) && mayBePurgeable(path) ? headerLength : 0
        }) {
            var m = m
            progress.count(m.type == FileType.reg ? m.size : 0, folder: ContainerPath(bytes: Array(m.path[..<(m.path.lastIndex(of: UInt8(ascii: "/")) ?? 0)])).display)
            compactSidecar(&m)
            switch normalise(m.path) {
            case .root: continue
            case .unsafe:
                problems.append(WalkProblem(path: ContainerPath(bytes: m.path), operation: "read archive entry", reason: "absolute path or '..' in the archive: skipped"))
                continue
            case .path(let normal): m.path = normal
            }
            // As in a folder, nothing deeper than the path limit is recorded (one problem per
            // folder whose contents are left out).
            if m.path.count > Walker.maximumPathLength {
                var cut = m.path.count
                while cut > Walker.maximumPathLength, let slash = m.path[..<cut].lastIndex(of: UInt8(ascii: "/")) { cut = slash }
                let folder = ContainerPath(bytes: Array(m.path[..<cut]))
                if !tooDeepReported.contains(folder) {
                    tooDeepReported.insert(folder)
                    problems.append(Walker.tooDeep(folder))
                }
                continue
            }
            let (position, repeated) = numbering.number(m.path)
            if repeated {
                problems.append(WalkProblem(path: ContainerPath(bytes: m.path), operation: "read archive entry", reason: "the archive holds this path twice: the later one counts"))
                members[position] = m
            } else {
                members.append(m)
            }
        }
        return try assemble(location, members, numbering, problems, role: role)
    }

    /// A group container's root when nothing marks one: the archive's one top folder, or the
    /// archive root.
    static func groupRootPrefix(_ members: [Member]) -> [UInt8] {
        var top: ArraySlice<UInt8>?
        for m in members {
            guard let slash = m.path.firstIndex(of: UInt8(ascii: "/")) else {
                if m.type == FileType.dir, top == nil || top!.elementsEqual(m.path) { top = m.path[...]; continue }
                return []
            }
            let first = m.path[..<slash]
            if first.elementsEqual(AppleDouble.mirrorFolder.utf8) { continue }
            if let t = top, !t.elementsEqual(first) { return [] }
            top = first
        }
        return top.map { Array($0) + [UInt8(ascii: "/")] } ?? []
    }

    /// The data root: the archive root, a top folder, or a top folder's AppData, whichever first
    /// holds Documents, Library or tmp (stored or implied by a deeper member), tops in byte order.
    static func dataRootPrefix(_ members: [Member]) -> [UInt8]? {
        // Each prefix found is (top folder, AppData below it); the archive root is ([], false).
        var found = Set<[UInt8]>()
        var atRoot = false
        var lastTop: ArraySlice<UInt8> = []
        var lastAppData = false
        for m in members {
            let p = m.path
            // The first three components' bounds, and whether each is a folder (something
            // follows it, or the member is itself a folder).
            var bounds: [(Int, Int)] = []
            var start = 0
            while bounds.count < 3, start < p.count {
                let end = p[start...].firstIndex(of: UInt8(ascii: "/")) ?? p.count
                bounds.append((start, end))
                start = end + 1
            }
            func isFolder(_ i: Int) -> Bool { bounds[i].1 < p.count || m.type == FileType.dir }
            func isRootFolder(_ i: Int) -> Bool {
                i < bounds.count && isFolder(i) && rootFolderNames.contains { p[bounds[i].0..<bounds[i].1].elementsEqual($0) }
            }
            if isRootFolder(0) { atRoot = true; continue }
            guard bounds.count >= 2 else { continue }
            let top = p[bounds[0].0..<bounds[0].1]
            let appData = p[bounds[1].0..<bounds[1].1].elementsEqual(appDataName) && isRootFolder(2)
            guard isRootFolder(1) || appData else { continue }
            if top.elementsEqual(lastTop), appData == lastAppData { continue }
            lastTop = top
            lastAppData = appData
            found.insert(Array(top) + (appData ? [1] : [0]))
        }
        if atRoot { return [] }
        let mirror = Array(AppleDouble.mirrorFolder.utf8)
        let first = found.filter { key in
            let top = key.dropLast()
            return !top.elementsEqual(mirror) && !top.starts(with: AppleDouble.sidecarPrefix)
        }.min { a, b in
            let (ta, tb) = (a.dropLast(), b.dropLast())
            return ta.elementsEqual(tb) ? a.last! < b.last! : ta.lexicographicallyPrecedes(tb)
        }
        guard let key = first else { return nil }
        return Array(key.dropLast()) + [UInt8(ascii: "/")] + (key.last == 1 ? appDataName + [UInt8(ascii: "/")] : [])
    }

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
                for a in parsed.attributes {
                    guard let attribute = BackupAttribute(attributeName: Array(a.name.utf8)) else { continue }
                    found.append(AttributeMark(attribute: attribute, value: a.value, source: source))
                }
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
