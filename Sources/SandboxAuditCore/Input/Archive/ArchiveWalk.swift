import Foundation
import SandboxAuditSystem

/// Reads an app data container out of a tar or zip archive, as a stream: nothing is extracted,
/// and memory grows with the number of entries, not with the archive's size. The result is the
/// same `WalkResult` a directory walk gives, so everything after the walk is shared.
///
/// Attributes come from what libarchive decodes (pax `SCHILY.xattr.*` and
/// `LIBARCHIVE.xattr.*` records), from `._NAME` AppleDouble members (macOS tar) and from
/// `__MACOSX/` members (Finder zips, `ditto -c -k --sequesterRsrc`). The data root is the archive
/// root, a single top-level folder, or `NAME.xcappdata/AppData`.
package enum ArchiveWalk {
    /// The most bytes of member paths one archive's reading keeps (docs/limits.md).
    static let maximumPathBytes = 64 << 20

    static let suffixes = [".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".zip"]

    static func isArchive(_ path: String) -> Bool {
        let lower = path.lowercased()
        return suffixes.contains { lower.hasSuffix($0) }
    }

    /// Whether `header` (a file's first bytes, 262 or more for tar) starts as an archive does:
    /// gzip, xz, bzip2 or zstd compression (of a tar, presumably), a zip, or a POSIX tar.
    static func hasArchiveSignature(_ header: [UInt8]) -> Bool {
        let signatures: [[UInt8]] = [
            [0x1F, 0x8B],  // gzip
            [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00],  // xz
            [0x50, 0x4B, 0x03, 0x04],  // zip (local file header)
            [0x50, 0x4B, 0x05, 0x06],  // zip (empty archive)
            [0x42, 0x5A, 0x68],  // bzip2 "BZh"
            [0x28, 0xB5, 0x2F, 0xFD],  // zstd
        ]
        if signatures.contains(where: { header.starts(with: $0) }) { return true }
        return header.count >= 262 && header[257..<262].elementsEqual("ustar".utf8)
    }

    /// How many leading bytes `hasArchiveSignature` looks at.
    static let signatureLength = 512

    /// The first `signatureLength` bytes of the opened file (fewer when it is shorter; none when
    /// they cannot be read), read at offset 0 through its descriptor: its position is untouched.
    static func header(of file: ArchiveSnapshot) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: signatureLength)
        var count = 0
        while count < bytes.count {
            let n = (try? file.file.descriptor.read(into: &bytes, range: count..<bytes.count, at: Int64(count))) ?? 0
            if n <= 0 { break }
            count += n
        }
        return Array(bytes[..<count])
    }

    /// The archive's reading runs ahead of the walk by at most `waiting` batches, each handed on at
    /// `members` members or once its kept contents reach `bytes` (a member keeps at most 1 MiB,
    /// `AppleDouble.maximumSize`), so what is read ahead is bounded whatever the archive holds
    /// (docs/limits.md).
    static let readAheadBatch = (members: 256, bytes: 4 << 20, waiting: 4)

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

    /// Reads the archive and returns the container and the walk of its data root.
    /// `role` (`--kind`) overrides what the metadata says; `group` also lets the data root be
    /// a folder without Documents, Library or tmp (the archive root, or its one top folder).
    static func read(_ location: String, role: ContainerRole? = nil) throws -> (Container, WalkResult) {
        try read(location, file: try open(location), role: role)
    }

    /// Which members' paths are kept, for the scan and for `simulate --into` alike, so that both
    /// number the same members and `--into` costs what the scan did: a path longer than the
    /// folder walk's limit is left out (with the folder it is too deep in), and once the paths
    /// kept add up to `maximumPathBytes` the rest of the archive is.
    package struct PathAdmission {
        package enum Verdict {
            case keep
            case tooDeep(folder: ContainerPath)
            case overBudget
        }
        private var pathBytes = 0

        package init() {}

        /// The verdict on a normalised member path (`normalise`), counted when kept.
        package mutating func admit(_ path: [UInt8]) -> Verdict {
            if path.count > Walker.maximumPathLength {
                var cut = path.count
                while cut > Walker.maximumPathLength, let slash = path[..<cut].lastIndex(of: UInt8(ascii: "/")) {
                    cut = slash
                }
                return .tooDeep(folder: ContainerPath(bytes: Array(path[..<cut])))
            }
            pathBytes += path.count
            return pathBytes > maximumPathBytes ? .overBudget : .keep
        }
    }

    /// As above, from the archive as opened when it was named (`ArchiveInput.detect`).
    /// `recording`: what is read is recorded in `file` (`ArchiveReadRecord`) for a second
    /// reading to be checked against (`ContainerSelection.recordsArchiveReading`).
    static func read(
        _ location: String, file: ArchiveSnapshot, role: ContainerRole? = nil,
        recording: Bool = true
    ) throws -> (Container, WalkResult) {
        let reader = try Reader(location, file: file, recording: recording)
        var members: [Member] = []
        // About one member per 4 KiB of archive, as app containers hold mostly small files
        // (a guess, capped: the table grows past it as needed).
        let expected = Int(min(max(file.status.size, 0) / 4096, 1 << 18))
        var numbering = MemberNumbering(expected: expected)
        // The data root and the entries, made as the members come, while libarchive reads
        // the next ones (`EarlyEntries`: used when nothing read later changes them).
        var dataRoot = DataRootFinder()
        var rootGeneration = 0
        var currentRoot: [UInt8]?
        var early = EarlyEntries(expected: expected)
        var replaced = false
        var problems: [WalkProblem] = []
        var tooDeepReported = Set<ContainerPath>()
        var progress = ProgressCounter()
        defer { progress.flush(folder: "") }
        let headerLength = StoreSignature.headerLength
        var memberCount = 0
        var admission = PathAdmission()
        var rootMember: Member?
        // Whether the archive carries attributes at all: a pax record, a `._` member, a
        // `__MACOSX/` mirror (GNU tar without --xattrs and Info-ZIP's zip carry none).
        var carriesAttributes = false
        let keep = { (path: [UInt8], size: Int64) -> Int in
            let start = (path.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
            let name = path[start...]
            if name.starts(with: AppleDouble.sidecarPrefix) || identityNames.contains(where: { name.elementsEqual($0) })
            {
                return Int(min(size, Int64(AppleDouble.maximumSize)))
            }
            return StoreSignature.mayBeDatabase(size: size) && mayBePurgeable(path) ? headerLength : 0
        }
        // libarchive reads on a thread of its own, a few batches ahead of this one, which
        // numbers and places the members; a sidecar is reduced there as it is read, so what
        // waits is bounded (`readAheadBatch`).
        let stream = ReadAhead<Member>(
            batchSize: readAheadBatch.members, batchCost: readAheadBatch.bytes,
            maximumBatches: readAheadBatch.waiting
        ) {
            guard var m = try reader.next(keep: keep) else { return nil }
            compactSidecar(&m)
            return (m, m.data?.count ?? 0)
        }
        defer { stream.close() }
        reading: while let batch = try stream.next() {
            for m in batch {
                var m = m
                memberCount += 1
                if !carriesAttributes { carriesAttributes = Self.carriesAttributes(m) }
                if let why = m.nameless {
                    problems.append(
                        WalkProblem(
                            path: ContainerPath("(member \(memberCount) of the archive)"),
                            operation: "read archive entry",
                            reason: "its name cannot be read (\(why)): skipped"))
                    continue
                }
                if m.size < 0 {
                    problems.append(
                        WalkProblem(
                            path: ContainerPath(bytes: m.path), operation: "read archive entry",
                            reason: "its stored size is negative (\(m.size)): counted as 0 bytes"))
                    m.size = 0
                }
                progress.count(
                    m.type == FileType.reg ? m.size : 0,
                    folder: ContainerPath(bytes: Array(m.path[..<(m.path.lastIndex(of: UInt8(ascii: "/")) ?? 0)]))
                        .display)
                switch normalise(m.path) {
                case .root:
                    // `./`: the archive root's own member, whose attributes are the data root's
                    // when the archive was made inside the container.
                    if m.type == FileType.dir { rootMember = m }
                    continue
                case .unsafe:
                    problems.append(
                        WalkProblem(
                            path: ContainerPath(bytes: m.path), operation: "read archive entry",
                            reason: "absolute path or '..' in the archive: skipped"))
                    continue
                case .path(let normal): m.path = normal
                }
                switch admission.admit(m.path) {
                case .keep: break
                case .tooDeep(let folder):
                    // As in a folder, nothing deeper than the path limit is recorded (one problem
                    // per folder whose contents are left out).
                    if !tooDeepReported.contains(folder) {
                        tooDeepReported.insert(folder)
                        problems.append(Walker.tooDeep(folder))
                    }
                    continue
                case .overBudget:
                    // The paths kept are bounded in total, not only each (docs/limits.md): past
                    // the limit the rest of the archive is left out, with one problem.
                    problems.append(
                        WalkProblem(
                            path: ContainerPath(bytes: m.path), operation: "read archive entry",
                            reason:
                                "the archive's paths add up to more than \(maximumPathBytes / (1 << 20)) MiB: this "
                                + "member and every later one are left out"
                        ))
                    break reading
                }
                let (position, repeated) = numbering.number(m.path)
                if repeated {
                    problems.append(
                        WalkProblem(
                            path: ContainerPath(bytes: m.path), operation: "read archive entry",
                            reason: "the archive holds this path twice: the later one counts"))
                    members[position] = m
                    // What the member it replaces said of the data root no longer counts.
                    replaced = true
                    early.abandon()
                } else {
                    members.append(m)
                    dataRoot.add(m)
                    if dataRoot.generation != rootGeneration {
                        rootGeneration = dataRoot.generation
                        currentRoot = dataRoot.prefix
                    }
                    early.add(members, prefix: currentRoot)
                }
            }
        }
        var (container, walk) = try assemble(
            location, members, numbering, problems, rootMember: rootMember, role: role,
            dataRoot: replaced ? dataRootPrefix(members) : dataRoot.prefix, early: &early)
        walk.archive = file
        if !carriesAttributes && memberCount > 0 {
            container.lost[.attributesOnDisk] = Self.noAttributes
        }
        return (container, walk)
    }

    /// `path` below `prefix`, or nil.
    static func relative(_ path: [UInt8], _ prefix: [UInt8]) -> ContainerPath? {
        guard path.count > prefix.count, path.starts(with: prefix) else {
            return prefix.isEmpty && !path.isEmpty ? ContainerPath(bytes: path) : nil
        }
        return ContainerPath(bytes: Array(path[prefix.count...]))
    }

    /// The backup attributes among a member's extended attributes (either spelling), plus its
    /// sidecar's.
    static func marks(_ m: Member, _ sidecar: [AttributeMark]) -> [AttributeMark] {
        m.xattrs.compactMap { name, value in
            BackupAttribute(attributeName: Array(name.utf8)).map {
                AttributeMark(attribute: $0, value: value, source: .native(name: name))
            }
        } + sidecar
    }
}
