import Foundation
import GRDB
// The SQLite module GRDB itself imports under SwiftPM (its system library target):
// sqlite3_deserialize and its flags.
import GRDBSQLite

/// One row of `Manifest.db`'s `Files` table (`fileID TEXT PRIMARY KEY, domain TEXT,
/// relativePath TEXT, flags INTEGER, file BLOB`), its blob left undecoded.
struct ManifestRow: Sendable {
    var fileID: String
    var domain: String
    var relativePath: String
    /// 1 file, 2 directory, 4 symlink.
    var flags: Int64
    /// The MBFile blob; nil when the row has none, or one over `MBFile.maximumBlobSize`
    /// (`blobSize` then says how large).
    var file: [UInt8]?
    var blobSize: Int64
}

/// A backup's `Manifest.db`, read in memory through GRDB.
///
/// The file is read once, bounded (`maximumSize`), and handed to SQLite with
/// `sqlite3_deserialize` as a read-only in-memory database: the same path for a plain and a
/// decrypted database, so a decrypted one never touches the disk; and SQLite never opens the
/// file itself, so no journal, `-wal` or `-shm` file can be created beside it (a read-only
/// open of a database whose header asks for WAL would try to), and a file changed while the
/// scan runs cannot be seen half-written.
final class ManifestDatabase {
    /// A Manifest.db larger than this is refused (one of 107,000 rows is about 83 MB).
    static let maximumSize = 2 << 30
    let queue: DatabaseQueue
    let label: String

    /// Reads `folder`'s Manifest.db, decrypted by `cipher` when the backup is encrypted.
    /// Throws `InputError` (one line) for an encrypted backup without a cipher, a file too
    /// large, or one that is not a SQLite database with a `Files` table.
    init(_ folder: BackupFolder, cipher: (any BackupCipher)?) throws {
        label = folder.input + "/" + BackupFolder.manifestDatabase
        if folder.isEncrypted && cipher == nil { throw folder.encryptedError }
        let path = folder.path + "/" + BackupFolder.manifestDatabase
        var bytes: [UInt8]
        switch Result(catching: { () throws(SystemError) in try FileDescriptor.currentDirectory.readFile(path.utf8, limit: Self.maximumSize + 1) }) {
        case .success(let read): bytes = read
        case .failure(let e): throw InputError("cannot read \(label): \(e.reason)")
        }
        guard bytes.count <= Self.maximumSize else {
            throw InputError("cannot read \(label): it is larger than \(ByteSize.format(Int64(Self.maximumSize)))")
        }
        if folder.isEncrypted, let cipher {
            do {
                bytes = try cipher.manifestDatabase(bytes)
            } catch let e as InputError {
                throw e
            } catch {
                throw InputError("cannot decrypt \(label): \(error)")
            }
        }
        guard bytes.starts(with: Array("SQLite format 3\0".utf8)) else {
            throw InputError("cannot read \(label): it is not a SQLite database" + (folder.isEncrypted ? " once decrypted" : ""))
        }
        // A database last written in WAL mode says so in its header (bytes 18 and 19 = 2): an
        // in-memory copy cannot have a WAL, so this copy is marked as a rollback-journal one.
        if bytes.count > 19, bytes[18] == 2 || bytes[19] == 2 {
            bytes[18] = 1
            bytes[19] = 1
        }
        var configuration = Configuration()
        configuration.label = "Manifest.db"
        queue = try DatabaseQueue(configuration: configuration)
        let label = self.label
        try queue.inDatabase { db in
            let count = bytes.count
            guard let memory = sqlite3_malloc64(sqlite3_uint64(count)) else {
                throw InputError("cannot read \(label): no memory for \(count) bytes")
            }
            bytes.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: count) }
            // SQLite owns the copy from here, and frees it on close, even when this fails.
            let code = sqlite3_deserialize(db.sqliteConnection, "main", memory.assumingMemoryBound(to: UInt8.self),
                                           sqlite3_int64(count), sqlite3_int64(count),
                                           UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY))
            guard code == SQLITE_OK else {
                throw InputError("cannot read \(label): SQLite refused it (\(String(cString: sqlite3_errstr(code))))")
            }
        }
        bytes = []
        // The table and the columns the reader uses.
        let columns = try read { db in try Row.fetchAll(db, sql: "PRAGMA table_info(Files)").compactMap { $0["name"] as String? } }
        let missing = ["fileID", "domain", "relativePath", "flags", "file"].filter { !columns.contains($0) }
        if !missing.isEmpty {
            throw InputError("cannot read \(label): " + (columns.isEmpty ? "it has no Files table" : "its Files table has no \(missing.joined(separator: ", ")) column"))
        }
    }

    /// Runs `body`, turning a SQLite error (a corrupt file) into one line.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.inDatabase(body)
        } catch let e as InputError {
            throw e
        } catch let e as DatabaseError {
            throw InputError("cannot read \(label): \(e.message ?? "SQLite error \(e.resultCode.rawValue)")")
        }
    }

    /// Every domain the backup holds, sorted.
    func domains() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT domain FROM Files WHERE domain IS NOT NULL ORDER BY domain") }
    }

    /// The rows of `domains`, in no particular order (`forEachRow` without holding them).
    func rows(domains: [String]) throws -> [ManifestRow] {
        var rows: [ManifestRow] = []
        try forEachRow(domains: domains) { rows.append($0) }
        return rows
    }

    /// Hands each row of `domains` to `body` as it is read, in no particular order. Text columns that are not text are
    /// read as text, and flags as an integer (GRDB stops the process on a value it cannot
    /// convert: every column is cast in SQL first); a blob over `MBFile.maximumBlobSize` is not loaded.
    func forEachRow(domains: [String], _ body: (ManifestRow) -> Void) throws {
        guard !domains.isEmpty else { return }
        let marks = Array(repeating: "?", count: domains.count).joined(separator: ", ")
        let sql = """
            SELECT CAST(fileID AS TEXT), CAST(domain AS TEXT), CAST(relativePath AS TEXT), CAST(flags AS INTEGER),
                   CASE WHEN length(file) <= \(MBFile.maximumBlobSize) THEN CAST(file AS BLOB) END, length(file)
            FROM Files WHERE domain IN (\(marks))
            """
        try read { db in
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(domains))
            while let row = try cursor.next() {
                let blob: Data? = row[4]
                body(ManifestRow(fileID: row[0] ?? "", domain: row[1] ?? "", relativePath: row[2] ?? "",
                                 flags: (row[3] as Int64?) ?? 0, file: blob.map { [UInt8]($0) }, blobSize: row[5] ?? 0))
            }
        }
    }
}
