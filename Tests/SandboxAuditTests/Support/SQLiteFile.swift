import CSQLite
import Foundation

/// A SQLite database file the tests write (a backup's `Manifest.db`), through SQLite's C
/// interface: the package's `CSQLite` module, the one the tool reads the file with.
final class SQLiteFile {
    /// A value bound to a statement's parameter.
    enum Value {
        case text(String)
        case integer(Int64)
        case blob([UInt8])
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private var connection: OpaquePointer?
    let path: String

    /// Opens the file at `path`, made when missing.
    init(_ path: String) throws {
        self.path = path
        let code = sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        guard code == SQLITE_OK else {
            defer {
                sqlite3_close_v2(connection)
                connection = nil
            }
            throw failure("open", code)
        }
    }

    deinit { sqlite3_close_v2(connection) }

    /// Runs one statement with `values` bound to its parameters, in order.
    func execute(_ sql: String, _ values: [Value] = []) throws {
        var prepared: OpaquePointer?
        var code = sqlite3_prepare_v2(connection, sql, -1, &prepared, nil)
        guard code == SQLITE_OK, let statement = prepared else { throw failure(sql, code) }
        defer { sqlite3_finalize(statement) }
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            switch value {
            case .text(let text): code = sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .integer(let number): code = sqlite3_bind_int64(statement, index, number)
            case .blob(let bytes) where bytes.isEmpty: code = sqlite3_bind_zeroblob(statement, index, 0)
            case .blob(let bytes):
                code = bytes.withUnsafeBytes {
                    sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient)
                }
            }
            guard code == SQLITE_OK else { throw failure(sql, code) }
        }
        repeat { code = sqlite3_step(statement) } while code == SQLITE_ROW
        guard code == SQLITE_DONE else { throw failure(sql, code) }
    }

    /// `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction(_ body: () throws -> Void) throws {
        try execute("BEGIN")
        do {
            try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
    }

    /// Closes the file: everything is on disk when it returns.
    func close() throws {
        let code = sqlite3_close(connection)
        guard code == SQLITE_OK else { throw failure("close", code) }
        connection = nil
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func failure(_ what: String, _ code: Int32) -> Failure {
        let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
        return Failure(description: "\(path): \(what): \(message) (SQLite code \(code))")
    }
}
