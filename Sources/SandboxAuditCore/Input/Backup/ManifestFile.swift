import CSQLite
import SandboxAuditSystem

/// `Manifest.db` (or its `-wal`) opened once through the backup folder's descriptor: no symlink
/// followed, no blocking on a FIFO, its kind and size checked on the open descriptor before a
/// byte is read, then read at the offsets asked.
struct ManifestFile {
    let descriptor: FileDescriptor
    let size: Int64
    let label: String

    init(_ folder: BackupFolder, name: String, label: String, limit: Int = ManifestDatabase.maximumSize) throws {
        self.label = label
        let directory = folder.directory.descriptor
        switch Result(catching: { () throws(Errno) in try directory.open(name.utf8, .reading, keepAccessTime: true) }) {
        case .success(let fd): descriptor = fd
        case .failure(let e):
            let status = try? folder.directory.descriptor.status(of: name.utf8)
            if let status, status.kind != .regular {
                throw InputError(
                    "cannot read \(label): it is \(BackupFolder.kindPhrase(status.kind)), not a regular file")
            }
            throw InputError("cannot read \(label): \(errorText(e.code).lowercased())")
        }
        let status: FileStatus
        let opened = descriptor
        switch Result(catching: { () throws(Errno) in try opened.status() }) {
        case .success(let s): status = s
        case .failure(let e):
            descriptor.close()
            throw InputError("cannot read \(label): \(errorText(e.code).lowercased())")
        }
        guard status.kind == .regular else {
            descriptor.close()
            throw InputError("cannot read \(label): it is \(BackupFolder.kindPhrase(status.kind)), not a regular file")
        }
        guard status.size <= Int64(limit) else {
            descriptor.close()
            let limitText = limit % (1 << 30) == 0 ? "\(limit >> 30) GiB" : ByteSize.format(Int64(limit))
            throw InputError(
                "cannot read \(label): it is \(ByteSize.format(status.size)) (\(status.size) bytes), over the "
                    + "\(limitText) limit for a backup's Manifest.db (see docs/limits.md)"
            )
        }
        size = status.size
    }

    /// Up to `count` bytes at `offset` (fewer at the end).
    func read(_ offset: Int64, _ count: Int) throws -> [UInt8] {
        do { return try descriptor.read(count: count, at: offset) } catch {
            throw InputError("cannot read \(label): \(errorText(error.code).lowercased())")
        }
    }
}

extension ManifestDatabase {
    /// The first bytes must be SQLite's, before the rest is read or decrypted.
    static func checkHeader(_ bytes: [UInt8], label: String, encrypted: Bool) throws {
        guard bytes.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw InputError("cannot read \(label): it is not a SQLite database" + (encrypted ? " once decrypted" : ""))
        }
    }

    /// The database's size as its header says it (page size × "in-header database size"),
    /// when that field is valid (its "version-valid-for" number equals the change counter):
    /// SQLite reads no further, so neither does this. Nil when the header does not say. The
    /// layout: "Database File Format", section 1.3, https://www.sqlite.org/fileformat2.html.
    static func declaredSize(_ header: [UInt8]) -> Int? {
        guard header.count >= 100, header[24..<28].elementsEqual(header[92..<96]) else { return nil }
        let pageField = Int(header[16]) << 8 | Int(header[17])
        let pageSize = pageField == 1 ? 65536 : pageField
        let pages = header[28..<32].reduce(0) { $0 << 8 | Int($1) }
        guard pageSize >= 512, pages > 0 else { return nil }
        return pages * pageSize
    }

    /// A cipher's failure as one line naming the file (its own errors already do).
    static func decrypting<T>(_ label: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as InputError { throw e } catch {
            throw InputError("cannot decrypt \(label): \(error)")
        }
    }

    /// Lays the committed pages of a `Manifest.db-wal` beside the database (plain backups) over
    /// `pages`, and says what was left out in `notes`: a WAL of an encrypted backup, a malformed
    /// one, a `-journal`. The WAL's bytes are held; the database's are read as SQLite asks.
    static func applyJournals(
        _ folder: BackupFolder, label: String, encrypted: Bool, _ pages: ManifestPages, notes: inout [String]
    ) {
        func beside(_ suffix: String) -> FileStatus? {
            try? folder.directory.descriptor.status(of: (BackupFolder.manifestDatabase + suffix).utf8)
        }
        if let journal = beside("-journal"), journal.kind != .regular || journal.size > 0 {
            let size = journal.kind == .regular ? ByteSize.format(journal.size) : BackupFolder.kindPhrase(journal.kind)
            notes.append(
                "\(label)-journal (\(size)) was not applied: a rollback journal beside Manifest.db means a write to it "
                    + "was interrupted; the database is read as it stands"
            )
        }
        guard let wal = beside("-wal"), wal.kind != .regular || wal.size > 0 else { return }
        let walLabel = label + "-wal"
        func skipped(_ why: String) {
            notes.append(
                "\(walLabel) was not applied (\(why)): rows written to it since the last checkpoint are not listed")
        }
        if encrypted {
            return skipped("the backup is encrypted, and a WAL beside an encrypted Manifest.db is not read")
        }
        let length = Int(pages.length)
        var header = [UInt8](repeating: 0, count: 100)
        guard length >= 100, pages.read(into: &header, at: 0) == SQLITE_OK else {
            return skipped("the database has no header")
        }
        let file: ManifestFile
        do {
            file = try ManifestFile(
                folder, name: BackupFolder.manifestDatabase + "-wal", label: walLabel, limit: maximumSize - length)
        } catch {
            return skipped((error as? InputError)?.message ?? "\(error)")
        }
        // The header first, then the frames a batch at a time: nothing of the WAL is held but
        // where its committed pages are (ManifestWAL); SQLite reads them through the descriptor.
        let pageField = Int(header[16]) << 8 | Int(header[17])
        let pageSize = pageField == 1 ? 65536 : pageField
        let commit: ManifestWAL.Commit
        switch ManifestWAL.commit(size: file.size, pageSize: pageSize, read: { try file.read($0, $1) }) {
        case .failure(let refusal):
            file.descriptor.close()
            return skipped("it is not a WAL of this database: \(refusal.reason)")
        case .success(nil):
            file.descriptor.close()
            return skipped("it holds no valid committed frame")
        case .success(let found?): commit = found
        }
        // Every page lies in the database or the WAL: a commit may not claim more.
        guard Int64(commit.databasePages) * Int64(pageSize) <= Int64(length) + file.size else {
            file.descriptor.close()
            return skipped("its commit claims \(commit.databasePages) pages, more than the database and the WAL hold")
        }
        pages.apply(
            walPages: commit.pages, databasePages: commit.databasePages, pageSize: pageSize, wal: file.descriptor,
            closeWAL: { file.descriptor.close() })
        notes.append(
            "\(walLabel): \(commit.frames) committed frame\(commit.frames == 1 ? "" : "s") applied in memory (the "
                + "backup was still being written, or was not closed cleanly)"
        )
    }
}
