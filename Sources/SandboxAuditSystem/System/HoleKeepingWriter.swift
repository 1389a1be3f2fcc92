#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a member's data blocks at their offsets, leaving out the aligned 4 KiB pages that
/// are all zeros: the file is new, so they read as zeros anyway, and stay holes (libarchive
/// gives a sparse member's data blocks at their offsets; other members store holes as zeros,
/// in blocks of any size: a page cut between two blocks is gathered first). `simulate --into`
/// hands it to `ArchiveReader.writeData`: the blocks are libarchive's memory, so read here only.
package struct HoleKeepingWriter {
    static let page = 4096
    let fd: FileDescriptor
    let path: ContainerPath
    /// The start of a page not yet complete, and its bytes so far.
    private var pendingOffset: Int64 = 0
    private var pending: [UInt8] = []

    package init(fd: FileDescriptor, path: ContainerPath) {
        self.fd = fd
        self.path = path
        pending.reserveCapacity(Self.page)
    }

    mutating func write(_ block: UnsafeRawBufferPointer, at offset: Int64) throws {
        var block = block
        var offset = offset
        if !pending.isEmpty {
            if offset != pendingOffset + Int64(pending.count) {
                try flush()
            }  // a hole between blocks
            else {
                let take = min(block.count, Self.page - pending.count)
                pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: block[..<take]))
                block = UnsafeRawBufferPointer(rebasing: block[take...])
                offset += Int64(take)
                if pending.count == Self.page { try flush() }
                if block.isEmpty { return }
            }
        }
        // The head up to the first page boundary, when the block starts inside a page.
        let intoPage = Int(offset % Int64(Self.page))
        if intoPage != 0 {
            let head = min(block.count, Self.page - intoPage)
            try Self.writeAll(fd, UnsafeRawBufferPointer(rebasing: block[..<head]), at: offset, path: path)
            block = UnsafeRawBufferPointer(rebasing: block[head...])
            offset += Int64(head)
        }
        // Whole pages: the runs that hold data are written, the zero pages skipped.
        var start = 0
        var i = 0
        while i + Self.page <= block.count {
            if Self.isZero(UnsafeRawBufferPointer(rebasing: block[i..<(i + Self.page)])) {
                if i > start {
                    try Self.writeAll(
                        fd, UnsafeRawBufferPointer(rebasing: block[start..<i]), at: offset + Int64(start), path: path)
                }
                start = i + Self.page
            }
            i += Self.page
        }
        if i > start {
            try Self.writeAll(
                fd, UnsafeRawBufferPointer(rebasing: block[start..<i]), at: offset + Int64(start), path: path)
        }
        // The tail: the start of a page the next block may complete.
        if i < block.count {
            pendingOffset = offset + Int64(i)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: block[i...]))
        }
    }

    /// Writes the page gathered so far, unless it is all zeros.
    package mutating func flush() throws {
        defer { pending.removeAll(keepingCapacity: true) }
        guard !pending.isEmpty else { return }
        try pending.withUnsafeBytes { p in
            if !Self.isZero(p) { try Self.writeAll(fd, p, at: pendingOffset, path: path) }
        }
    }

    /// Writes all of `bytes` at `offset`, through short writes; a failure reports its own
    /// error (a write of nothing: no space left).
    private static func writeAll(
        _ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64, path: ContainerPath
    ) throws {
        try attempt("write", path.display) { () throws(Errno) in try fd.writeAll(bytes, at: offset) }
    }

    private static func isZero(_ p: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i + 8 <= p.count {
            if p.loadUnaligned(fromByteOffset: i, as: UInt64.self) != 0 { return false }
            i += 8
        }
        while i < p.count {
            if p[i] != 0 { return false }
            i += 1
        }
        return true
    }
}
