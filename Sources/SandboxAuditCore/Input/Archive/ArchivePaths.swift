import Foundation
import SandboxAuditSystem

/// What a member's stored path means, and how members are numbered and placed.
extension ArchiveWalk {
    /// What a member's stored path means.
    package enum MemberPath: Equatable {
        /// The archive's own root (`.`, `./`, empty): nothing to record.
        case root
        /// An absolute path or one with a `..` component: refused.
        case unsafe
        /// Relative to the archive root, without empty or `.` components (`./a`, `a//b`,
        /// `a/./b` and `a/` are `a`, `a/b`, `a/b`, `a`).
        case path([UInt8])
    }

    /// The one reading of a stored path, shared by the scan and by materialising: an absolute
    /// path or a `..` component is unsafe; empty and `.` components are dropped, as `tar`
    /// extracting the member would resolve them, so the scan and `--into` place it alike.
    ///
    /// One pass over the bytes, with no allocation for a path that needs no change (nearly all):
    /// it runs for every member in the scan and again in `--into`, on paths of many kilobytes in
    /// deep archives (a per-component copy made both passes cost seconds on a 16,000-deep chain).
    package static func normalise(_ raw: [UInt8]) -> MemberPath {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        if raw.first == slash { return .unsafe }
        // A folder's trailing slash (how most tools store folders) is dropped without a pass.
        enum Reading { case clean, trailingSlash, changed, unsafe }
        let reading: Reading = {
            let b = raw
            var result = Reading.clean
            var start = 0
            var i = 0
            while i <= b.count {
                let end = b[i...].firstIndex(of: slash) ?? b.count
                i = end
                switch i - start {
                case 0 where i == b.count && i > 0 && result == .clean: result = .trailingSlash
                case 0: result = .changed
                case 1 where b[start] == dot: result = .changed
                case 2 where b[start] == dot && b[start + 1] == dot: return .unsafe
                default: break
                }
                start = i + 1
                i += 1
            }
            return result
        }()
        switch reading {
        case .unsafe: return .unsafe
        case .clean: return .path(raw)
        case .trailingSlash: return .path(Array(raw[..<(raw.count - 1)]))
        case .changed: break
        }
        // Empty and `.` components dropped.
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var start = 0
        while start <= raw.count {
            let end = raw[start...].firstIndex(of: slash) ?? raw.count
            let length = end - start
            if length > 0, !(length == 1 && raw[start] == dot) {
                if !out.isEmpty { out.append(slash) }
                out.append(contentsOf: raw[start..<end])
            }
            start = end + 1
        }
        return out.isEmpty ? .root : .path(out)
    }

    /// True when a `..` component appears (without splitting the path).
    static func hasDotDot(_ p: ArraySlice<UInt8>) -> Bool {
        var start = p.startIndex
        while start < p.endIndex {
            let end = p[start...].firstIndex(of: UInt8(ascii: "/")) ?? p.endIndex
            if end - start == 2, p[start] == UInt8(ascii: "."), p[start + 1] == UInt8(ascii: ".") { return true }
            start = end + 1
        }
        return false
    }

    /// Whether a member may lie in Library/Caches or tmp under any data root the archive can
    /// have (the root, one folder down, or NAME.xcappdata/AppData): only those files' first
    /// bytes are read, so the rest of the data is skipped, not read.
    static func mayBePurgeable(_ path: [UInt8]) -> Bool {
        // Components 0 to 2 may be tmp (with something below it) or Library (with Caches next).
        var start = 0
        var index = 0
        var previousWasLibrary = false
        while index < 4, start < path.count {
            let end = path[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.count
            let component = path[start..<end]
            if previousWasLibrary && component.elementsEqual(cachesName) { return true }
            if index < 3 && end < path.count && component.elementsEqual(tmpName) { return true }
            previousWasLibrary = index < 3 && component.elementsEqual(libraryName)
            start = end + 1
            index += 1
        }
        return false
    }

    static let libraryName = Array("Library".utf8), cachesName = Array("Caches".utf8), tmpName = Array("tmp".utf8)
    static let identityNames: [[UInt8]] = [Array(Container.simulatorMetadata.utf8), Array(Container.appDataInfo.utf8)]
    static let rootFolderNames: [[UInt8]] = ["Documents", "Library", "tmp"].map { Array($0.utf8) }
    static let appDataName = Array("AppData".utf8)

    /// Numbers the stored paths (normalised; the root and unsafe paths are not numbered) by
    /// their first position among the members. An archive entry's inode is its position + 1:
    /// the scan numbers through this, and so does simulate --into when it reads the archive
    /// again, so the two agree.
    package struct MemberNumbering {
        private var positions: [ContainerPath: Int] = [:]

        package init() {}

        /// Room for `expected` paths at once: no table rebuilt, every path hashed again, as
        /// the archive is read.
        package init(expected: Int) { positions.reserveCapacity(expected) }

        /// The path's position, and whether the archive stored it before.
        package mutating func number(_ path: [UInt8]) -> (position: Int, repeated: Bool) {
            // One hash for a new path (nearly all of them); a repeated one gets its first back.
            let next = positions.count
            if let known = positions.updateValue(next, forKey: ContainerPath(bytes: path)) {
                positions[ContainerPath(bytes: path)] = known
                return (known, true)
            }
            return (next, false)
        }

        func position(of path: ContainerPath) -> Int? { positions[path] }
    }

    /// The data root of a container read from the archive at `location`: the archive itself, or
    /// `ARCHIVE!/PREFIX` for the members below `PREFIX/`.
    static func dataRoot(_ location: String, prefix: [UInt8]) -> String {
        prefix.isEmpty ? location : location + "!/" + String(decoding: prefix.dropLast(), as: UTF8.self)
    }

    /// The members' prefix (`PREFIX/`, or empty) of a container that `dataRoot` made.
    package static func memberPrefix(of container: Container) -> [UInt8] {
        container.dataRoot == container.input
            ? [] : Array(container.dataRoot.utf8.dropFirst(container.input.utf8.count + 2)) + [UInt8(ascii: "/")]
    }
}
