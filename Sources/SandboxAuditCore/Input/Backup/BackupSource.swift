import Foundation
import SandboxAuditSystem

/// Where one backup domain's files' bytes are: `XX/FILEID` below the backup folder, decrypted
/// in memory by the backup's cipher when it is encrypted. What the walk's headers and the
/// content rules read instead of a data root.
package final class BackupSource: Sendable {
    /// One file row: where its bytes are and what decrypts them.
    struct Stored: Sendable {
        let fileID: FileID
        let size: Int64
        let encryptionKey: [UInt8]?
    }

    /// A fileID's 40 hexadecimal digits, as the row spells them, held in place: no string per row.
    struct FileID: Sendable {
        private var digits: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)

        /// Nil when `text` is not 40 hexadecimal digits.
        init?(_ text: String) {
            guard BackupFolder.isFileID(text) else { return nil }
            withUnsafeMutableBytes(of: &digits) { _ = $0.initializeMemory(as: UInt8.self, from: text.utf8) }
        }

        var string: String { withUnsafeBytes(of: digits) { String(decoding: $0, as: UTF8.self) } }
    }

    /// A path with its hash computed once, where its row is read (on either core): the table of
    /// a domain's paths then hashes an integer, and compares two paths only when their hashes
    /// are equal.
    struct HashedPath: Hashable, Sendable {
        let path: ContainerPath
        let hash: Int
        init(_ path: ContainerPath) {
            self.path = path
            hash = path.hashValue
        }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: HashedPath, b: HashedPath) -> Bool { a.hash == b.hash && a.path == b.path }
    }

    /// Why bytes could not be read: a phrase for the scan's list of what it missed.
    struct Failure: Error, Sendable {
        let reason: String
        /// True when the backup has no bytes for the file (no `XX/FILEID`).
        let absent: Bool
    }

    package let folder: BackupFolder
    let domain: String
    let cipher: (any BackupCipher)?
    /// Every path of the domain's walk, with the index in `stored` of where its bytes are (a
    /// file whose bytes can be looked for), or -1.
    let paths: [HashedPath: Int32]
    let stored: [Stored]

    init(
        folder: BackupFolder, domain: String, cipher: (any BackupCipher)?, paths: [HashedPath: Int32], stored: [Stored]
    ) {
        self.folder = folder
        self.domain = domain
        self.cipher = cipher
        self.paths = paths
        self.stored = stored
    }

    /// Where the bytes of the file at `path` are, when the backup lists them.
    func stored(_ path: ContainerPath) -> Stored? {
        guard let i = paths[HashedPath(path)], i >= 0 else { return nil }
        return stored[Int(i)]
    }

    /// The file in the backup folder that holds the bytes of the file at `path`
    /// (`FOLDER/XX/FILEID`), when the backup lists them: where the `xcode` and `codeclimate`
    /// reports point a finding. Nil for a folder or a path the backup lists no bytes for.
    package func storedFile(_ path: ContainerPath) -> String? {
        stored(path).map { folder.path + "/" + Self.name($0) }
    }

    /// True when the backup lists `path` as a file but holds no bytes for it.
    package func lacksBytes(_ path: ContainerPath) -> Bool {
        guard let stored = stored(path) else { return false }
        switch open(stored) {
        case .failure(let f): return f.absent
        case .success(let opened): opened.fd.close()
        }
        return false
    }

    /// Up to `limit` bytes from the start of the file at `path` (relative to the domain root).
    /// Encrypted, only the AES blocks that hold them are read and decrypted.
    func read(_ path: ContainerPath, limit: Int) -> Result<[UInt8], Failure> {
        guard let stored = stored(path) else {
            return .failure(Failure(reason: "the backup lists no file at this path with bytes to read", absent: false))
        }
        let name = Self.name(stored)
        let fd: FileDescriptor
        let ciphertextSize: Int64
        switch open(stored) {
        case .failure(let f): return .failure(f)
        case .success(let opened): (fd, ciphertextSize) = opened
        }
        defer { fd.close() }
        guard folder.isEncrypted else {
            return Result { () throws(Errno) in
                try fd.read(count: max(0, min(limit, Int(clamping: ciphertextSize))), at: 0)
            }
            .mapError { Failure(reason: "\(name): \(errorText($0.code))", absent: false) }
        }
        guard let cipher else {
            return .failure(Failure(reason: "the backup is encrypted and no password was given", absent: false))
        }
        guard let key = stored.encryptionKey else {
            return .failure(Failure(reason: "its MBFile has no EncryptionKey to decrypt it with", absent: false))
        }
        do {
            return .success(
                try cipher.file(
                    encryptionKey: key, size: stored.size, ciphertextSize: ciphertextSize, limit: limit,
                    what: folder.input + "/" + name
                ) { offset, count in
                    do throws(Errno) { return try fd.read(count: count, at: offset) } catch {
                        throw InputError("\(name): \(errorText(error.code))")
                    }
                })
        } catch {
            return .failure(Failure(reason: "it could not be decrypted (\(error))", absent: false))
        }
    }

    /// `XX/FILEID`, as the backup folder holds it.
    static func name(_ stored: Stored) -> String {
        let id = stored.fileID.string
        return "\(id.prefix(2))/\(id)"
    }

    /// The file's bytes, opened through the backup folder's descriptor (held for the run):
    /// `XX` must be a real folder and `FILEID` a regular file, neither reached through a
    /// symlink, so a link planted there cannot lead the read out of the folder, and a folder
    /// swapped by path is never read. The descriptor and the file's size.
    private func open(_ stored: Stored) -> Result<(fd: FileDescriptor, size: Int64), Failure> {
        let name = Self.name(stored)
        let missing = Failure(reason: "the backup holds no bytes for it (\(name) is missing)", absent: true)
        let sub: FileDescriptor
        let id = stored.fileID.string
        switch Result(catching: { () throws(Errno) in try folder.directory.descriptor.openDirectory(id.prefix(2).utf8) }
        ) {
        case .success(let fd): sub = fd
        case .failure(let e):
            return .failure(
                e.code == ENOENT ? missing : Failure(reason: "\(name): \(errorText(e.code))", absent: false))
        }
        let opened = Result { () throws(Errno) in try sub.open(id.utf8, .reading, keepAccessTime: true) }
        sub.close()
        let fd: FileDescriptor
        switch opened {
        case .success(let f): fd = f
        case .failure(let e):
            return .failure(
                e.code == ENOENT ? missing : Failure(reason: "\(name): \(errorText(e.code))", absent: false))
        }
        switch Result(catching: { () throws(Errno) in try fd.status() }) {
        case .success(let status) where status.kind == .regular: return .success((fd, status.size))
        case .success(let status):
            fd.close()
            return .failure(
                Failure(reason: "\(name) is \(BackupFolder.kindPhrase(status.kind)), not a regular file", absent: false)
            )
        case .failure(let e):
            fd.close()
            return .failure(Failure(reason: "\(name): \(errorText(e.code))", absent: false))
        }
    }
}
