import SandboxAuditSystem

/// Where an encrypted backup's password comes from: `--password-file FILE`, else the
/// environment variable `SANDBOX_AUDIT_BACKUP_PASSWORD`, else nowhere. Never from the command
/// line itself (other users see a process's arguments), and never printed: the errors here
/// name the file, not what it holds.
public enum BackupPassword {
    /// The environment variable read when no password file is given.
    public static let environmentVariable = "SANDBOX_AUDIT_BACKUP_PASSWORD"
    /// A password file larger than this (4 KiB) is refused unread.
    static let maximumFileBytes = 4096

    /// The password: the first line of `passwordFile` (its line ending dropped) when one is
    /// given, else the environment variable's value when set and not empty, else nil.
    /// Throws a one-line `InputError` when the file cannot be read, is not a regular file, is
    /// over 4 KiB, is not UTF-8 text, or its first line is empty; and when the environment
    /// variable's value is not UTF-8.
    public static func resolve(passwordFile: String?, environment: [String: String]) throws -> String? {
        if let path = passwordFile {
            let bytes: [UInt8]
            do {
                bytes = try BoundedRead.file(Array(path.utf8), limit: maximumFileBytes, followSymlink: true)
            } catch let failure as BoundedRead.Failure {
                if case .tooLarge = failure {
                    throw InputError(
                        "password file \(path): over the limit of \(maximumFileBytes) bytes (the password is its "
                            + "first line)"
                    )
                }
                throw InputError("password file \(path): \(failure)")
            }
            let firstLine = bytes.prefix { $0 != UInt8(ascii: "\n") }
            let line = firstLine.last == UInt8(ascii: "\r") ? firstLine.dropLast() : firstLine
            guard !line.isEmpty else {
                throw InputError("password file \(path): its first line is empty (the password is its first line)")
            }
            let password = String(decoding: line, as: UTF8.self)
            guard password.utf8.elementsEqual(line) else {
                throw InputError("password file \(path): its first line is not UTF-8 text")
            }
            return password
        }
        if let password = environment[environmentVariable], !password.isEmpty {
            // The environment is bytes; Foundation's dictionary repairs what is not UTF-8. The
            // password is taken as UTF-8 text (the key comes from its UTF-8 bytes), and a
            // repaired one could only give a wrong key: refused, as a password file's would be.
            if let raw = Environment.bytes(environmentVariable), ByteText.utf8String(raw) == nil,
                String(decoding: raw, as: UTF8.self) == password
            {
                throw InputError(
                    "the environment variable \(environmentVariable) is not UTF-8 text: a backup password is text, "
                        + "and its key is derived from its UTF-8 bytes"
                )
            }
            return password
        }
        return nil
    }
}
