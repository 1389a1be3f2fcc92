#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `fstat`/`fstatat` say of an entry, in the tool's own types.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case regular, directory, symlink, fifo, socket, characterDevice, blockDevice, unknown
    }

    package let kind: Kind
    /// The whole `st_mode` (type and permission bits).
    package let mode: UInt32
    package let size: Int64
    /// `st_blocks` × 512.
    package let allocated: Int64
    package let device: UInt64
    package let inode: UInt64
    package let linkCount: UInt64
    package let modifiedSeconds: Int64
    package let modifiedNanoseconds: Int32
    /// `st_uid` and `st_gid`.
    package let owner: UInt32
    package let group: UInt32

    package init(_ st: stat) {
        mode = UInt32(st.st_mode)
        switch mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): kind = .regular
        case UInt32(S_IFDIR): kind = .directory
        case UInt32(S_IFLNK): kind = .symlink
        case UInt32(S_IFIFO): kind = .fifo
        case UInt32(S_IFSOCK): kind = .socket
        case UInt32(S_IFCHR): kind = .characterDevice
        case UInt32(S_IFBLK): kind = .blockDevice
        default: kind = .unknown
        }
        size = Int64(st.st_size)
        allocated = Int64(st.st_blocks) * 512
        device = UInt64(truncatingIfNeeded: st.st_dev)
        inode = UInt64(truncatingIfNeeded: st.st_ino)
        linkCount = UInt64(st.st_nlink)
        let m = Platform.modified(st)
        modifiedSeconds = Int64(m.tv_sec)
        modifiedNanoseconds = Int32(m.tv_nsec)
        owner = UInt32(st.st_uid)
        group = UInt32(st.st_gid)
    }

    /// The effective user and group of this process.
    package static var effectiveUser: UInt32 { UInt32(geteuid()) }
    package static var effectiveGroup: UInt32 { UInt32(getegid()) }

    /// The permission bits (`st_mode & 07777`).
    package var permissions: mode_t { mode_t(mode & 0o7777) }
    /// Device and inode: what identifies the entry while it exists.
    package var identity: FileIdentity { FileIdentity(device: device, inode: inode) }
}

/// An entry's device and inode.
package struct FileIdentity: Hashable, Sendable {
    package let device: UInt64
    package let inode: UInt64

    package init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}

/// Access and modification times for `setTimes`: the access time is "now" (scans do not
/// record it), the modification time the one given.
package struct FileTimes {
    package let seconds: Int64
    package let nanoseconds: Int32

    package init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    package var values: [timespec] {
        [timespec(tv_sec: 0, tv_nsec: Platform.timeNow), timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds))]
    }
}
