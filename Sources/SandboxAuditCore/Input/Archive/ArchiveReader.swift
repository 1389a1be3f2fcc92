import SandboxAuditSystem

/// The archive as libarchive reads it (`ArchiveReader`, SandboxAuditSystem: the one type that
/// calls libarchive): members with their headers and the bytes kept of them. What the members
/// mean (the data root, sidecars, the container) is ArchiveWalk's.
extension ArchiveWalk {
    package typealias Reader = ArchiveReader
    package typealias Member = ArchiveReader.Member
    package typealias FileType = ArchiveReader.FileType

    /// A zip member's name as every system reads it: NFC (`ArchiveReader.zipName`).
    package static func zipName(_ name: [UInt8]) -> [UInt8] { ArchiveReader.zipName(name) }
}

extension ArchiveReader {
    /// The next member's header, with up to `keep(path, size)` bytes of its data; nil at the
    /// end. A backup attribute is kept whatever the per-member limits (a value over the limit
    /// is cut one byte past it, so it is reported as unrecognised: its presence still excludes).
    /// Throws on a corrupt or truncated archive.
    package func next(keep: ([UInt8], Int64) -> Int) throws -> Member? {
        try next(keep: keep, unbounded: { BackupAttribute(attributeName: Array($0.utf8)) != nil })
    }
}
