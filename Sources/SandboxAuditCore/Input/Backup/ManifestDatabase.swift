// SQLite's C interface (the package's system library target): `sqlite3_vfs_register`,
// `sqlite3_limit`, `sqlite3_progress_handler`.
import CSQLite
import Foundation
import SandboxAuditSystem

/// One row of `Manifest.db`'s `Files` table (`fileID TEXT PRIMARY KEY, domain TEXT,
/// relativePath TEXT, flags INTEGER, file BLOB`), as `ManifestDatabase.forEachRow` reads it; its
/// blob is handed beside it.
struct ManifestRow: Sendable {
    var fileID: String
    /// Which of the domains asked for (their index).
    var domain: Int
    /// The column's exact bytes (read as a blob): a NUL or bytes that are not UTF-8 are kept.
    var relativePath: [UInt8]
    /// 1 file, 2 directory, 4 symlink.
    var flags: Int64
    /// Where the MBFile blob lies in its batch's bytes; nil when the row has none, or one over
    /// `MBFile.maximumBlobSize` (`blobSize` then says how large).
    var blob: Range<Int>?
    var blobSize: Int64
}

/// A backup's `Manifest.db`, read through SQLite's C interface.
///
/// The file is opened once, through the backup folder's descriptor, its size checked on that
/// descriptor before anything is read (`maximumSize`), its header checked, then read by SQLite
/// page by page through `ManifestVFS`: `pread` on that descriptor (an encrypted one decrypted a
/// page at a time), so neither the file nor a decrypted copy is ever held whole, and SQLite
/// never opens the file itself: no journal, `-wal` or `-shm` file can be created beside it. A
/// `Manifest.db-wal` left by a backup still being written is applied page by page
/// (`ManifestWAL`).
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
    let label: String
    /// What the user should know about the read (a `-wal` applied or not, a `-journal`).
    private(set) var notes: [String] = []
    private let budget: WorkBudget
    private let pages: ManifestPages
    private let connection: OpaquePointer

    /// Reads `folder`'s Manifest.db, decrypted by `cipher` when the backup is encrypted.
    /// Throws `InputError` (one line) for an encrypted backup without a cipher, a file that is
    /// not a regular file or is too large, or one that is not a SQLite database with a `Files`
    /// table.
    init(_ folder: BackupFolder, cipher: (any BackupCipher)?) throws {
        let label = folder.input + "/" + BackupFolder.manifestDatabase
        self.label = label
        if folder.isEncrypted && cipher == nil { throw folder.encryptedError }
        let file = try ManifestFile(folder, name: BackupFolder.manifestDatabase, label: label)
        var held = true
        defer { if held { file.descriptor.close() } }
        let size = Int(file.size)
        let length: Int
        let stored: ManifestPages.Stored
        if folder.isEncrypted, let cipher {
            // The first blocks say whether the rest is worth decrypting, and how much of it
            // the database holds (a size that is not whole blocks is refused at once, unread).
            let first = try Self.decrypting(label) {
                var probe = [UInt8](repeating: 0, count: 112)
                let n = try cipher.manifestDatabase(
                    size: size % 16 == 0 ? min(size, 112) : size, what: label, read: file.read, into: &probe)
                return Array(probe.prefix(n))
            }
            try Self.checkHeader(first, label: label, encrypted: true)
            let wanted = Self.declaredSize(first).map { min($0, size) } ?? size
            length = try Self.decrypting(label) {
                try cipher.manifestDatabaseLength(size: wanted, what: label, read: file.read)
            }
            stored = .bytes { offset, count in
                // The whole blocks around the bytes asked for (and the one before them).
                let start = offset / 16 * 16
                let end = min((offset + Int64(count) + 15) / 16 * 16, Int64(wanted))
                let plain = try Self.decrypting(label) {
                    try cipher.manifestDatabaseBlocks(at: start, count: Int(end - start), what: label, read: file.read)
                }
                let skip = Int(offset - start)
                let n = max(0, min(count, plain.count - skip))
                return n == 0 ? [] : plain[skip..<(skip + n)]
            }
        } else {
            let header = try file.read(0, 100)
            try Self.checkHeader(header, label: label, encrypted: false)
            length = Self.declaredSize(header).map { min($0, size) } ?? size
            stored = .descriptor(file.descriptor)
        }
        held = false
        let pages = ManifestPages(
            label: label, length: Int64(length), stored: stored, close: { file.descriptor.close() })
        self.pages = pages
        var notes: [String] = []
        Self.applyJournals(folder, label: label, encrypted: folder.isEncrypted, pages, notes: &notes)
        // Text is read as its bytes (relativePath): they are UTF-8 only in a UTF-8 database.
        let header = try pages.header()
        if header.count >= 60, header[56] == 0, header[57] == 0, header[58] == 0, header[59] == 2 || header[59] == 3 {
            throw InputError("cannot read \(label): its text is UTF-16, and a backup's Manifest.db is UTF-8")
        }
        connection = try ManifestVFS.connect(pages)
        self.notes = notes
        let budget = WorkBudget(operations: Self.operationsPerByte * max(size, Int(pages.length)) + Self.baseOperations)
        self.budget = budget
        sqlite3_limit(connection, SQLITE_LIMIT_LENGTH, Int32(Self.maximumValueLength))
        sqlite3_progress_handler(
            connection, Int32(WorkBudget.stepsPerCall),
            { context in
                Unmanaged<WorkBudget>.fromOpaque(context!).takeUnretainedValue().spend()
            }, Unmanaged.passUnretained(budget).toOpaque())
        // Double-quoted strings are identifiers only, never string literals; and temporary
        // tables (a sort) in memory, never in a file.
        sandbox_audit_sqlite_refuse_double_quoted_strings(connection)
        try query("PRAGMA temp_store = MEMORY") { _ in }
        // Only a real table is read: a view (or a virtual table) runs whatever SQL it holds.
        var kinds: [(String, String)] = []
        try query(
            "SELECT CAST(type AS TEXT), CAST(substr(sql, 1, 40) AS TEXT) FROM sqlite_master WHERE lower(CAST(name AS "
                + "TEXT)) = 'files'"
        ) {
            kinds.append((Self.text($0, 0) ?? "", Self.text($0, 1) ?? ""))
        }
        if let kind = kinds.first, kind.0 != "table" || kind.1.uppercased().hasPrefix("CREATE VIRTUAL") {
            let what = kind.0 == "table" ? "a virtual table" : "a \(kind.0)"
            throw InputError("cannot read \(label): its Files is \(what), not a table (only a table is read)")
        }
        // table_xinfo's `hidden`: 2 and 3 are generated columns, computed by SQL the file holds.
        var described: [(String, Int64)] = []
        try query("SELECT CAST(name AS TEXT), hidden FROM pragma_table_xinfo('Files')") {
            described.append((Self.text($0, 0) ?? "", sqlite3_column_int64($0, 1)))
        }
        if let generated = described.first(where: { $0.1 == 2 || $0.1 == 3 }) {
            throw InputError(
                "cannot read \(label): its Files column \(generated.0) is computed by SQL (a generated column), "
                    + "which no backup's is"
            )
        }
        let columns = described.map(\.0)
        let missing = ["fileID", "domain", "relativePath", "flags", "file"].filter { !columns.contains($0) }
        if !missing.isEmpty {
            throw InputError(
                "cannot read \(label): "
                    + (columns.isEmpty
                        ? "it has no Files table" : "its Files table has no \(missing.joined(separator: ", ")) column"))
        }
    }

    deinit { sqlite3_close_v2(connection) }

    /// Runs `sql` with `texts` bound to its parameters, handing each result row (the prepared
    /// statement, its columns read with `sqlite3_column_*`) to `row`; a SQLite error (a corrupt
    /// file, the work cap reached) becomes one line.
    func query(_ sql: String, _ texts: [String] = [], row: (OpaquePointer) throws -> Void) throws {
        var prepared: OpaquePointer?
        var code = sqlite3_prepare_v2(connection, sql, -1, &prepared, nil)
        guard code == SQLITE_OK, let statement = prepared else { throw failure(code) }
        defer { sqlite3_finalize(statement) }
        for (i, text) in texts.enumerated() {
            code = sqlite3_bind_text(statement, Int32(i + 1), text, -1, Self.transient)
            guard code == SQLITE_OK else { throw failure(code) }
        }
        while true {
            code = sqlite3_step(statement)
            guard code == SQLITE_ROW else { break }
            try row(statement)
        }
        guard code == SQLITE_DONE else { throw failure(code) }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func failure(_ code: Int32) -> InputError {
        if budget.exhausted {
            return InputError(
                "cannot read \(label): reading it took more than the \(budget.limit) SQLite steps allowed for a "
                    + "Manifest.db of its size (\(Self.operationsPerByte) per byte and \(Self.baseOperations)): its "
                    + "Files table is not a backup's (see docs/limits.md)"
            )
        }
        if code & 0xFF == SQLITE_TOOBIG {
            return InputError(
                "cannot read \(label): it holds a value over \(ByteSize.format(Int64(Self.maximumValueLength))), "
                    + "which no backup row has (see docs/limits.md)"
            )
        }
        if let failure = pages.failure { return failure }
        return InputError("cannot read \(label): \(String(cString: sqlite3_errmsg(connection)))")
    }

    /// Column `index` as text, as `String(cString:)` reads it (up to a NUL); nil for NULL.
    static func text(_ statement: OpaquePointer, _ index: Int32) -> String? { SQLiteColumn.string(statement, index) }

    /// Every domain the backup holds, sorted.
    func domains() throws -> [String] {
        var domains: [String] = []
        try query("SELECT DISTINCT CAST(domain AS TEXT) FROM Files WHERE domain IS NOT NULL ORDER BY 1") {
            domains.append(Self.text($0, 0) ?? "")
        }
        return domains
    }

    /// Every domain the backup holds with its number of rows (files, folders, links), sorted
    /// (`sandbox-audit apps`).
    func domainCounts() throws -> [(domain: String, rows: Int)] {
        var counts: [(domain: String, rows: Int)] = []
        try query("SELECT CAST(domain AS TEXT), COUNT(*) FROM Files WHERE domain IS NOT NULL GROUP BY 1 ORDER BY 1") {
            counts.append((Self.text($0, 0) ?? "", Int(sqlite3_column_int64($0, 1))))
        }
        return counts
    }

    /// Rows prepared at a time by `forEachRow`, and their blobs' bytes at most (plus one blob
    /// of at most `MBFile.maximumBlobSize`).
    static let batchRows = 1024
    static let batchBytes = 1 << 20

    /// Hands each row of `domains` to `body` in the order read (no particular one), after
    /// `prepare` made of it, with its blob's bytes (nil when it has none), what `body` needs.
    /// The rows are read in batches, their blobs in one buffer: while the next batch is read and
    /// the last one handed to `body`, a batch is prepared on every core; so at most three
    /// batches are held. Text columns that are not text are read as text, `relativePath` as its
    /// bytes, and flags as an integer (every column is cast in SQL first); a blob over
    /// `MBFile.maximumBlobSize` is not loaded.
    func forEachRow<T: Sendable>(
        domains: [String], prepare: @escaping @Sendable (ManifestRow, ArraySlice<UInt8>?) -> T, _ body: (T) -> Void
    ) throws {
        guard !domains.isEmpty else { return }
        let marks = Array(repeating: "?", count: domains.count).joined(separator: ", ")
        let sql = """
            SELECT CAST(fileID AS TEXT), CAST(domain AS TEXT), CAST(relativePath AS BLOB), CAST(flags AS INTEGER),
                   CASE WHEN length(file) <= \(MBFile.maximumBlobSize) THEN CAST(file AS BLOB) END, length(file)
            FROM Files WHERE domain IN (\(marks))
            """
        // Each row's domain found by hashing its bytes: linear in rows, whatever the number of
        // domains (an app with 40,000 extension domains).
        var names: [[UInt8]: Int] = [:]
        for (i, d) in domains.enumerated() where names[Array(d.utf8)] == nil { names[Array(d.utf8)] = i }
        do {
            let preparing = DispatchQueue(label: "Manifest.db rows")
            var batch = RowBatch<T>()
            var inFlight: Background<RowBatch<T>>?
            var spare: RowBatch<T>?
            // Every batch sent is prepared before this returns, even when reading fails.
            defer { inFlight?.wait() }
            func handOver(_ pending: Background<RowBatch<T>>) {
                var prepared = pending.take()
                prepared.prepared.forEach(body)
                prepared.clear()
                spare = prepared
            }
            // The full batch is prepared while the one before it is handed over and the next read.
            func send() {
                let full = batch
                let pending = Background(on: preparing) { () -> RowBatch<T> in
                    var prepared = full
                    prepared.prepare(prepare)
                    return prepared
                }
                batch = spare ?? RowBatch()
                spare = nil
                if let previous = inFlight { handOver(previous) }
                inFlight = pending
            }
            try query(sql, domains) { statement in
                // The domain is one of those asked for, byte for byte (the IN compares text).
                guard let domain = names[SQLiteColumn.text(statement, 1)] else { return }
                var blob: Range<Int>?
                if sqlite3_column_type(statement, 4) != SQLITE_NULL {
                    let start = batch.blobs.count
                    SQLiteColumn.appendBlob(statement, 4, to: &batch.blobs)
                    blob = start..<batch.blobs.count
                }
                batch.rows.append(
                    ManifestRow(
                        fileID: Self.text(statement, 0) ?? "", domain: domain,
                        relativePath: Self.bytes(statement, 2) ?? [],
                        flags: sqlite3_column_int64(statement, 3), blob: blob,
                        blobSize: sqlite3_column_int64(statement, 5)))
                if batch.rows.count == Self.batchRows || batch.blobs.count >= Self.batchBytes { send() }
            }
            if !batch.rows.isEmpty { send() }
            if let last = inFlight {
                handOver(last)
                inFlight = nil
            }
        }
    }

    /// Column `index` as bytes, copied once from SQLite's memory; nil for NULL.
    static func bytes(_ statement: OpaquePointer, _ index: Int32) -> [UInt8]? { SQLiteColumn.bytes(statement, index) }

}

/// Rows of `Manifest.db` read together, their blobs in one buffer, and what was made of them.
/// A value: the reading thread fills one while another thread prepares the one before
/// (`Background`).
struct RowBatch<T: Sendable>: Sendable {
    var rows: [ManifestRow] = []
    var blobs: [UInt8] = []
    private(set) var prepared: [T] = []

    init() {
        rows.reserveCapacity(ManifestDatabase.batchRows)
        blobs.reserveCapacity(ManifestDatabase.batchBytes + MBFile.maximumBlobSize)
    }

    /// Prepares every row, a run of them on each core.
    mutating func prepare(_ prepare: @Sendable (ManifestRow, ArraySlice<UInt8>?) -> T) {
        let rows = self.rows
        let blobs = self.blobs
        // Each row's blob is a slice of the batch's buffer: read in place, never copied.
        prepared =
            Parallel.array(
                count: rows.count, runs: Parallel.runs(rows.count, parts: Parallel.parts(rows.count, atLeast: 32))
            ) {
                (_, out: inout RunWriter<T>) in
                for i in out.run { out.append(prepare(rows[i], rows[i].blob.map { blobs[$0] })) }
            }.0
    }

    mutating func clear() {
        rows.removeAll(keepingCapacity: true)
        blobs.removeAll(keepingCapacity: true)
        prepared = []
    }
}

/// The SQLite steps a `Manifest.db` may cost, for the whole run: the progress handler spends
/// one call per `stepsPerCall` steps and interrupts SQLite when none are left.
final class WorkBudget: Sendable {
    static let stepsPerCall = 1000
    let limit: Int
    /// The calls left, and whether they ran out: SQLite calls `spend` on the thread that steps
    /// the statement, the reader asks `exhausted` after (one lock per thousand steps).
    private let state: Locked<(calls: Int, exhausted: Bool)>

    init(operations: Int) {
        limit = operations
        state = Locked((operations / Self.stepsPerCall, false))
    }

    var exhausted: Bool { state.withLock { $0.exhausted } }

    /// 1 (interrupt) once the budget is spent.
    func spend() -> Int32 {
        state.withLock { s in
            s.calls -= 1
            if s.calls < 0 { s.exhausted = true }
            return s.exhausted ? 1 : 0
        }
    }
}
