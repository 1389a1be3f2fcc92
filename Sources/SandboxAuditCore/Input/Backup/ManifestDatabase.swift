import Foundation
import GRDB
// The SQLite module GRDB itself imports under SwiftPM (its system library target):
// sqlite3_deserialize, sqlite3_limit, sqlite3_progress_handler and their flags.
import GRDBSQLite
import SandboxAuditSystem

/// One row of `Manifest.db`'s `Files` table (`fileID TEXT PRIMARY KEY, domain TEXT,
/// relativePath TEXT, flags INTEGER, file BLOB`), its blob left undecoded.
struct ManifestRow: Sendable {
    var fileID: String
    var domain: String
    /// The column's exact bytes (read as a blob): a NUL or bytes that are not UTF-8 are kept.
    var relativePath: [UInt8]
    /// 1 file, 2 directory, 4 symlink.
    var flags: Int64
    /// The MBFile blob; nil when the row has none, or one over `MBFile.maximumBlobSize`
    /// (`blobSize` then says how large).
    var file: [UInt8]?
    var blobSize: Int64
}

/// A backup's `Manifest.db`, read in memory through GRDB.
///
/// The file is opened once, through the backup folder's descriptor, its size checked on that
/// descriptor before anything is read (`maximumSize`), its header checked, then read (and
/// decrypted) a run at a time straight into the memory SQLite takes with `sqlite3_deserialize`
/// as a read-only in-memory database: the same path for a plain and a decrypted database, so a
/// decrypted one never touches the disk; and SQLite never opens the file itself, so no
/// journal, `-wal` or `-shm` file can be created beside it. A `Manifest.db-wal` left by a
/// backup still being written is applied in memory (`ManifestWAL`).
///
/// Only a real `Files` table is read (not a view, a virtual table or one with generated
/// columns: nothing the file holds runs as SQL), and SQLite's work is capped as well: at most
/// `operationsPerByte` virtual-machine steps per byte of the file (plus `baseOperations`) for
/// the whole run, and no string or blob over `maximumValueLength`.
final class ManifestDatabase {
    /// A Manifest.db larger than this is refused (one of 107,000 rows is about 83 MB).
    static let maximumSize = 2 << 30
    /// SQLite steps allowed per byte of Manifest.db, and on top for any file.
    static let operationsPerByte = 16
    static let baseOperations = 50_000_000
    /// The longest string or blob SQLite may make while reading (1 MiB): a row's blob is read
    /// only up to `MBFile.maximumBlobSize`, a path up to 32 KiB.
    static let maximumValueLength = 1 << 20
    let queue: DatabaseQueue
    let label: String
    /// What the user should know about the read (a `-wal` applied or not, a `-journal`).
    private(set) var notes: [String] = []
    private let budget: WorkBudget

    /// Reads `folder`'s Manifest.db, decrypted by `cipher` when the backup is encrypted.
    /// Throws `InputError` (one line) for an encrypted backup without a cipher, a file that is
    /// not a regular file or is too large, or one that is not a SQLite database with a `Files`
    /// table.
    init(_ folder: BackupFolder, cipher: (any BackupCipher)?) throws {
        let label = folder.input + "/" + BackupFolder.manifestDatabase
        self.label = label
        if folder.isEncrypted && cipher == nil { throw folder.encryptedError }
        let file = try ManifestFile(folder, name: BackupFolder.manifestDatabase, label: label)
        defer { file.descriptor.close() }
        let size = Int(file.size)
        var plain: UnsafeMutableRawBufferPointer
        var length: Int
        if folder.isEncrypted, let cipher {
            // The first blocks say whether the rest is worth decrypting, and how much of it
            // the database holds (a size that is not whole blocks is refused at once, unread).
            let first = try Self.decrypting(label) {
                let probe = UnsafeMutableRawBufferPointer.allocate(byteCount: 112, alignment: 16)
                defer { probe.deallocate() }
                let n = try cipher.manifestDatabase(size: size % 16 == 0 ? min(size, 112) : size, what: label, read: file.read, into: probe)
                return Array(probe.prefix(n))
            }
            try Self.checkHeader(first, label: label, encrypted: true)
            let wanted = Self.declaredSize(first).map { min($0, size) } ?? size
            plain = try Self.allocate(wanted, label: label)
            do {
                length = try Self.decrypting(label) { try cipher.manifestDatabase(size: wanted, what: label, read: file.read, into: plain) }
            } catch {
                sqlite3_free(plain.baseAddress)
                throw error
            }
        } else {
            let header = try file.read(0, 100)
            try Self.checkHeader(header, label: label, encrypted: false)
            length = Self.declaredSize(header).map { min($0, size) } ?? size
            plain = try Self.allocate(length, label: label)
            do { try file.fill(plain) } catch {
                sqlite3_free(plain.baseAddress)
                throw error
            }
        }
        var notes: [String] = []
        (plain, length) = Self.applyJournals(folder, label: label, encrypted: folder.isEncrypted, plain, length, notes: &notes)
        // Text is read as its bytes (relativePath): they are UTF-8 only in a UTF-8 database.
        if length >= 60, plain[56] == 0, plain[57] == 0, plain[58] == 0, plain[59] == 2 || plain[59] == 3 {
            sqlite3_free(plain.baseAddress)
            throw InputError("cannot read \(label): its text is UTF-16, and a backup's Manifest.db is UTF-8")
        }
        // A database last written in WAL mode says so in its header (bytes 18 and 19 = 2): an
        // in-memory copy cannot have a WAL (any was applied above), so it is marked as a
        // rollback-journal one.
        if length > 19, plain[18] == 2 || plain[19] == 2 {
            plain[18] = 1
            plain[19] = 1
        }
        var configuration = Configuration()
        configuration.label = "Manifest.db"
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(configuration: configuration) } catch {
            sqlite3_free(plain.baseAddress)
            throw error
        }
        self.queue = queue
        self.notes = notes
        let budget = WorkBudget(operations: Self.operationsPerByte * max(size, length) + Self.baseOperations)
        self.budget = budget
        try queue.inDatabase { db in
            let connection = db.sqliteConnection
            // SQLite owns the copy from here, and frees it on close, even when this fails.
            let code = sqlite3_deserialize(connection, "main", plain.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                           sqlite3_int64(length), sqlite3_int64(plain.count),
                                           UInt32(SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY))
            guard code == SQLITE_OK else {
                throw InputError("cannot read \(label): SQLite refused it (\(String(cString: sqlite3_errstr(code))))")
            }
            sqlite3_limit(connection, SQLITE_LIMIT_LENGTH, Int32(Self.maximumValueLength))
            sqlite3_progress_handler(connection, Int32(WorkBudget.stepsPerCall), { context in
                Unmanaged<WorkBudget>.fromOpaque(context!).takeUnretainedValue().spend()
            }, Unmanaged.passUnretained(budget).toOpaque())
        }
        // Only a real table is read: a view (or a virtual table) runs whatever SQL it holds.
        let kinds = try read { db in
            try Row.fetchAll(db, sql: "SELECT CAST(type AS TEXT), CAST(substr(sql, 1, 40) AS TEXT) FROM sqlite_master WHERE lower(CAST(name AS TEXT)) = 'files'")
                .map { (($0[0] as String?) ?? "", ($0[1] as String?) ?? "") }
        }
        if let kind = kinds.first, kind.0 != "table" || kind.1.uppercased().hasPrefix("CREATE VIRTUAL") {
            throw InputError("cannot read \(label): its Files is \(kind.0 == "table" ? "a virtual table" : "a \(kind.0)"), not a table (only a table is read)")
        }
        // table_xinfo's `hidden`: 2 and 3 are generated columns, computed by SQL the file holds.
        let described = try read { db in
            try Row.fetchAll(db, sql: "SELECT CAST(name AS TEXT), hidden FROM pragma_table_xinfo('Files')").map { (($0[0] as String?) ?? "", ($0[1] as Int64?) ?? 0) }
        }
        if let generated = described.first(where: { $0.1 == 2 || $0.1 == 3 }) {
            throw InputError("cannot read \(label): its Files column \(generated.0) is computed by SQL (a generated column), which no backup's is")
        }
        let columns = described.map(\.0)
        let missing = ["fileID", "domain", "relativePath", "flags", "file"].filter { !columns.contains($0) }
        if !missing.isEmpty {
            throw InputError("cannot read \(label): " + (columns.isEmpty ? "it has no Files table" : "its Files table has no \(missing.joined(separator: ", ")) column"))
        }
    }

    /// Runs `body`, turning a SQLite error (a corrupt file, the work cap reached) into one line.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.inDatabase(body)
        } catch let e as InputError {
            throw e
        } catch let e as DatabaseError {
            if budget.exhausted {
                throw InputError("cannot read \(label): reading it took more than the \(budget.limit) SQLite steps allowed for a Manifest.db of its size (\(Self.operationsPerByte) per byte and \(Self.baseOperations)): its Files table is not a backup's (see docs/limits.md)")
            }
            if e.resultCode == .SQLITE_TOOBIG {
                throw InputError("cannot read \(label): it holds a value over \(ByteSize.format(Int64(Self.maximumValueLength))), which no backup row has (see docs/limits.md)")
            }
            throw InputError("cannot read \(label): \(e.message ?? "SQLite error \(e.resultCode.rawValue)")")
        }
    }

    /// Every domain the backup holds, sorted.
    func domains() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT DISTINCT CAST(domain AS TEXT) FROM Files WHERE domain IS NOT NULL ORDER BY 1") }
    }

    /// The rows of `domains`, in no particular order (`forEachRow` without holding them).
    func rows(domains: [String]) throws -> [ManifestRow] {
        var rows: [ManifestRow] = []
        try forEachRow(domains: domains) { rows.append($0) }
        return rows
    }

    /// Hands each row of `domains` to `body` as it is read, in no particular order. Text columns
    /// that are not text are read as text, `relativePath` as its bytes, and flags as an integer
    /// (GRDB stops the process on a value it cannot convert: every column is cast in SQL
    /// first); a blob over `MBFile.maximumBlobSize` is not loaded.
    func forEachRow(domains: [String], _ body: (ManifestRow) -> Void) throws {
        guard !domains.isEmpty else { return }
        let marks = Array(repeating: "?", count: domains.count).joined(separator: ", ")
        let sql = """
            SELECT CAST(fileID AS TEXT), CAST(domain AS TEXT), CAST(relativePath AS BLOB), CAST(flags AS INTEGER),
                   CASE WHEN length(file) <= \(MBFile.maximumBlobSize) THEN CAST(file AS BLOB) END, length(file)
            FROM Files WHERE domain IN (\(marks))
            """
        try read { db in
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(domains))
            while let row = try cursor.next() {
                // The blob and the path copied once, from SQLite's memory.
                let blob = try row.withUnsafeData(atIndex: 4) { $0.map { [UInt8]($0) } }
                let path = try row.withUnsafeData(atIndex: 2) { $0.map { [UInt8]($0) } }
                body(ManifestRow(fileID: row[0] ?? "", domain: row[1] ?? "", relativePath: path ?? [],
                                 flags: (row[3] as Int64?) ?? 0, file: blob, blobSize: row[5] ?? 0))
            }
        }
    }

    /// Rows decoded at a time by `forEachDecodedRow`, and their blobs' bytes at most (plus one
    /// blob of at most `MBFile.maximumBlobSize`).
    static let decodeBatch = 1024
    static let decodeBatchBytes = 1 << 20

    /// `forEachRow`, each row handed with its blob decoded (`MBFile.decode`; nil when the row has
    /// no blob): the rows of a batch are decoded on both cores while none is held longer than
    /// its batch, then handed over in the order read.
    func forEachDecodedRow(domains: [String], _ body: (ManifestRow, Result<MBFile, MBFile.Refusal>?) -> Void) throws {
        var batch: [ManifestRow] = []
        var bytes = 0
        batch.reserveCapacity(Self.decodeBatch)
        func flush() {
            let n = batch.count
            let decoded = [Result<MBFile, MBFile.Refusal>?](unsafeUninitializedCapacity: n) { buffer, count in
                let base = buffer.baseAddress!
                batch.withUnsafeBufferPointer { rows in
                    let halves = n >= 32 ? 2 : 1
                    DispatchQueue.concurrentPerform(iterations: halves) { half in
                        for i in (half == 0 ? 0 : n / 2)..<(half + 1 == halves ? n : n / 2) {
                            (base + i).initialize(to: rows[i].file.map(MBFile.decode))
                        }
                    }
                }
                count = n
            }
            for i in 0..<n { body(batch[i], decoded[i]) }
            batch.removeAll(keepingCapacity: true)
            bytes = 0
        }
        try forEachRow(domains: domains) { row in
            batch.append(row)
            bytes += row.file?.count ?? 0
            if batch.count == Self.decodeBatch || bytes >= Self.decodeBatchBytes { flush() }
        }
        if !batch.isEmpty { flush() }
    }
}

/// The SQLite steps a `Manifest.db` may cost, for the whole run: the progress handler spends
/// one call per `stepsPerCall` steps and interrupts SQLite when none are left.
final class WorkBudget: @unchecked Sendable {
    static let stepsPerCall = 1000
    let limit: Int
    private var calls: Int
    private(set) var exhausted = false

    init(operations: Int) {
        limit = operations
        calls = operations / Self.stepsPerCall
    }

    /// 1 (interrupt) once the budget is spent.
    func spend() -> Int32 {
        calls -= 1
        if calls < 0 { exhausted = true }
        return exhausted ? 1 : 0
    }
}
