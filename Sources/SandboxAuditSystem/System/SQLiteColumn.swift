import CSQLite

/// A column of the current row of a prepared SQLite statement, copied out of SQLite's memory
/// (valid only until the next step) into arrays: what `ManifestDatabase` reads of each row of a
/// `Manifest.db`. The interface: "Result Values From A Query",
/// https://www.sqlite.org/c3ref/column_blob.html (the pointer first, then its size).
package enum SQLiteColumn {
    /// The column's text as its bytes (empty for NULL).
    package static func text(_ statement: OpaquePointer, _ index: Int32) -> [UInt8] {
        let start = sqlite3_column_text(statement, index)
        return Array(UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, index))))
    }

    /// The column's text as `String(cString:)` reads it (up to a NUL, bytes that are not UTF-8
    /// repaired); nil for NULL. SQLite's text ends with a NUL (`sqlite3_column_text`).
    package static func string(_ statement: OpaquePointer, _ index: Int32) -> String? {
        sqlite3_column_text(statement, index).map { String(cString: $0) }
    }

    /// The column as bytes, copied once from SQLite's memory; nil for NULL.
    package static func bytes(_ statement: OpaquePointer, _ index: Int32) -> [UInt8]? {
        guard sqlite3_column_type(statement, index) != SQLITE_NULL else { return nil }
        guard let start = sqlite3_column_blob(statement, index) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, index))))
    }

    /// Appends the column's bytes as a blob to `buffer` (nothing for an empty blob).
    package static func appendBlob(_ statement: OpaquePointer, _ index: Int32, to buffer: inout [UInt8]) {
        if let start = sqlite3_column_blob(statement, index) {
            buffer.append(
                contentsOf: UnsafeRawBufferPointer(start: start, count: Int(sqlite3_column_bytes(statement, index))))
        }
    }
}
