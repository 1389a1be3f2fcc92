import CSQLite
import Foundation

/// The bytes SQLite reads of one `Manifest.db`, page by page as it asks for them: `pread` from
/// the descriptor held for the file (decrypted block by block for an encrypted backup), the
/// pages of a committed `-wal` laid over them, and bytes 18 and 19 of a database last written
/// in WAL mode read as 1 (a rollback-journal database: the WAL is applied here, not by SQLite).
/// Nothing of the file is held but SQLite's own page cache. (SandboxAuditCore's
/// `ManifestDatabase` opens the file and decides what it is; SQLite's buffers are filled here.)
package final class ManifestPages: @unchecked Sendable {
    /// Fills a buffer from a byte offset of the database as stored (decrypted); the count read.
    typealias Read = (UnsafeMutableRawBufferPointer, Int64) throws -> Int

    /// Where the stored database's bytes come from: the file itself (`pread` of its descriptor),
    /// or bytes made at an offset (decrypted), as many as asked for or fewer at its end.
    package enum Stored {
        case descriptor(FileDescriptor)
        case bytes((_ offset: Int64, _ count: Int) throws -> ArraySlice<UInt8>)
    }

    package let label: String
    /// What SQLite sees: the file's size as decided from its header, or the WAL commit's pages.
    package private(set) var length: Int64
    /// The bytes the stored database holds (beyond them, to `length`, zeros or WAL pages).
    let storedLength: Int64
    private let readStored: Read
    private let close: () -> Void
    private var walPages: [UInt32: Int] = [:]
    private var readWAL: Read?
    private var closeWAL: () -> Void = {}
    private var pageSize = 0
    /// Bytes 18 and 19 are read as 1.
    private var markedRollback = false
    /// The first read that failed, as one line: what a SQLite I/O error is reported as.
    package private(set) var failure: InputError?

    package init(label: String, length: Int64, stored: Stored, close: @escaping () -> Void) {
        self.label = label
        self.length = length
        storedLength = length
        switch stored {
        case .descriptor(let fd):
            readStored = { out, offset in
                do throws(Errno) { return try fd.read(filling: out, at: offset) } catch {
                    throw InputError("cannot read \(label): \(errorText(error.code).lowercased())")
                }
            }
        case .bytes(let bytes):
            readStored = { out, offset in
                let got = try bytes(offset, out.count)
                let n = min(got.count, out.count)
                out.copyBytes(from: got.prefix(n))
                return n
            }
        }
        self.close = close
    }

    deinit {
        close()
        closeWAL()
    }

    /// Lays a WAL commit's pages (`walPages`: page number to offset, read through `wal`, which
    /// `closeWAL` closes with this) over the database, which has `pageSize`-byte pages and
    /// `databasePages` of them from now on.
    package func apply(
        walPages: [UInt32: Int], databasePages: UInt32, pageSize: Int, wal: FileDescriptor,
        closeWAL: @escaping () -> Void
    ) {
        self.walPages = walPages.filter { $0.key <= databasePages }
        readWAL = { buffer, offset in try wal.read(filling: buffer, at: offset) }
        self.closeWAL = closeWAL
        self.pageSize = pageSize
        length = Int64(databasePages) * Int64(pageSize)
    }

    /// `read` into `bytes` (from its start, `bytes.count` of them): SQLITE_OK, or an error code.
    package func read(into bytes: inout [UInt8], at offset: Int64) -> Int32 {
        bytes.withUnsafeMutableBytes { read($0, at: offset) }
    }

    /// Reads the first bytes as SQLite will see them, and marks a WAL-mode header to be read as a
    /// rollback-journal one.
    package func header() throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(min(100, length)))
        let code = bytes.withUnsafeMutableBytes { read($0, at: 0) }
        if code != SQLITE_OK, code != ManifestVFS.shortRead { throw failure ?? InputError("cannot read \(label)") }
        markedRollback = bytes.count > 19 && (bytes[18] == 2 || bytes[19] == 2)
        return bytes
    }

    /// SQLite's xRead: `out.count` bytes at `offset`, zeros past the end (then a short read).
    func read(_ out: UnsafeMutableRawBufferPointer, at offset: Int64) -> Int32 {
        let end = offset + Int64(out.count)
        let stored = Int(max(0, min(end, storedLength, length) - offset))
        if stored > 0 {
            let n: Int
            do { n = try readStored(UnsafeMutableRawBufferPointer(rebasing: out[0..<stored]), offset) } catch {
                failure = failure ?? (error as? InputError) ?? InputError("cannot read \(label): \(error)")
                return ManifestVFS.readError
            }
            guard n == stored else {
                failure =
                    failure
                    ?? InputError("cannot read \(label): it was cut to \(offset + Int64(n)) bytes while it was read")
                return ManifestVFS.readError
            }
        }
        if stored < out.count {
            UnsafeMutableRawBufferPointer(rebasing: out[stored...]).initializeMemory(as: UInt8.self, repeating: 0)
        }
        if !walPages.isEmpty, end > offset, let readWAL {
            let size = Int64(pageSize)
            for index in offset / size...(end - 1) / size {
                guard let at = walPages[UInt32(index + 1)] else { continue }
                let from = max(offset, index * size)
                let to = min(end, (index + 1) * size)
                let part = UnsafeMutableRawBufferPointer(rebasing: out[Int(from - offset)..<Int(to - offset)])
                let n: Int
                do { n = try readWAL(part, Int64(at) + (from - index * size)) } catch {
                    failure = failure ?? InputError("cannot read \(label)-wal: \(error)")
                    return ManifestVFS.readError
                }
                guard n == part.count else {
                    failure = failure ?? InputError("cannot read \(label)-wal: it was cut while it was read")
                    return ManifestVFS.readError
                }
            }
        }
        if markedRollback {
            for i in 18...19 where Int64(i) >= offset && Int64(i) < end { out[i - Int(offset)] = 1 }
        }
        return end > length ? ManifestVFS.shortRead : SQLITE_OK
    }
}

/// A read-only SQLite VFS whose only files are `ManifestPages`: SQLite never opens a path
/// itself, so no journal, `-wal` or `-shm` file can be read or created beside `Manifest.db`.
/// Every file says it is immutable (no locks, no hot-journal check), none has a journal or a
/// WAL, writes are refused, and a file name that is not a token `connect` handed out (a
/// temporary file, say) cannot be opened. Registered once per process, never as the default.
/// The interface: "The OS Interface Object", https://www.sqlite.org/c3ref/vfs.html, and
/// "OS Interface Open File Handle", https://www.sqlite.org/c3ref/io_methods.html.
package enum ManifestVFS {
    static let name = "sandbox-audit-manifest"
    /// SQLITE_IOERR_READ and SQLITE_IOERR_SHORT_READ (macros Swift does not import).
    static let readError = SQLITE_IOERR | (1 << 8), shortRead = SQLITE_IOERR | (2 << 8)

    /// Opens a read-only connection to `pages`.
    package static func connect(_ pages: ManifestPages) throws -> OpaquePointer {
        _ = registered
        lock.lock()
        counter += 1
        let token = "manifest-\(counter)"
        files[token] = pages
        lock.unlock()
        defer {
            lock.lock()
            files[token] = nil
            lock.unlock()
        }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(token, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, name)
        guard code == SQLITE_OK, let connection else {
            let message =
                connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close(connection)
            throw pages.failure ?? InputError("cannot read \(pages.label): SQLite refused it (\(message))")
        }
        return connection
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var counter = 0
    nonisolated(unsafe) private static var files: [String: ManifestPages] = [:]
    /// The platform's VFS, for what has nothing to do with files (randomness, sleep, time).
    nonisolated(unsafe) private static let system = sqlite3_vfs_find(nil)!
    /// The `sqlite3_file` SQLite allocates for each file, and the retained `ManifestPages` after it.
    private static let pagesOffset = MemoryLayout<sqlite3_file>.stride

    private static func pages(_ file: UnsafeMutablePointer<sqlite3_file>?) -> ManifestPages {
        let raw = UnsafeMutableRawPointer(file!).advanced(by: pagesOffset).load(as: UnsafeMutableRawPointer.self)
        return Unmanaged<ManifestPages>.fromOpaque(raw).takeUnretainedValue()
    }

    nonisolated(unsafe) private static let methods: UnsafeMutablePointer<sqlite3_io_methods> = {
        var m = sqlite3_io_methods()
        m.iVersion = 1
        m.xClose = { file in
            let raw = UnsafeMutableRawPointer(file!).advanced(by: pagesOffset).load(as: UnsafeMutableRawPointer.self)
            Unmanaged<ManifestPages>.fromOpaque(raw).release()
            return SQLITE_OK
        }
        m.xRead = { file, buffer, count, offset in
            pages(file).read(UnsafeMutableRawBufferPointer(start: buffer, count: Int(count)), at: offset)
        }
        m.xWrite = { _, _, _, _ in SQLITE_READONLY }
        m.xTruncate = { _, _ in SQLITE_READONLY }
        m.xSync = { _, _ in SQLITE_OK }
        m.xFileSize = { file, size in
            size!.pointee = pages(file).length
            return SQLITE_OK
        }
        m.xLock = { _, _ in SQLITE_OK }
        m.xUnlock = { _, _ in SQLITE_OK }
        m.xCheckReservedLock = { _, out in
            out!.pointee = 0
            return SQLITE_OK
        }
        m.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
        m.xSectorSize = { _ in 4096 }
        m.xDeviceCharacteristics = { _ in SQLITE_IOCAP_IMMUTABLE }
        let p = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        p.initialize(to: m)
        return p
    }()

    nonisolated(unsafe) private static let registered: UnsafeMutablePointer<sqlite3_vfs> = {
        var v = sqlite3_vfs()
        v.iVersion = 1
        v.szOsFile = Int32(pagesOffset + MemoryLayout<UnsafeMutableRawPointer>.stride)
        v.mxPathname = 512
        v.zName = UnsafePointer(strdup(name))
        v.xOpen = { _, name, file, _, outFlags in
            file!.pointee.pMethods = nil
            guard let name else { return SQLITE_CANTOPEN }
            lock.lock()
            let pages = files[String(cString: name)]
            lock.unlock()
            guard let pages else { return SQLITE_CANTOPEN }
            UnsafeMutableRawPointer(file!).advanced(by: pagesOffset).storeBytes(
                of: Unmanaged.passRetained(pages).toOpaque(), as: UnsafeMutableRawPointer.self)
            file!.pointee.pMethods = UnsafePointer(methods)
            outFlags?.pointee = SQLITE_OPEN_READONLY
            return SQLITE_OK
        }
        v.xDelete = { _, _, _ in SQLITE_IOERR | (10 << 8) }
        // No journal, WAL or shared-memory file exists beside a Manifest.db read here.
        v.xAccess = { _, _, _, out in
            out!.pointee = 0
            return SQLITE_OK
        }
        v.xFullPathname = { _, name, count, out in
            let n = strlen(name!)
            guard n < Int(count) else { return SQLITE_CANTOPEN }
            memcpy(out!, name!, n + 1)
            return SQLITE_OK
        }
        v.xRandomness = { _, count, out in system.pointee.xRandomness(system, count, out) }
        v.xSleep = { _, microseconds in system.pointee.xSleep(system, microseconds) }
        v.xCurrentTime = { _, out in system.pointee.xCurrentTime(system, out) }
        v.xGetLastError = { _, _, _ in 0 }
        let p = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        p.initialize(to: v)
        sqlite3_vfs_register(p, 0)
        return p
    }()
}
