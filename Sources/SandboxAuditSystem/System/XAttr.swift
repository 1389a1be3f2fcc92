import CSystem

// libattr on Linux only, whatever the build system lets this target see: SwiftPM's XCBuild path
// (`swift build --arch arm64 --arch x86_64`, scripts/dist.sh) may hand a target a system
// library's module map despite its platform condition (swiftlang/swift-package-manager #6554,
// #8283), and CLibAttr's header does not exist on macOS.
#if os(Linux) && canImport(CLibAttr)
    import CLibAttr
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The only place that calls the C extended-attribute API. Every call works on the entry
/// itself and never follows a symlink.
///
/// On Linux an entry inside an open directory is listed with listxattrat(2) and read with
/// getxattrat(2) on (directory, name) where the kernel has them (6.13+); otherwise it is addressed as
/// `/proc/self/fd/N/NAME`: the path stays short however deep the tree is (PATH_MAX never
/// bites) and the `l` calls do not follow a symlink at NAME. Where `/proc` is missing the full
/// path is used instead.
///
/// On macOS, which has neither, the entry is opened relative to its directory (`O_SYMLINK`: a
/// symlink itself, never its target; `O_NONBLOCK`: a FIFO does not block) and read with
/// flistxattr(2)/fgetxattr(2), so entries past Darwin's 1,024-byte PATH_MAX are read too. Only
/// an entry that cannot be opened (no read permission, a socket) is addressed by its full path.
package enum XAttr {
    /// Where the attributes are read or written.
    package enum Target {
        /// A path (absolute or relative to the working directory).
        case path([UInt8])
        /// An open file descriptor (a directory the walker holds open).
        case descriptor(Int32)
        /// The entry `name` (a C string, valid for the call) inside the open directory
        /// `directory`, which is `folder` below `root`; the full path is built only where neither
        /// listxattrat(2) nor `/proc/self/fd` (Linux) nor an openat(2) of the entry (macOS) serves.
        case child(directory: Int32, name: UnsafePointer<CChar>, root: String, folder: ContainerPath)

        /// A `.child`'s path below its root.
        static func childPath(_ name: UnsafePointer<CChar>, in folder: ContainerPath) -> ContainerPath {
            folder.appending(
                UnsafeBufferPointer(
                    start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: strlen(name)))
        }
    }

    #if os(Linux)
        private static let procFDAvailable: Bool = access("/proc/self/fd", F_OK) == 0
        /// Cleared on the first ENOSYS: the kernel predates listxattrat(2) and getxattrat(2) (Linux 6.13).
        /// `nonisolated(unsafe)`: the walk's two workers may both clear one, each writing the same
        /// `false`; a worker that reads `true` late makes one more call that fails with ENOSYS.
        nonisolated(unsafe) private static var listxattratAvailable = true
        nonisolated(unsafe) private static var getxattratAvailable = true
    #endif

    #if canImport(Darwin)
        /// `body` on a descriptor of the entry `.child` names, opened relative to its directory and
        /// closed after (keeping `body`'s errno); nil when the target is no child or cannot be
        /// opened, and the caller falls back to the path.
        private static func onChildDescriptor(_ target: Target, _ body: (Int32) -> Int) -> Int? {
            guard case .child(let dir, let name, _, _) = target else { return nil }
            let fd = openat(dir, name, O_RDONLY | O_SYMLINK | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            let n = body(fd)
            let e = errno
            close(fd)
            errno = e
            return n
        }
    #endif

    private static func withPath<R>(_ target: Target, _ body: (UnsafePointer<CChar>) -> R) -> R {
        var bytes: [UInt8]
        switch target {
        case .path(let p): bytes = p
        case .descriptor(let fd): bytes = Array("/proc/self/fd/\(fd)".utf8)
        case .child(let dir, let name, let root, let folder):
            let path = Target.childPath(name, in: folder)
            #if os(Linux)
                if procFDAvailable {
                    bytes =
                        Array("/proc/self/fd/\(dir)/".utf8)
                        + UnsafeBufferPointer(
                            start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: strlen(name))
                } else {
                    bytes = Array(root.utf8) + [UInt8(ascii: "/")] + path.bytes
                }
            #else
                _ = dir
                _ = name
                bytes = Array(root.utf8) + [UInt8(ascii: "/")] + path.bytes
            #endif
        }
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { buf in
            buf.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buf.count) { body($0) }
        }
    }

    private static func describe(_ target: Target) -> String {
        switch target {
        case .path(let p): return ByteText.display(p)
        case .descriptor(let fd): return "descriptor \(fd)"
        case .child(_, let name, let root, let folder): return root + "/" + Target.childPath(name, in: folder).display
        }
    }

    /// True for the errors that mean "this file system keeps no extended attributes".
    private static func unsupported(_ e: Int32) -> Bool { e == ENOTSUP || e == EOPNOTSUPP }

    // MARK: raw calls, one per platform difference

    private static func rawList(_ target: Target, _ buf: UnsafeMutablePointer<CChar>?, _ size: Int) -> Int {
        #if os(Linux)
            // One call on (directory, name): the cheapest way there is, where the kernel has it.
            if listxattratAvailable, case .child(let dir, let name, _, _) = target {
                let n = sandbox_audit_listxattrat(dir, name, buf, size)
                if n >= 0 || errno != ENOSYS { return n }
                listxattratAvailable = false
            }
        #endif
        #if canImport(Darwin)
            if let n = onChildDescriptor(target, { flistxattr($0, buf, size, 0) }) { return n }
        #endif
        switch target {
        case .descriptor(let fd):
            #if canImport(Darwin)
                return flistxattr(fd, buf, size, 0)
            #else
                return flistxattr(fd, buf, size)
            #endif
        default:
            return withPath(target) { p in
                #if canImport(Darwin)
                    return listxattr(p, buf, size, XATTR_NOFOLLOW)
                #else
                    return llistxattr(p, buf, size)
                #endif
            }
        }
    }

    private static func rawGet(_ target: Target, _ name: String, _ buf: UnsafeMutableRawPointer?, _ size: Int) -> Int {
        #if os(Linux)
            // As in rawList: one call on (directory, name), no path through /proc resolved.
            if getxattratAvailable, case .child(let dir, let entry, _, _) = target {
                let n = sandbox_audit_getxattrat(dir, entry, name, buf, size)
                if n >= 0 || errno != ENOSYS { return n }
                getxattratAvailable = false
            }
        #endif
        #if canImport(Darwin)
            if let n = onChildDescriptor(target, { fgetxattr($0, name, buf, size, 0, 0) }) { return n }
        #endif
        switch target {
        case .descriptor(let fd):
            #if canImport(Darwin)
                return fgetxattr(fd, name, buf, size, 0, 0)
            #else
                return fgetxattr(fd, name, buf, size)
            #endif
        default:
            return withPath(target) { p in
                #if canImport(Darwin)
                    return getxattr(p, name, buf, size, 0, XATTR_NOFOLLOW)
                #else
                    return lgetxattr(p, name, buf, size)
                #endif
            }
        }
    }

    // MARK: public surface

    /// The attribute names on the target (empty where the file system keeps none).
    package static func names(_ target: Target) throws -> [[UInt8]] {
        func split(_ list: UnsafeBufferPointer<CChar>) -> [[UInt8]] {
            list.split(separator: 0).map { $0.map { UInt8(bitPattern: $0) } }
        }
        // Most entries have no attributes: list into stack memory, allocate only for names.
        var capacity = 1024
        let first: (Int, [[UInt8]]) = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buf in
            let n = rawList(target, buf.baseAddress, buf.count)
            return (n < 0 ? -Int(errno) : n, n > 0 ? split(UnsafeBufferPointer(rebasing: buf[0..<n])) : [])
        }
        if first.0 >= 0 { return first.1 }
        var e = Int32(-first.0)
        while true {
            if unsupported(e) { return [] }
            guard e == ERANGE else {
                throw SystemError(code: e, operation: "list attributes of", path: describe(target))
            }
            let needed = rawList(target, nil, 0)
            if needed < 0 { throw SystemError(operation: "list attributes of", path: describe(target)) }
            capacity = max(needed, capacity * 2)
            var buffer = [CChar](repeating: 0, count: capacity)
            let n = buffer.withUnsafeMutableBufferPointer { rawList(target, $0.baseAddress, capacity) }
            if n >= 0 { return buffer.withUnsafeBufferPointer { split(UnsafeBufferPointer(rebasing: $0[0..<n])) } }
            e = errno
        }
    }

    /// The value of `name`, or nil when the target does not carry it.
    package static func value(_ target: Target, name: String) throws -> [UInt8]? {
        var capacity = 256
        while true {
            var buffer = [UInt8](repeating: 0, count: capacity)
            let n = buffer.withUnsafeMutableBytes { rawGet(target, name, $0.baseAddress, capacity) }
            if n >= 0 { return Array(buffer[0..<n]) }
            let e = errno
            #if canImport(Darwin)
                if e == ENOATTR { return nil }
            #else
                if e == ENODATA { return nil }
            #endif
            if unsupported(e) { return nil }
            guard e == ERANGE else {
                throw SystemError(code: e, operation: "read attribute \(name) of", path: describe(target))
            }
            let needed = rawGet(target, name, nil, 0)
            if needed < 0 { throw SystemError(operation: "read attribute \(name) of", path: describe(target)) }
            capacity = max(needed, capacity * 2)
        }
    }

    /// Sets `name` to `value` on the entry at `path` (not following a symlink).
    package static func set(path: [UInt8], name: String, value: [UInt8]) throws {
        let rc = withPath(.path(path)) { p in
            value.withUnsafeBytes { v in
                #if canImport(Darwin)
                    return setxattr(p, name, v.baseAddress, v.count, 0, XATTR_NOFOLLOW)
                #else
                    return lsetxattr(p, name, v.baseAddress, v.count, 0)
                #endif
            }
        }
        if rc != 0 { throw SystemError(operation: "set attribute \(name) on", path: ByteText.display(path)) }
    }

    /// Copies every extended attribute from one open file to another: libattr's
    /// `attr_copy_fd` on Linux, for names in the `user.` namespace that its own filter also lets
    /// through (/etc/xattr.conf): never `security.*` (file capabilities, labels), `trusted.*` or
    /// `system.*` (ACLs), which would hand the copy's readers what the source's owner set; on
    /// macOS, each attribute but those the system owns (`Platform.attributeCopySkipPrefixes`).
    /// The paths only label error messages.
    package static func copyAll(from source: Int32, sourcePath: String, to destination: Int32, destinationPath: String)
        throws
    {
        #if os(Linux) && canImport(CLibAttr)
            let userNamesOnly: @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<error_context>?) -> Int32 = {
                name, context in
                guard let name, strncmp(name, "user.", 5) == 0 else { return 0 }
                return attr_copy_check_permissions(name, context)
            }
            if attr_copy_fd(sourcePath, source, destinationPath, destination, userNamesOnly, nil) != 0 {
                let e = errno
                if unsupported(e) { return }
                throw SystemError(code: e, operation: "copy attributes to", path: destinationPath)
            }
        #else
            // What libattr's filter does on Linux: the attributes the system owns are left out.
            for name in try names(.descriptor(source)) {
                let n = String(decoding: name, as: UTF8.self)
                if Platform.attributeCopySkipPrefixes.contains(where: { n.hasPrefix($0) }) { continue }
                if let v = try value(.descriptor(source), name: n) {
                    try set(descriptor: destination, name: n, value: v, path: destinationPath)
                }
            }
        #endif
    }

    /// Sets `name` on an open file.
    package static func set(descriptor fd: Int32, name: String, value: [UInt8], path: String) throws {
        let rc = value.withUnsafeBytes { v in
            #if canImport(Darwin)
                return fsetxattr(fd, name, v.baseAddress, v.count, 0, 0)
            #else
                return fsetxattr(fd, name, v.baseAddress, v.count, 0)
            #endif
        }
        if rc != 0 { throw SystemError(operation: "set attribute \(name) on", path: path) }
    }

    /// Removes `name` from the entry at `path`; returns false when it was not there.
    @discardableResult
    package static func remove(path: [UInt8], name: String) throws -> Bool {
        let rc = withPath(.path(path)) { p in
            #if canImport(Darwin)
                return removexattr(p, name, XATTR_NOFOLLOW)
            #else
                return lremovexattr(p, name)
            #endif
        }
        if rc == 0 { return true }
        let e = errno
        #if canImport(Darwin)
            if e == ENOATTR { return false }
        #else
            if e == ENODATA { return false }
        #endif
        throw SystemError(code: e, operation: "remove attribute \(name) from", path: ByteText.display(path))
    }
}
