import Foundation
import SandboxAuditSystem

/// Turns one backup domain's `Manifest.db` rows into a walk: each row an entry at its
/// `relativePath` below the domain root, its kind from `flags` (1 file, 2 directory,
/// 4 symlink), size, mode, times and inode from its MBFile, a symlink's target, and the first
/// bytes of the files the rules want them of (`Walker.headerLength`'s choice, as the folder
/// walk makes it), read from `XX/FILEID`; its data protection class; and its marks: the backup
/// attributes among the extended attributes its MBFile records (`ExtendedAttributes`). An
/// excluded file is simply absent; what the rows record is reported, and excludes nothing of
/// what the backup holds.
///
/// The domain root (relativePath "") is the root, not an entry. A row whose path is absolute,
/// has `.`, `..` or empty components, or repeats another row's path; a blob that is not an
/// MBFile; or a file whose fileID is not 40 hex digits (its bytes are then never looked for)
/// is a walk problem: reported, never followed.
package struct BackupWalk {
    let domain: String
    let folder: BackupFolder
    let cipher: (any BackupCipher)?
    private var walk = WalkResult()
    /// Every path taken, with the index in `stored` of where its bytes are for a file whose
    /// bytes can be looked for (else -1): one table, so that each row's path is hashed once.
    private var paths: [BackupSource.HashedPath: Int32] = [:]
    private var stored: [BackupSource.Stored] = []

    init(domain: String, folder: BackupFolder, cipher: (any BackupCipher)?) {
        self.domain = domain
        self.folder = folder
        self.cipher = cipher
    }

    /// What a row makes, decided apart from the other rows (on either core): everything but
    /// whether another row of the domain has the same path.
    struct Prepared: Sendable {
        enum Outcome: Sendable {
            /// The domain root: not an entry.
            case root
            /// Not taken at all (an unsafe path): the problem's reason.
            case refused(String)
            /// Taken, but not read: the problem's reason.
            case unread(String)
            /// An entry, where its bytes are (a file with a valid fileID), and what was not read of it.
            case entry(WalkEntry, BackupSource.Stored?, problems: [String])
        }
        let domain: Int
        let fileID: String
        let key: BackupSource.HashedPath
        var path: ContainerPath { key.path }
        let outcome: Outcome
    }

    /// Reads one row: its path checked, its blob decoded (`blob`: its bytes, nil when it has none),
    /// its entry made.
    static func prepare(_ row: ManifestRow, blob: ArraySlice<UInt8>?) -> Prepared {
        func made(_ outcome: Prepared.Outcome) -> Prepared {
            Prepared(
                domain: row.domain, fileID: row.fileID, key: .init(ContainerPath(bytes: row.relativePath)),
                outcome: outcome)
        }
        if row.relativePath.isEmpty { return made(.root) }
        if let why = Self.unsafePath(row.relativePath) { return made(.refused("its relativePath \(why): not read")) }
        guard let blob else {
            return made(
                .unread(
                    row.blobSize > 0
                        ? "its MBFile blob is \(row.blobSize) bytes, over \(MBFile.maximumBlobSize): not read"
                        : "it has no MBFile blob: its size and times are unknown"))
        }
        let mb: MBFile
        switch MBFile.decode(blob) {
        case .success(let decoded): mb = decoded
        case .failure(let refusal): return made(.unread(refusal.reason))
        }
        let kind: WalkEntry.Kind
        switch row.flags {
        case 1: kind = .file
        case 2: kind = .directory
        case 4: kind = .symlink
        default:
            return made(.unread("its flags \(row.flags) are none of 1 (file), 2 (directory), 4 (symlink): not read"))
        }
        var problems: [String] = []
        if let why = mb.extendedAttributesProblem { problems.append(why + ": its attributes are not read") }
        let marks = (mb.extendedAttributes ?? []).compactMap { a in
            BackupAttribute(attributeName: Array(a.name.utf8)).map {
                AttributeMark(attribute: $0, value: a.value, source: .manifest(name: a.name))
            }
        }
        let size = kind == .directory ? 0 : (mb.size ?? Int64(mb.target?.count ?? 0))
        let defaultMode: UInt32 = kind == .file ? 0o100644 : kind == .directory ? 0o40755 : 0o120755
        let path = ContainerPath(bytes: row.relativePath)
        let entry = WalkEntry(
            path: path, kind: kind, special: nil, size: size, allocated: size, mode: mb.mode ?? defaultMode,
            modifiedSeconds: mb.lastModified ?? 0, modifiedNanoseconds: 0, device: 0, inode: mb.inode ?? 0,
            linkCount: 1, symlinkTarget: kind == .symlink ? (mb.target ?? []) : nil, header: nil, marks: marks,
            protectionClass: ProtectionClass(recorded: mb.protectionClass))
        var stored: BackupSource.Stored?
        if kind == .file {
            if let id = BackupSource.FileID(row.fileID) {
                stored = BackupSource.Stored(fileID: id, size: size, encryptionKey: mb.encryptionKey)
            } else {
                problems.append("its fileID is not 40 hexadecimal digits: its bytes are not looked for")
            }
        }
        return Prepared(
            domain: row.domain, fileID: row.fileID, key: .init(path), outcome: .entry(entry, stored, problems: problems)
        )
    }

    /// Adds one row of the domain, as `prepare` read it: a path another row already has is a
    /// problem, whatever the row holds.
    mutating func add(_ row: Prepared) {
        func problem(_ reason: String) {
            walk.problems.append(
                WalkProblem(path: row.path, operation: Self.rowOperation + " " + row.fileID.prefix(40), reason: reason))
        }
        var file: BackupSource.Stored?
        switch row.outcome {
        case .root: return
        case .refused(let why): return problem(why)
        case .entry(_, let s, _): file = s
        case .unread: break
        }
        if let taken = paths.updateValue(file == nil ? -1 : Int32(stored.count), forKey: row.key) {
            paths[row.key] = taken
            return problem("another row of the domain has the same relativePath: this one is not read")
        }
        if let file { stored.append(file) }
        switch row.outcome {
        case .unread(let why): problem(why)
        case .entry(let entry, _, let problems):
            walk.entries.append(entry)
            problems.forEach(problem)
        default: break
        }
    }

    /// The walk, with the first bytes of the files the rules want them of.
    func finish() -> (walk: WalkResult, source: BackupSource) {
        var walk = walk
        let source = BackupSource(folder: folder, domain: domain, cipher: cipher, paths: paths, stored: stored)
        for i in walk.entries.indices where walk.entries[i].kind == .file {
            let e = walk.entries[i]
            let wanted = StoreSignature.headerLength(e.path, size: e.size)
            if wanted > 0, case .success(let bytes) = source.read(e.path, limit: wanted) {
                walk.entries[i].header = bytes
            }
        }
        return (walk, source)
    }

    /// What a problem with a row says it was doing, before the row's fileID: how
    /// `unreadable-entry` tells a backup row from an entry on disk.
    package static let rowOperation = "read Manifest.db row"

    /// Why a relativePath (its exact bytes) cannot be taken below the domain root, or nil when
    /// it can. Bytes that are not UTF-8 are kept, as a folder's names are.
    static func unsafePath(_ path: [UInt8]) -> String? {
        if path.first == UInt8(ascii: "/") { return "is absolute" }
        if let nul = path.firstIndex(of: 0) { return "holds a NUL byte (at byte \(nul))" }
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        var start = 0
        for end in 0...path.count where end == path.count || path[end] == slash {
            switch end - start {
            case 0: return "has an empty or . component"
            case 1 where path[start] == dot: return "has an empty or . component"
            case 2 where path[start] == dot && path[start + 1] == dot: return "leads out of the domain with .."
            default: start = end + 1
            }
        }
        return nil
    }
}

extension BackupWalk {
    /// The chosen domains' rows, one pass over `Manifest.db`, each row read as the database
    /// gives it (the blobs are never all held): a container per domain and the walk of what it
    /// holds.
    static func read(_ choice: BackupContainers.Read) throws -> [(Container, WalkResult)] {
        var walks = choice.domains.map {
            BackupWalk(domain: $0.role.domain($0.id), folder: choice.folder, cipher: choice.cipher)
        }
        try choice.database.forEachRow(domains: walks.map(\.domain), prepare: { prepare($0, blob: $1) }) {
            walks[$0.domain].add($0)
        }
        return zip(choice.domains, walks).map { chosen, walk in
            let (walk, source) = walk.finish()
            let container = Container(
                input: choice.input, dataRoot: choice.folder.path, kind: .backup, role: chosen.role,
                roleSource: "domain",
                bundleIdentifier: chosen.id, version: nil, identitySource: BackupFolder.manifestDatabase,
                backup: source,
                source: BackupInput.self)
            return (container, walk)
        }
    }
}
