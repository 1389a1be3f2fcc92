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
    private var files: [ContainerPath: BackupSource.Stored] = [:]
    private var seen = Set<ContainerPath>()

    init(domain: String, folder: BackupFolder, cipher: (any BackupCipher)?) {
        self.domain = domain
        self.folder = folder
        self.cipher = cipher
    }

    /// The walk of `rows` (all of one domain), and where its files' bytes are.
    static func read(_ rows: [ManifestRow], domain: String, folder: BackupFolder,
                            cipher: (any BackupCipher)?) -> (walk: WalkResult, source: BackupSource) {
        var w = BackupWalk(domain: domain, folder: folder, cipher: cipher)
        for row in rows { w.add(row) }
        return w.finish()
    }

    /// Adds one row of the domain: rows are taken as the database gives them, so that their
    /// blobs are decoded and dropped one at a time (`decoded`: the blob's decoding, when made).
    mutating func add(_ row: ManifestRow, decoded: Result<MBFile, MBFile.Refusal>? = nil) {
        if row.relativePath.isEmpty { return }
        let path = ContainerPath(bytes: row.relativePath)
        func problem(_ reason: String) {
            walk.problems.append(WalkProblem(path: path, operation: Self.rowOperation + " " + row.fileID.prefix(40), reason: reason))
        }
        if let why = Self.unsafePath(row.relativePath) {
            problem("its relativePath \(why): not read")
            return
        }
        guard seen.insert(path).inserted else {
            problem("another row of the domain has the same relativePath: this one is not read")
            return
        }
        guard let blob = row.file else {
            problem(row.blobSize > 0 ? "its MBFile blob is \(row.blobSize) bytes, over \(MBFile.maximumBlobSize): not read" : "it has no MBFile blob: its size and times are unknown")
            return
        }
        let mb: MBFile
        switch decoded ?? MBFile.decode(blob) {
        case .success(let decoded): mb = decoded
        case .failure(let refusal):
            problem(refusal.reason)
            return
        }
        let kind: WalkEntry.Kind
        switch row.flags {
        case 1: kind = .file
        case 2: kind = .directory
        case 4: kind = .symlink
        default:
            problem("its flags \(row.flags) are none of 1 (file), 2 (directory), 4 (symlink): not read")
            return
        }
        if let why = mb.extendedAttributesProblem { problem(why + ": its attributes are not read") }
        let marks = (mb.extendedAttributes ?? []).compactMap { a in
            BackupAttribute(attributeName: Array(a.name.utf8)).map { AttributeMark(attribute: $0, value: a.value, source: .manifest(name: a.name)) }
        }
        let size = kind == .directory ? 0 : (mb.size ?? Int64(mb.target?.count ?? 0))
        let defaultMode: UInt32 = kind == .file ? 0o100644 : kind == .directory ? 0o40755 : 0o120755
        walk.entries.append(WalkEntry(
            path: path, kind: kind, special: nil, size: size, allocated: size, mode: mb.mode ?? defaultMode,
            modifiedSeconds: mb.lastModified ?? 0, modifiedNanoseconds: 0, device: 0, inode: mb.inode ?? 0,
            linkCount: 1, symlinkTarget: kind == .symlink ? (mb.target ?? []) : nil, header: nil, marks: marks,
            protectionClass: ProtectionClass(recorded: mb.protectionClass)))
        if kind == .file {
            if BackupFolder.isFileID(row.fileID) {
                files[path] = BackupSource.Stored(fileID: row.fileID, size: size, encryptionKey: mb.encryptionKey)
            } else {
                problem("its fileID is not 40 hexadecimal digits: its bytes are not looked for")
            }
        }
    }

    /// The walk, with the first bytes of the files the rules want them of.
    func finish() -> (walk: WalkResult, source: BackupSource) {
        var walk = walk
        let source = BackupSource(folder: folder, domain: domain, cipher: cipher, files: files)
        for i in walk.entries.indices where walk.entries[i].kind == .file {
            let e = walk.entries[i]
            let wanted = StoreSignature.headerLength(e.path, size: e.size)
            if wanted > 0, case .success(let bytes) = source.read(e.path, limit: wanted) { walk.entries[i].header = bytes }
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
        for component in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            if component.elementsEqual("..".utf8) { return "leads out of the domain with .." }
            if component.isEmpty || component.elementsEqual(".".utf8) { return "has an empty or . component" }
        }
        return nil
    }
}

extension BackupWalk {
    /// The chosen domains' rows, one pass over `Manifest.db`, each row decoded as it is read (the
    /// blobs are never all held): a container per domain and the walk of what it holds.
    static func read(_ choice: BackupContainers.Read) throws -> [(Container, WalkResult)] {
        var walks: [String: BackupWalk] = [:]
        for (role, id) in choice.domains {
            walks[role.domain(id)] = BackupWalk(domain: role.domain(id), folder: choice.folder, cipher: choice.cipher)
        }
        try choice.database.forEachDecodedRow(domains: choice.domains.map { $0.role.domain($0.id) }) { row, decoded in
            walks[row.domain]?.add(row, decoded: decoded)
        }
        return choice.domains.map { role, id in
            let domain = role.domain(id)
            let (walk, source) = walks[domain]?.finish() ?? BackupWalk(domain: domain, folder: choice.folder, cipher: choice.cipher).finish()
            let container = Container(input: choice.input, dataRoot: choice.folder.path, kind: .backup, role: role, roleSource: "domain",
                                      bundleIdentifier: id, version: nil, identitySource: BackupFolder.manifestDatabase, backup: source,
                                      source: BackupInput.self)
            return (container, walk)
        }
    }
}
