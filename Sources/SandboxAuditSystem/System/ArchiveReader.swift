import CLibArchive
import Crypto
import Foundation

/// The one place that calls libarchive: the archive as it reads it, members with their headers
/// and the bytes kept of them (what the members mean is `ArchiveWalk`'s, in SandboxAuditCore).
package final class ArchiveReader {
    private let archive: OpaquePointer
    private let source: Source
    package let location: String

    /// Per-value and per-member limits on pax attribute records (Linux caps a value at 64 KiB).
    package static let maximumAttributeValue = 64 * 1024
    package static let maximumAttributes = 256

    /// A zip's names flagged UTF-8 are read in a UTF-8 locale (this thread's only, while
    /// libarchive runs): in the "C" locale libarchive gives NULL for every non-ASCII one
    /// (`sandbox_audit_utf8_ctype_locale`). Only for a zip: converting from UTF-8, libarchive
    /// also normalises (NFC; NFD on macOS), which would change a tar's exact pax names,
    /// while a flagged zip name has no other reading (docs/limits.md).
    nonisolated(unsafe) static let utf8Locale = sandbox_audit_utf8_ctype_locale()
    private var readsZip = false

    /// Runs `body` with this thread's character type UTF-8 when the archive is a zip.
    package func inUTF8<T>(_ body: () throws -> T) rethrows -> T {
        guard readsZip, let locale = ArchiveReader.utf8Locale else { return try body() }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return try body()
    }

    /// Reads the archive `file` (opened once, `ArchiveWalk.open`) from its first byte,
    /// through a duplicate of its descriptor: a second reading (simulate --into) reads the
    /// same open file as the scan, whatever its name leads to by then. `location` names it
    /// in messages.
    ///
    /// The scan's reading (`checked` false) records what it reads (`ArchiveReadRecord`) when
    /// `recording` (a second reading is to come); a second reading (`checked` true) is given no
    /// byte the scan read that now differs: it fails with `changedError` instead, and it is
    /// refused outright when the scan recorded nothing.
    package init(_ location: String, file: ArchiveSnapshot, checked: Bool = false, recording: Bool = true) throws {
        let runs = checked ? file.record.finished() : nil
        if checked, runs == nil {
            throw InputError(
                "cannot read \(location) again: its scan did not record what it read, so a change since could not be "
                    + "told"
            )
        }
        guard let a = archive_read_new() else { throw InputError("cannot read \(location): out of memory") }
        archive = a
        self.location = location
        let opened = Result { () throws(Errno) in try file.file.rewound() }
        let check: Source.Check
        if let runs {
            check = .verify(runs)
        } else if recording {
            file.record.reset()
            check = .record(file.record)
        } else {
            file.record.forget()
            check = .none
        }
        source = Source(fd: try? opened.get(), check: check)
        // On failure deinit frees the archive: it runs once every property is set.
        if case .failure(let e) = opened { throw InputError("cannot read \(location): \(errorText(e.code))") }
        var magic = [UInt8](repeating: 0, count: 4)
        let got = magic.withUnsafeMutableBytes { b in (try? source.fd?.read(into: b, at: 0)) ?? 0 }
        readsZip = got == 4 && (magic == [0x50, 0x4B, 0x03, 0x04] || magic == [0x50, 0x4B, 0x05, 0x06])
        archive_read_support_filter_all(a)
        archive_read_support_format_tar(a)
        archive_read_support_format_gnutar(a)
        archive_read_support_format_zip(a)
        archive_read_set_seek_callback(a) { _, client, offset, whence in Source.of(client).seek(offset, whence) }
        guard
            inUTF8({
                archive_read_open2(
                    a, Unmanaged.passUnretained(source).toOpaque(), nil,
                    { _, client, out in Source.of(client).read(out) },
                    { _, client, request in Source.of(client).skip(request) }, nil)
            }) == ARCHIVE_OK
        else {
            if source.changed { throw changedError }
            throw InputError("cannot read \(location) as a tar or zip archive: \(errorString)")
        }
    }

    /// libarchive's reader goes with this one (also when `init` throws once every property is
    /// set, as its comment says): nothing freed it, so each reading kept its buffers until exit.
    deinit { archive_read_free(archive) }

    /// The archive file, read in blocks that start small after every skip and double while
    /// libarchive keeps reading. libarchive's own file reader reads 64 KiB for every member
    /// header of an uncompressed tar (about 1.7 GB copied to list a 2 GB archive of 20 kB
    /// files), where a header needs 512 bytes; compressed streams still get large reads.
    final class Source {
        let fd: FileDescriptor?
        static let smallest = 1024, largest = 1 << 20
        var blockSize = smallest
        var failure: Int32 = 0
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: largest, alignment: 16)
        /// The file's size and the read position, for refusing to skip past the end.
        let size: Int64
        var position: Int64 = 0
        /// What is done with the bytes read: recorded (the scan), or checked against the
        /// scan's record (a second reading); `changed` once a check failed.
        enum Check {
            case none
            case record(ArchiveReadRecord)
            case verify(ArchiveReadRecord.Runs)
        }
        let check: Check
        var changed = false

        init(fd: FileDescriptor?, check: Check) {
            self.fd = fd
            self.check = check
            let status = try? fd?.status()
            size = status?.kind == .regular ? status!.size : -1
        }
        deinit {
            buffer.deallocate()
            fd?.close()
        }

        static func of(_ client: UnsafeMutableRawPointer?) -> Source {
            Unmanaged<Source>.fromOpaque(client!).takeUnretainedValue()
        }

        /// A regular file is read at `position` (pread): a skip or a seek is then no system
        /// call at all, only a new position. Anything else is read where it stands.
        func read(_ out: UnsafeMutablePointer<UnsafeRawPointer?>?) -> Int {
            guard let fd else {
                failure = EBADF
                return -1
            }
            if case .verify(let runs) = check, size >= 0 { return readChecked(out, fd: fd, runs: runs) }
            let n: Int
            let block = UnsafeMutableRawBufferPointer(start: buffer, count: blockSize)
            let at = position
            switch Result(catching: { () throws(Errno) in
                try size >= 0 ? fd.read(into: block, at: at) : fd.read(into: block)
            }) {
            case .success(let count): n = count
            case .failure(let e):
                failure = e.code
                return -1
            }
            position += Int64(n)
            out?.pointee = UnsafeRawPointer(buffer)
            blockSize = min(blockSize * 2, Source.largest)
            if case .record(let record) = check, n > 0 {
                record.add(UnsafeRawBufferPointer(start: buffer, count: n), at: at)
            }
            return n
        }

        /// A second reading of a regular file: where the position lies in a run the scan
        /// read, that whole run is read again (into the buffer, at most `largest` bytes) and
        /// given from the position only if its SHA-256 is the scan's; elsewhere (the data
        /// of members the scan skipped) up to the next such run, as above.
        private func readChecked(
            _ out: UnsafeMutablePointer<UnsafeRawPointer?>?, fd: FileDescriptor, runs: ArchiveReadRecord.Runs
        ) -> Int {
            let at = position
            guard let run = runs.covering(at) else {
                let limit = runs.start(after: at).map { Int(min(Int64(blockSize), $0 - at)) } ?? blockSize
                let block = UnsafeMutableRawBufferPointer(start: buffer, count: limit)
                let n: Int
                switch Result(catching: { () throws(Errno) in try fd.read(into: block, at: at) }) {
                case .success(let count): n = count
                case .failure(let e):
                    failure = e.code
                    return -1
                }
                position += Int64(n)
                out?.pointee = UnsafeRawPointer(buffer)
                blockSize = min(blockSize * 2, Source.largest)
                return n
            }
            var got = 0
            reading: while got < run.count {
                let rest = UnsafeMutableRawBufferPointer(start: buffer + got, count: run.count - got)
                let from = run.start + Int64(got)
                switch Result(catching: { () throws(Errno) in try fd.read(into: rest, at: from) }) {
                case .success(let count) where count > 0: got += count
                case .success: break reading  // the end of the file: it is shorter than it was
                case .failure(let e):
                    failure = e.code
                    return -1
                }
            }
            var hasher = SHA256()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: buffer, count: got))
            guard got == run.count, hasher.finalize() == run.digest else {
                changed = true
                failure = EIO
                return -1
            }
            let skipped = Int(at - run.start)
            position = run.start + Int64(run.count)
            out?.pointee = UnsafeRawPointer(buffer + skipped)
            return run.count - skipped
        }

        /// Skips by seeking; 0 (nothing skipped) makes libarchive read through instead, as
        /// for a skip past the end (so that a truncated archive reads as truncated) or where
        /// the file cannot seek.
        func skip(_ request: Int64) -> Int64 {
            blockSize = Source.smallest
            guard fd != nil, size >= 0, request >= 0, request <= size - position else { return 0 }
            position += request
            return request
        }

        /// lseek(2)'s arithmetic on `position` for a regular file; anything else is asked.
        func seek(_ offset: Int64, _ whence: Int32) -> Int64 {
            blockSize = Source.smallest
            guard size >= 0 else {
                guard let r = try? fd?.seek(offset, from: whence) else { return Int64(ARCHIVE_FATAL) }
                position = r
                return r
            }
            let base: Int64
            switch whence {
            case SEEK_SET: base = 0
            case SEEK_CUR: base = position
            case SEEK_END: base = size
            default: return Int64(ARCHIVE_FATAL)
            }
            guard fd != nil else { return Int64(ARCHIVE_FATAL) }
            let (target, overflow) = base.addingReportingOverflow(offset)
            guard !overflow, target >= 0 else { return Int64(ARCHIVE_FATAL) }
            position = target
            return target
        }
    }

    /// A second reading met bytes the scan read that are no longer what it read.
    var changedError: InputError {
        InputError(
            "\(location) changed since it was scanned (bytes the scan read differ now): refusing to copy from it")
    }

    var errorString: String {
        if source.failure != 0 { return errorText(source.failure) }
        return archive_error_string(archive).map { String(cString: $0) } ?? "unknown error"
    }

    /// The next member's header, with up to `keep(path, size)` bytes of its data; nil at the
    /// end. An attribute `unbounded(name)` says the caller must see is kept past the limits
    /// below (its value cut one byte past `maximumAttributeValue`). Throws on a corrupt or
    /// truncated archive.
    package func next(keep: ([UInt8], Int64) -> Int, unbounded: (String) -> Bool) throws -> Member? {
        try inUTF8 { try nextMember(keep: keep, unbounded: unbounded) }
    }

    private func nextMember(keep: ([UInt8], Int64) -> Int, unbounded: (String) -> Bool) throws -> Member? {
        var entry: OpaquePointer?
        let rc = archive_read_next_header(archive, &entry)
        if rc == ARCHIVE_EOF { return nil }
        guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN, let e = entry else {
            if source.changed { throw changedError }
            throw InputError("\(location) is damaged or truncated: \(errorString)")
        }
        func bytes(_ p: UnsafePointer<CChar>?) -> [UInt8]? {
            p.map {
                Array(
                    UnsafeBufferPointer(
                        start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0)))
            }
        }
        // A name as libarchive gives it in this locale (a tar's: its stored bytes), else its
        // UTF-8 form. A name neither gives (a flagged zip name that is not UTF-8) or an
        // empty one is reported (`nameless`), never dropped in silence.
        var path = bytes(archive_entry_pathname(e)) ?? bytes(archive_entry_pathname_utf8(e))
        if readsZip, let p = path { path = ArchiveReader.zipName(p) }
        var member = Member(
            path: path ?? [], type: UInt32(archive_entry_filetype(e)),
            size: Int64(archive_entry_size(e)), mode: UInt32(archive_entry_perm(e)),
            mtime: Int64(archive_entry_mtime(e)), mtimeNanoseconds: Int32(archive_entry_mtime_nsec(e)),
            symlink: bytes(archive_entry_symlink(e)) ?? bytes(archive_entry_symlink_utf8(e)),
            hardlink: bytes(archive_entry_hardlink(e)) ?? bytes(archive_entry_hardlink_utf8(e)),
            xattrs: [], data: nil)
        if path == nil || path!.isEmpty {
            member.nameless = rc == ARCHIVE_WARN ? errorString : "the member has no name"
        }
        archive_entry_xattr_reset(e)
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        // bsdtar writes each attribute twice, LIBARCHIVE.xattr (base64, exact) first and
        // SCHILY.xattr second, and libarchive decodes both in that order: keep the first.
        // Bounded (docs/limits.md): at most `maximumAttributeValue` bytes copied per value
        // and `maximumAttributes` attributes kept per member. A backup attribute's value
        // over the limit is kept cut one byte past it, so it is reported as unrecognised
        // (its presence still excludes); any other oversized value is dropped (no Linux
        // file system could hold it).
        var seen = 0
        while archive_entry_xattr_next(e, &name, &value, &size) == ARCHIVE_OK {
            guard let name else { continue }
            seen += 1
            let key = String(cString: name)
            let isBackup = unbounded(key)
            guard isBackup || (seen <= Self.maximumAttributes && size <= Self.maximumAttributeValue) else { continue }
            guard !member.xattrs.contains(where: { $0.0 == key }) else { continue }
            let kept = min(max(size, 0), Self.maximumAttributeValue + 1)
            let v = value.map { Array(UnsafeRawBufferPointer(start: $0, count: kept)) } ?? []
            member.xattrs.append((key, v))
        }
        let wanted = member.type == FileType.reg ? keep(member.path, member.size) : 0
        if wanted > 0 {
            var buffer = [UInt8](repeating: 0, count: wanted)
            var got = 0
            while got < wanted {
                let n = buffer[got...].withUnsafeMutableBytes { archive_read_data(archive, $0.baseAddress, $0.count) }
                if n < 0 {
                    throw source.changed
                        ? changedError : InputError("\(location) is damaged or truncated: \(errorString)")
                }
                if n == 0 { break }
                got += n
            }
            member.data = Array(buffer[0..<got])
        }
        return member
    }

    /// Writes the current member's data (what `next` has not consumed already) through
    /// `writer`, block by block at their offsets in the file (sparse members skip their holes),
    /// calling `eachBlock` before each. Throws on a corrupt or truncated archive, or what the
    /// writer or `eachBlock` throws.
    package func writeData(to writer: inout HoleKeepingWriter, eachBlock: () throws -> Void) throws {
        try inUTF8 {
            try readBlocks { block, offset in
                try eachBlock()
                try writer.write(block, at: offset)
            }
        }
    }

    private func readBlocks(_ body: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
        var buffer: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        while true {
            let rc = archive_read_data_block(archive, &buffer, &size, &offset)
            if rc == ARCHIVE_EOF { return }
            guard rc == ARCHIVE_OK || rc == ARCHIVE_WARN else {
                if source.changed { throw changedError }
                throw InputError("\(location) is damaged or truncated: \(errorString)")
            }
            if size > 0 { try body(UnsafeRawBufferPointer(start: buffer, count: size), Int64(offset)) }
        }
    }

    /// A zip member's name as every system reads it: NFC. libarchive normalises a name it
    /// converts from UTF-8 to NFC on Linux and to NFD on Apple's systems, so the same zip gave a
    /// Linux baseline and a Mac scan different path bytes; NFC is what Linux's libarchive gives.
    /// ASCII names, and bytes that are not UTF-8, are kept as they are (a tar's names are never
    /// passed here: they are their stored bytes).
    package static func zipName(_ name: [UInt8]) -> [UInt8] {
        guard name.contains(where: { $0 >= 0x80 }), let text = ByteText.utf8String(name) else { return name }
        let nfc = Array(text.precomposedStringWithCanonicalMapping.utf8)
        return nfc == name ? name : nfc
    }
}

extension ArchiveReader {
    /// libarchive's AE_IF* file types (from its header, through the shim: cast macros, which
    /// Swift does not import).
    package enum FileType {
        package static let reg = UInt32(sandbox_audit_ae_ifreg), dir = UInt32(sandbox_audit_ae_ifdir),
            lnk = UInt32(sandbox_audit_ae_iflnk)
        package static let fifo = UInt32(sandbox_audit_ae_ififo), sock = UInt32(sandbox_audit_ae_ifsock)
        package static let chr = UInt32(sandbox_audit_ae_ifchr), blk = UInt32(sandbox_audit_ae_ifblk)
    }

    /// One archive member, as read.
    package struct Member: Sendable {
        package var path: [UInt8]
        package var type: UInt32
        package var size: Int64
        package var mode: UInt32
        package var mtime: Int64
        package var mtimeNanoseconds: Int32
        package var symlink: [UInt8]?
        package var hardlink: [UInt8]?
        package var xattrs: [(String, [UInt8])]
        /// Small contents kept: sidecars, identity plists; the first bytes of other files.
        package var data: [UInt8]?
        /// Why a sidecar member could not be parsed (its data is then dropped).
        package var sidecarError: String?
        /// Why the member has no name (it cannot be placed: the walk reports it).
        package var nameless: String?
    }
}
