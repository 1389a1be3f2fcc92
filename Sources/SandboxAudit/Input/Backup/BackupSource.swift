import Foundation

/// Where one backup domain's files' bytes are: `XX/FILEID` below the backup folder, decrypted
/// in memory by the backup's cipher when it is encrypted. What the walk's headers and the
/// content rules read instead of a data root.
final class BackupSource: Sendable {
    /// One file row: where its bytes are and what decrypts them.
    struct Stored: Sendable {
        let fileID: String
        let size: Int64
        let encryptionKey: [UInt8]?
    }

    /// Why bytes could not be read: a phrase for the scan's list of what it missed.
    struct Failure: Error, Sendable {
        let reason: String
        /// True when the backup has no bytes for the file (no `XX/FILEID`).
        let absent: Bool
    }

    let folder: BackupFolder
    let domain: String
    let cipher: (any BackupCipher)?
    let files: [ContainerPath: Stored]

    /// An encrypted file larger than this is not decrypted (it is decrypted whole, in memory).
    static let maximumDecryptedSize = 256 << 20

    init(folder: BackupFolder, domain: String, cipher: (any BackupCipher)?, files: [ContainerPath: Stored]) {
        self.folder = folder
        self.domain = domain
        self.cipher = cipher
        self.files = files
    }

    /// True when the backup lists `path` as a file but holds no bytes for it.
    func lacksBytes(_ path: ContainerPath) -> Bool {
        guard let stored = files[path] else { return false }
        if case .failure(let f) = open(stored) { return f.absent }
        return false
    }

    /// Up to `limit` bytes from the start of the file at `path` (relative to the domain root).
    func read(_ path: ContainerPath, limit: Int) -> Result<[UInt8], Failure> {
        guard let stored = files[path] else {
            return .failure(Failure(reason: "the backup lists no file at this path with bytes to read", absent: false))
        }
        let fd: FileDescriptor
        switch open(stored) {
        case .failure(let f): return .failure(f)
        case .success(let opened): fd = opened
        }
        defer { fd.close() }
        let encrypted = folder.isEncrypted
        if encrypted && stored.size > Int64(Self.maximumDecryptedSize) {
            return .failure(Failure(reason: "it is \(ByteSize.format(stored.size)), over the \(ByteSize.format(Int64(Self.maximumDecryptedSize))) decrypted in memory", absent: false))
        }
        // Encrypted: the whole file (AES-CBC with padding: at most 16 bytes past Size), then
        // decrypted; else only what is asked.
        let want = encrypted ? Int(stored.size) + 32 : limit
        let bytes: [UInt8]
        switch Result(catching: { () throws(SystemError) in try fd.readFile(stored.fileID.utf8, limit: want) }) {
        case .success(let read): bytes = read
        case .failure(let e): return .failure(Failure(reason: "\(stored.fileID.prefix(2))/\(stored.fileID): \(e.reason)", absent: false))
        }
        guard encrypted else { return .success(bytes) }
        guard let cipher else { return .failure(Failure(reason: "the backup is encrypted and no password was given", absent: false)) }
        guard let key = stored.encryptionKey else {
            return .failure(Failure(reason: "its MBFile has no EncryptionKey to decrypt it with", absent: false))
        }
        do {
            return .success(Array(try cipher.file(bytes, encryptionKey: key, size: stored.size).prefix(limit)))
        } catch {
            return .failure(Failure(reason: "it could not be decrypted (\(error))", absent: false))
        }
    }

    /// The `XX` folder holding the file, opened below the backup folder without following a
    /// symlink at any step: a link planted there cannot lead the read out of the folder.
    private func open(_ stored: Stored) -> Result<FileDescriptor, Failure> {
        let name = "\(stored.fileID.prefix(2))/\(stored.fileID)"
        let missing = Failure(reason: "the backup holds no bytes for it (\(name) is missing)", absent: true)
        let root: FileDescriptor
        switch Result(catching: { () throws(Errno) in try FileDescriptor.currentDirectory.openDirectory(folder.path.utf8) }) {
        case .success(let fd): root = fd
        case .failure(let e): return .failure(Failure(reason: "cannot open the backup folder: \(errorText(e.code))", absent: false))
        }
        let opened = Result { () throws(Errno) in try root.openDirectory(stored.fileID.prefix(2).utf8) }
        root.close()
        let sub: FileDescriptor
        switch opened {
        case .success(let fd): sub = fd
        case .failure(let e): return .failure(e.code == ENOENT ? missing : Failure(reason: "\(name): \(errorText(e.code))", absent: false))
        }
        if case .failure(let e) = Result(catching: { () throws(Errno) in try sub.status(of: stored.fileID.utf8) }), e.code == ENOENT {
            sub.close()
            return .failure(missing)
        }
        return .success(sub)
    }
}
