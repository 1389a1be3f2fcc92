#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input (descriptor 0) as an archive input, `scan -`: read once, and then held like a
/// named archive, so that every later reading (the walk, `simulate --into`'s second pass) goes
/// from its first byte through a descriptor of its own.
package enum StandardInput {
    /// The most bytes a pipe's archive may hold unless `--stdin-limit` says otherwise: what is
    /// copied is held on disk in a temporary file until the run ends (docs/limits.md).
    package static let defaultLimit: Int64 = 4 << 30

    /// Standard input, held. A regular file (`scan - < app.tar`) is held as it is, through a
    /// duplicate of descriptor 0 read from offset 0. A pipe, a FIFO or a socket is first read
    /// until its first `signatureLength` bytes (or its end) are in memory, and refused, with
    /// nothing written anywhere, when it is empty or `recognises` does not take those bytes;
    /// then the rest is copied as it arrives into a temporary file that has no name (created in
    /// TMPDIR, or /tmp, and removed at once), at most `limit` bytes and at most half the free
    /// space of that file system, so that a runaway producer cannot fill a runner's disk. That
    /// file is held. A terminal, a folder, and a descriptor 0 that is closed, are refused.
    package static func held(
        limit: Int64 = defaultLimit, signatureLength: Int,
        recognises: ([UInt8]) -> Bool
    ) throws(InputError) -> HeldDescriptor {
        let input = FileDescriptor(rawValue: 0)
        if isatty(0) == 1 {
            throw InputError(
                "standard input is a terminal: pipe a tar or zip archive into 'sandbox-audit scan -' (e.g. tar -cf - "
                    + "-C DIR . | sandbox-audit scan -)"
            )
        }
        let status: FileStatus
        do { status = try input.status() } catch {
            throw InputError("cannot read standard input: \(errorText(error.code))")
        }
        if status.kind == .directory {
            throw InputError("cannot read standard input: it is a folder, not an archive")
        }
        if status.kind == .regular {
            let held: HeldDescriptor
            do {
                held = HeldDescriptor(try input.duplicate())
                _ = try held.descriptor.seek(0, from: SEEK_SET)
            } catch {
                throw InputError("cannot read standard input: \(errorText(error.code))")
            }
            var head = [UInt8](repeating: 0, count: signatureLength)
            let n = (try? held.descriptor.read(into: &head, range: 0..<signatureLength, at: 0)) ?? 0
            try check(Array(head[..<max(0, n)]), recognises)
            return held
        }
        // The first bytes, in memory: nothing is written before they are known to start an archive.
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while total < signatureLength {
            let read = buffer.withUnsafeMutableBytes { b in
                Result { () throws(Errno) in try input.read(into: UnsafeMutableRawBufferPointer(rebasing: b[total...]))
                }
            }
            guard case .success(let n) = read else {
                if case .failure(let e) = read { throw InputError("cannot read standard input: \(errorText(e.code))") }
                break
            }
            if n == 0 { break }
            total += n
        }
        try check(Array(buffer[..<min(total, signatureLength)]), recognises)
        let spool = try anonymousFile()
        var cap = limit
        var capacity = "--stdin-limit \(ByteSize.format(limit))"
        if let free = spool.descriptor.freeBytes(), free / 2 < cap {
            cap = free / 2
            capacity =
                "half the free space of the temporary folder's file system (\(ByteSize.format(free)) free; TMPDIR "
                + "chooses the folder)"
        }
        var written: Int64 = 0
        var pending = total
        while true {
            if pending > 0 {
                if written + Int64(pending) > cap {
                    throw InputError(
                        "standard input holds more than \(ByteSize.format(cap)), the most it may hold here: "
                            + "\(capacity) (docs/limits.md); give the archive's path instead"
                    )
                }
                let copied = buffer.withUnsafeBytes { b in
                    Result { () throws(Errno) in
                        try spool.descriptor.writeAll(UnsafeRawBufferPointer(rebasing: b[..<pending]), at: written)
                    }
                }
                if case .failure(let e) = copied {
                    throw InputError("cannot copy standard input to a temporary file: \(errorText(e.code))")
                }
                written += Int64(pending)
            }
            let read = buffer.withUnsafeMutableBytes { b in Result { () throws(Errno) in try input.read(into: b) } }
            guard case .success(let n) = read else {
                if case .failure(let e) = read { throw InputError("cannot read standard input: \(errorText(e.code))") }
                break
            }
            if n == 0 { break }
            pending = n
        }
        return spool
    }

    /// Refuses standard input that is empty or does not start as an archive.
    private static func check(_ head: [UInt8], _ recognises: ([UInt8]) -> Bool) throws(InputError) {
        if head.isEmpty {
            throw InputError(
                "standard input is empty: pipe a tar or zip archive into it (e.g. tar -cf - -C DIR . | sandbox-audit "
                    + "scan -)"
            )
        }
        if !recognises(head) {
            throw InputError(
                "standard input is not a tar or zip archive (its first bytes are no tar header and no gzip, bzip2, "
                    + "xz, zstd or zip signature): pipe one in (e.g. tar -cf - -C DIR . | sandbox-audit scan -)"
            )
        }
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
