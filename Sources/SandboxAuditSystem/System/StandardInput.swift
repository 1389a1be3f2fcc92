#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard input (descriptor 0) as an archive input, `scan -`: read once, and then held like a
/// named archive, so that every later reading (the walk, `simulate --into`'s second pass) goes
/// from its first byte through a descriptor of its own.
package enum StandardInput {
    /// The most bytes a pipe's archive may hold: what is copied is held on disk in a temporary
    /// file until the run ends (docs/limits.md).
    package static let spoolLimit: Int64 = 16 << 30

    /// Standard input, held. A regular file (`scan - < app.tar`) is held as it is, through a
    /// duplicate of descriptor 0 read from offset 0. A pipe, a FIFO or a socket is read once to
    /// its end, as the bytes arrive, into a temporary file that has no name (created in TMPDIR,
    /// or /tmp, and removed at once), at most `limit` bytes; that file is held. A terminal, and
    /// a descriptor 0 that is closed, are refused.
    package static func held(limit: Int64 = spoolLimit) throws(InputError) -> HeldDescriptor {
        let input = FileDescriptor(rawValue: 0)
        if isatty(0) == 1 {
            throw InputError("standard input is a terminal: pipe a tar or zip archive into 'sandbox-audit scan -' (e.g. tar -cf - -C DIR . | sandbox-audit scan -)")
        }
        let status: FileStatus
        do { status = try input.status() } catch {
            throw InputError("cannot read standard input: \(errorText(error.code))")
        }
        if status.kind == .regular {
            do {
                let held = HeldDescriptor(try input.duplicate())
                _ = try held.descriptor.seek(0, from: SEEK_SET)
                return held
            } catch {
                throw InputError("cannot read standard input: \(errorText(error.code))")
            }
        }
        if status.kind == .directory {
            throw InputError("cannot read standard input: it is a folder, not an archive")
        }
        let spool = try anonymousFile()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total: Int64 = 0
        while true {
            let read = buffer.withUnsafeMutableBytes { b in Result { () throws(Errno) in try input.read(into: b) } }
            guard case .success(let n) = read else {
                if case .failure(let e) = read { throw InputError("cannot read standard input: \(errorText(e.code))") }
                break
            }
            if n == 0 { break }
            if total + Int64(n) > limit {
                throw InputError("standard input holds more than \(ByteSize.format(limit)), the most an archive read from a pipe may hold (docs/limits.md); give the archive's path instead")
            }
            let written = buffer.withUnsafeBytes { b in
                Result { () throws(Errno) in try spool.descriptor.writeAll(UnsafeRawBufferPointer(rebasing: b[..<n]), at: total) }
            }
            if case .failure(let e) = written { throw InputError("cannot copy standard input to a temporary file: \(errorText(e.code))") }
            total += Int64(n)
        }
        return spool
    }

    /// A new file that no name reaches: made with mkstemp in TMPDIR (or /tmp), then unlinked.
    static func anonymousFile() throws(InputError) -> HeldDescriptor {
        var dir = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        if dir.isEmpty { dir = "/tmp" }
        if dir.hasSuffix("/") { dir.removeLast() }
        var template = Array((dir + "/sandbox-audit-stdin-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw InputError("cannot make a temporary file in \(dir) for standard input: \(errorText(errno))")
        }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return HeldDescriptor(FileDescriptor(rawValue: fd))
    }
}
