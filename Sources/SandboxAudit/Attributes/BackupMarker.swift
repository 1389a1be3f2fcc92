#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sets, clears and reads the backup attributes on real paths: what `exclude`, `include` and
/// `attributes` do, and how tests build fixtures. The only writer in the library.
public enum BackupMarker {
    public enum Carrier: String, Sendable, CaseIterable {
        /// A native extended attribute (`user.`-prefixed on Linux).
        case native
        /// An AppleDouble `._NAME` file beside the item, as macOS leaves on foreign file
        /// systems; survives git and plain copies.
        case sidecar
    }

    /// The sidecar path for `path`: `dir/._name`.
    public static func sidecarPath(for path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else { return "._" + trimmed }
        return String(trimmed[...slash]) + "._" + trimmed[trimmed.index(after: slash)...]
    }

    private static func requireExists(_ path: String) throws {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            throw InputError("cannot mark \(path): \(errno == ENOENT ? "no such file or directory" : String(cString: strerror(errno)))")
        }
    }

    public static func set(_ attribute: BackupAttribute, value: [UInt8], on path: String, carrier: Carrier) throws {
        try requireExists(path)
        switch carrier {
        case .native:
            try XAttr.set(path: Array(path.utf8), name: attribute.nativeName, value: value)
        case .sidecar:
            var parsed = try readSidecar(for: path) ?? AppleDouble.Parsed()
            parsed.attributes.removeAll { BackupAttribute(attributeName: Array($0.name.utf8)) == attribute }
            parsed.attributes.append((attribute.macName, value))
            try AtomicFile.write(AppleDouble.build(parsed), to: sidecarPath(for: path))
        }
    }

    /// Removes the attribute under both its names (native) or from the sidecar; returns whether
    /// anything was removed. A sidecar left with nothing in it is deleted.
    @discardableResult
    public static func clear(_ attribute: BackupAttribute, on path: String, carrier: Carrier) throws -> Bool {
        try requireExists(path)
        switch carrier {
        case .native:
            var removed = false
            for name in Set([attribute.nativeName, attribute.linuxName, attribute.macName]) {
                do {
                    if try XAttr.remove(path: Array(path.utf8), name: name) { removed = true }
                } catch let e as SystemError where e.code == ENOTSUP || e.code == EOPNOTSUPP {
                    continue // a name this platform cannot hold (no namespace) is not there
                }
            }
            return removed
        case .sidecar:
            guard var parsed = try readSidecar(for: path) else { return false }
            let before = parsed.attributes.count
            parsed.attributes.removeAll { BackupAttribute(attributeName: Array($0.name.utf8)) == attribute }
            guard parsed.attributes.count != before else { return false }
            let sidecar = sidecarPath(for: path)
            if parsed.attributes.isEmpty && parsed.finderInfo.allSatisfy({ $0 == 0 }) {
                if unlink(sidecar) != 0 { throw SystemError(operation: "remove", path: sidecar) }
            } else {
                try AtomicFile.write(AppleDouble.build(parsed), to: sidecar)
            }
            return true
        }
    }

    /// The backup attributes on `path`, native and from its `._` sidecar.
    public static func read(_ path: String) throws -> [AttributeMark] {
        try requireExists(path)
        var marks: [AttributeMark] = []
        let target = XAttr.Target.path(Array(path.utf8))
        for name in try XAttr.names(target) {
            guard let attribute = BackupAttribute(attributeName: name) else { continue }
            let n = String(decoding: name, as: UTF8.self)
            if let value = try XAttr.value(target, name: n) {
                marks.append(AttributeMark(attribute: attribute, value: value, source: .native(name: n)))
            }
        }
        if let parsed = try readSidecar(for: path) {
            let sidecar = ContainerPath(sidecarPath(for: path))
            for a in parsed.attributes {
                if let attribute = BackupAttribute(attributeName: Array(a.name.utf8)) {
                    marks.append(AttributeMark(attribute: attribute, value: a.value, source: .appleDouble(sidecar: sidecar)))
                }
            }
        }
        return marks
    }

    static func readSidecar(for path: String) throws -> AppleDouble.Parsed? {
        let sidecar = sidecarPath(for: path)
        var st = stat()
        guard lstat(sidecar, &st) == 0 else { return nil }
        guard UInt32(st.st_mode) & UInt32(S_IFMT) == UInt32(S_IFREG) else {
            throw InputError("\(sidecar) exists and is not a regular file; refusing to touch it")
        }
        let bytes = try Walker.readFile(at: AT_FDCWD, Array(sidecar.utf8))
        do {
            return try AppleDouble.parse(bytes)
        } catch {
            throw InputError("\(sidecar) exists and is not a readable AppleDouble file (\(error)); refusing to overwrite it")
        }
    }
}
