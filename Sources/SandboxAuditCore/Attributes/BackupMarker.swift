import Foundation
import SandboxAuditSystem

/// Sets, clears and reads the backup attributes on real paths: what `exclude`, `include` and
/// `attributes` do, and how tests build fixtures. The only writer in the library.
///
/// Paths are raw bytes (a file name need not be UTF-8); the `String` forms take its UTF-8.
/// A sidecar is rewritten keeping everything the tool does not change: other attributes byte
/// for byte (raw names, flags, values), Finder info, the resource fork, other entries, and the
/// file's owner and mode.
public enum BackupMarker {
    public enum Carrier: String, Sendable, CaseIterable {
        /// A native extended attribute (`user.`-prefixed on Linux).
        case native
        /// An AppleDouble `._NAME` file beside the item, as macOS leaves on foreign file
        /// systems; survives git and plain copies.
        case sidecar
        /// An AppleDouble file in a `__MACOSX` mirror tree above the item
        /// (`A/__MACOSX/B/._NAME` for `A/B/NAME`), as unzipping a Finder archive leaves it.
        case macosx
    }

    /// The `__MACOSX` mirror sidecars of `path` that exist: for each folder above it holding a
    /// `__MACOSX` folder, the `._NAME` at the same relative place, nearest first.
    static func mirrorSidecarPaths(for path: [UInt8], existingOnly: Bool = true) throws -> [[UInt8]] {
        let slash = UInt8(ascii: "/")
        let sidecar = try sidecarPath(for: path)
        // Resolve the folder holding the item, so the folders above it are real ones.
        guard let i = sidecar.lastIndex(of: slash) else {
            return try mirrorSidecarPaths(for: Array("./".utf8) + path, existingOnly: existingOnly)
        }
        let folder = i == 0 ? [slash] : Array(sidecar[..<i])
        guard let real = Paths.real(folder) else { return [] }
        let name = Array(sidecar[(i + 1)...])
        var found: [[UInt8]] = []
        var above = real
        var relative: [UInt8] = name
        while true {
            let mirror = (above == [slash] ? [] : above) + [slash] + Array(AppleDouble.mirrorFolder.utf8)
            let candidate = mirror + [slash] + relative
            if (try? FileDescriptor.currentDirectory.status(of: existingOnly ? candidate : mirror)) != nil {
                found.append(candidate)
            }
            guard above != [slash], let j = above.lastIndex(of: slash) else { break }
            relative = Array(above[(j + 1)...]) + [slash] + relative
            above = j == 0 ? [slash] : Array(above[..<j])
        }
        return found
    }

    /// The carriers that hold `attribute` for `path` now (a sidecar that cannot be read holds
    /// nothing here).
    static func carriersHolding(_ attribute: BackupAttribute, on path: [UInt8]) throws -> [Carrier] {
        try requireExists(path)
        var carriers: [Carrier] = []
        if let names = try? XAttr.names(.path(path)),
            names.contains(where: { BackupAttribute(attributeName: $0) == attribute })
        {
            carriers.append(.native)
        }
        func holds(_ file: [UInt8]) -> Bool {
            guard let parsed = try? readSidecar(file, forWriting: false) else { return false }
            return parsed.entries.contains { BackupAttribute(attributeName: $0.name) == attribute }
        }
        if let s = try? sidecarPath(for: path), holds(s) { carriers.append(.sidecar) }
        if try mirrorSidecarPaths(for: path).contains(where: holds) { carriers.append(.macosx) }
        return carriers
    }

    /// Sets `attribute` to `value` where it already is (replacing each value in place, in the
    /// carrier that holds it), or, when nowhere, in `carrier`; with `only`, in that carrier
    /// alone. Returns the carriers written.
    @discardableResult
    public static func set(
        _ attribute: BackupAttribute, value: [UInt8], on path: [UInt8], only: Carrier?,
        otherwise carrier: Carrier = .native
    ) throws -> [Carrier] {
        let targets =
            try only.map { [$0] }
            ?? {
                let held = try carriersHolding(attribute, on: path)
                return held.isEmpty ? [carrier] : held
            }()
        for c in targets { try set(attribute, value: value, on: path, carrier: c) }
        return targets
    }

    /// Clears `attribute` wherever it is for `path` (native, under every spelling; the `._NAME`
    /// sidecar; `__MACOSX` mirrors), or in `only`. Returns the carriers it was removed from.
    @discardableResult
    public static func clear(_ attribute: BackupAttribute, on path: [UInt8], only: Carrier?) throws -> [Carrier] {
        if let only { return try clear(attribute, on: path, carrier: only) ? [only] : [] }
        var cleared: [Carrier] = []
        if try clear(attribute, on: path, carrier: .native) { cleared.append(.native) }
        for c in try carriersHolding(attribute, on: path) where c != .native {
            if try clear(attribute, on: path, carrier: c) { cleared.append(c) }
        }
        return cleared
    }

    /// The sidecar path for `path`: `dir/._name`.
    static func sidecarPath(for path: String) -> String {
        (try? sidecarPath(for: Array(path.utf8))).map { ByteText.display($0) } ?? path
    }

    /// The sidecar path for `path`: `dir/._name`. A path ending in `.` or `..` names a folder by
    /// an alias: the sidecar is named after the folder's real name, beside it; the file system
    /// root has no sidecar.
    static func sidecarPath(for path: [UInt8]) throws -> [UInt8] {
        let slash = UInt8(ascii: "/")
        var trimmed = path
        while trimmed.count > 1, trimmed.last == slash { trimmed.removeLast() }
        let last = trimmed.split(separator: slash, omittingEmptySubsequences: false).last.map(Array.init) ?? []
        if last == [UInt8(ascii: ".")] || last == [UInt8(ascii: "."), UInt8(ascii: ".")] || trimmed == [slash] {
            guard let real = Paths.real(trimmed), real != [slash] else {
                throw InputError(
                    "\(ByteText.display(path)) is the file system root or cannot be resolved; it has no sidecar "
                        + "(give the folder by its name)"
                )
            }
            trimmed = real
        }
        guard let i = trimmed.lastIndex(of: slash) else { return Array("._".utf8) + trimmed }
        return Array(trimmed[...i]) + Array("._".utf8) + Array(trimmed[(i + 1)...])
    }

    private static func requireExists(_ path: [UInt8]) throws {
        if case .failure(let e) = Result(catching: { () throws(Errno) in
            try FileDescriptor.currentDirectory.status(of: path)
        }) {
            throw InputError(
                "cannot mark \(ByteText.display(path)): "
                    + "\(e.code == ENOENT ? "no such file or directory" : errorText(e.code))"
            )
        }
    }

    static func set(_ attribute: BackupAttribute, value: [UInt8], on path: String, carrier: Carrier) throws {
        try set(attribute, value: value, on: Array(path.utf8), carrier: carrier)
    }

    static func set(_ attribute: BackupAttribute, value: [UInt8], on path: [UInt8], carrier: Carrier) throws {
        try requireExists(path)
        switch carrier {
        case .native:
            try XAttr.set(path: path, name: attribute.nativeName, value: value)
        case .sidecar:
            try setInSidecar(attribute, value: value, file: try sidecarPath(for: path))
        case .macosx:
            if let existing = try mirrorSidecarPaths(for: path).first {
                try setInSidecar(attribute, value: value, file: existing)
            } else if let mirror = try mirrorSidecarPaths(for: path, existingOnly: false).first {
                try setInSidecar(attribute, value: value, file: mirror)
            } else {
                throw InputError(
                    "no __MACOSX folder above \(ByteText.display(path)) to hold its mirror sidecar (use --carrier "
                        + "native or sidecar)"
                )
            }
        }
    }

    /// Writes `attribute` into the AppleDouble file at `sidecar`, created when missing.
    private static func setInSidecar(_ attribute: BackupAttribute, value: [UInt8], file sidecar: [UInt8]) throws {
        var parsed = try readSidecar(sidecar, forWriting: true) ?? AppleDouble.Parsed()
        guard parsed.finderInfoTail.allSatisfy({ $0 == 0 }) else {
            throw InputError(
                "\(ByteText.display(sidecar)) holds data after its Finder info that is not an ATTR block; refusing "
                    + "to rewrite it"
            )
        }
        // Replace the first entry of this attribute in place (keeping its position and
        // flags), drop any further copies, keep everything else as it was.
        var replaced = false
        parsed.entries = parsed.entries.compactMap { e in
            guard BackupAttribute(attributeName: e.name) == attribute else { return e }
            if replaced { return nil }
            replaced = true
            var e = e
            e.value = value
            return e
        }
        if !replaced { parsed.entries.append(.init(name: Array(attribute.macName.utf8), value: value)) }
        try AtomicFile.write(AppleDouble.build(parsed), to: sidecar)
    }

    /// Removes the attribute under both its names (native) or from the sidecar; returns whether
    /// anything was removed. A sidecar left with nothing in it is deleted.
    @discardableResult
    static func clear(_ attribute: BackupAttribute, on path: String, carrier: Carrier) throws -> Bool {
        try clear(attribute, on: Array(path.utf8), carrier: carrier)
    }

    @discardableResult
    static func clear(_ attribute: BackupAttribute, on path: [UInt8], carrier: Carrier) throws -> Bool {
        try requireExists(path)
        switch carrier {
        case .native:
            var removed = false
            for name in Set([attribute.nativeName, attribute.linuxName, attribute.macName]) {
                do {
                    if try XAttr.remove(path: path, name: name) { removed = true }
                } catch let e as SystemError where e.code == ENOTSUP || e.code == EOPNOTSUPP {
                    continue  // a name this platform cannot hold (no namespace) is not there
                }
            }
            return removed
        case .sidecar:
            return try clearInSidecar(attribute, file: try sidecarPath(for: path))
        case .macosx:
            var removed = false
            for file in try mirrorSidecarPaths(for: path) where try clearInSidecar(attribute, file: file) {
                removed = true
            }
            return removed
        }
    }

    /// Removes `attribute` from the AppleDouble file at `sidecar`, deleting it when nothing
    /// is left; false when it was not there.
    private static func clearInSidecar(_ attribute: BackupAttribute, file sidecar: [UInt8]) throws -> Bool {
        guard var parsed = try readSidecar(sidecar, forWriting: true) else { return false }
        let before = parsed.entries.count
        parsed.entries.removeAll { BackupAttribute(attributeName: $0.name) == attribute }
        guard parsed.entries.count != before else { return false }
        if parsed.isEmpty {
            try attempt("remove", ByteText.display(sidecar)) { () throws(Errno) in
                try FileDescriptor.currentDirectory.remove(sidecar, isDirectory: false)
            }
        } else {
            try AtomicFile.write(AppleDouble.build(parsed), to: sidecar)
        }
        return true
    }

    /// The backup attributes on `path`, native and from its `._` sidecar.
    static func read(_ path: String) throws -> [AttributeMark] {
        try inspect(Array(path.utf8)).marks
    }

    /// The backup attributes on `path`, native, from `__MACOSX` mirrors and from its `._` sidecar, and, when a `._NAME`
    /// beside it could not be read as AppleDouble, why (reading never fails on its account).
    public static func inspect(_ path: [UInt8]) throws -> (marks: [AttributeMark], sidecarProblem: String?) {
        try requireExists(path)
        var marks = try AttributeMark.nativeMarks(.path(path))
        // __MACOSX mirrors above it (an unreadable mirror sidecar holds nothing here).
        for file in (try? mirrorSidecarPaths(for: path)) ?? [] {
            guard let parsed = try? readSidecar(file, forWriting: false) else { continue }
            marks += AttributeMark.marks(in: parsed, source: .macosxMirror(sidecar: ByteText.display(file)))
        }
        guard let sidecar = try? sidecarPath(for: path) else { return (marks, nil) }
        do {
            if let parsed = try readSidecar(sidecar, forWriting: false) {
                marks += AttributeMark.marks(in: parsed, source: .appleDouble(sidecar: ContainerPath(bytes: sidecar)))
            }
        } catch let e as InputError {
            return (marks, e.message)
        }
        return (marks, nil)
    }

    /// The sidecar at `sidecar`, nil when there is none. With `forWriting`, anything there that
    /// is not a readable AppleDouble file is an error that refuses the rewrite.
    static func readSidecar(_ sidecar: [UInt8], forWriting: Bool) throws -> AppleDouble.Parsed? {
        let shown = ByteText.display(sidecar)
        guard let st = try? FileDescriptor.currentDirectory.status(of: sidecar) else { return nil }
        let refusal = forWriting ? "; refusing to overwrite it" : "; not read"
        guard st.kind == .regular else {
            throw InputError(
                "\(shown) exists and is not a regular file" + (forWriting ? "; refusing to touch it" : "; not read"))
        }
        guard st.size <= Int64(AppleDouble.maximumSize) else {
            throw InputError(
                "\(shown) is \(st.size) bytes, over the \(AppleDouble.maximumSize)-byte limit for an AppleDouble file"
                    + refusal)
        }
        let bytes: [UInt8]
        do {
            bytes = try BoundedRead.file(sidecar, limit: AppleDouble.maximumSize, followSymlink: false)
        } catch let e as BoundedRead.Failure {
            throw InputError("cannot read \(shown): \(e)" + refusal)
        }
        do {
            return try AppleDouble.parse(bytes)
        } catch AppleDouble.ParseError.notAppleDouble {
            throw InputError("\(shown) exists and is not an AppleDouble file" + refusal)
        } catch {
            throw InputError("\(shown) exists and is not a readable AppleDouble file (\(error))" + refusal)
        }
    }
}
