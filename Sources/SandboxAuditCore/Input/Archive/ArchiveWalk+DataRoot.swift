import Foundation
import SandboxAuditSystem

extension ArchiveWalk {
    /// Why an archive that carries no attribute shows no exclusion.
    package static let noAttributes =
        "the backup attributes on disk, which this archive does not carry (no extended attribute records, `._` files "
        + "or `__MACOSX` folder: "
        + "made with GNU tar without --xattrs, or with zip -r on Linux); an item the app excluded counts as backed "
        + "up, so the footprint is an upper bound"

    /// A member that carries attributes: pax or zip extra attribute records, an AppleDouble
    /// `._NAME` sidecar, or anything in a `__MACOSX` mirror.
    static func carriesAttributes(_ m: Member) -> Bool {
        if !m.xattrs.isEmpty { return true }
        let start = (m.path.lastIndex(of: UInt8(ascii: "/")) ?? -1) + 1
        if m.path[start...].starts(with: AppleDouble.sidecarPrefix) { return true }
        // A mirror lies at the archive root or in a folder down to the data root (`TOP/AppData`
        // at the deepest): only the first three components are looked at, whatever the depth.
        let mirror = Array(AppleDouble.mirrorFolder.utf8)
        var componentStart = m.path.startIndex
        var components = 0
        for i in m.path.indices where m.path[i] == UInt8(ascii: "/") {
            if m.path[componentStart..<i].elementsEqual(mirror) { return true }
            componentStart = i + 1
            components += 1
            if components == 3 { break }
        }
        return false
    }

    /// Opens the archive at `location` once, for the whole run: never through a symlink (an
    /// archive input is a regular file, `ArchiveInput.detect`, and one swapped for a
    /// symlink since is refused), without blocking on a FIFO put there, without updating its
    /// access time where permitted (Linux O_NOATIME needs the file's owner or CAP_FOWNER; it is
    /// opened plainly otherwise); what is not a regular file once open is refused.
    static func open(_ location: String) throws(InputError) -> ArchiveSnapshot {
        do {
            let file = try HeldDescriptor.regularFile(location.utf8)
            return ArchiveSnapshot(file: file, status: try file.descriptor.status())
        } catch {
            if error.code == EINVAL || error.code == ESPIPE {
                throw InputError(
                    "cannot read \(location): it is no longer a regular file (it was replaced since it was named)")
            }
            throw InputError("cannot read \(location): \(errorText(error.code))")
        }
    }

    /// A group container's root when nothing marks one: the archive's one top folder, or the
    /// archive root.
    static func groupRootPrefix(_ members: [Member]) -> [UInt8] {
        var top: ArraySlice<UInt8>?
        for m in members {
            guard let slash = m.path.firstIndex(of: UInt8(ascii: "/")) else {
                if m.type == FileType.dir, top == nil || top!.elementsEqual(m.path) {
                    top = m.path[...]
                    continue
                }
                return []
            }
            let first = m.path[..<slash]
            if first.elementsEqual(AppleDouble.mirrorFolder.utf8) { continue }
            if let t = top, !t.elementsEqual(first) { return [] }
            top = first
        }
        return top.map { Array($0) + [UInt8(ascii: "/")] } ?? []
    }

    /// The data root: the archive root, a top folder, or a top folder's AppData, whichever first
    /// holds Documents, Library or tmp (stored or implied by a deeper member), tops in byte order.
    static func dataRootPrefix(_ members: [Member]) -> [UInt8]? {
        var finder = DataRootFinder()
        for m in members { finder.add(m) }
        return finder.prefix
    }

    /// `dataRootPrefix` as the members come: each member looked at once, the prefix known at
    /// every point of the reading (`ArchiveWalk.read` makes entries with it as it reads).
    struct DataRootFinder {
        // Each prefix found is (top folder, AppData below it); the archive root is ([], false).
        private var found = Set<[UInt8]>()
        private var atRoot = false
        private var lastTop: ArraySlice<UInt8> = []
        private var lastAppData = false
        /// Moves on whenever `prefix` may have changed.
        private(set) var generation = 0

        mutating func add(_ m: Member) {
            // At the root, the root it stays.
            guard !atRoot else { return }
            let p = m.path
            // The first three components' bounds (`count` of them: fewer in a shorter path),
            // and whether each is a folder (something follows it, or the member is itself a
            // folder). Kept in locals, not an array: this runs once per member.
            var count = 0
            var bounds = ((0, 0), (0, 0), (0, 0))
            var start = 0
            while count < 3, start < p.count {
                let end = p[start...].firstIndex(of: UInt8(ascii: "/")) ?? p.count
                switch count {
                case 0: bounds.0 = (start, end)
                case 1: bounds.1 = (start, end)
                default: bounds.2 = (start, end)
                }
                count += 1
                start = end + 1
            }
            func component(_ i: Int) -> ArraySlice<UInt8> {
                let b = i == 0 ? bounds.0 : i == 1 ? bounds.1 : bounds.2
                return p[b.0..<b.1]
            }
            func isFolder(_ i: Int) -> Bool { component(i).endIndex < p.count || m.type == FileType.dir }
            func isRootFolder(_ i: Int) -> Bool {
                i < count && isFolder(i) && rootFolderNames.contains { component(i).elementsEqual($0) }
            }
            if isRootFolder(0) {
                atRoot = true
                generation += 1
                return
            }
            guard count >= 2 else { return }
            let top = component(0)
            let appData = component(1).elementsEqual(appDataName) && isRootFolder(2)
            guard isRootFolder(1) || appData else { return }
            if top.elementsEqual(lastTop), appData == lastAppData { return }
            lastTop = top
            lastAppData = appData
            if found.insert(Array(top) + (appData ? [1] : [0])).inserted { generation += 1 }
        }

        /// The data root: the archive root, a top folder, or a top folder's AppData, whichever
        /// first holds Documents, Library or tmp (stored or implied by a deeper member), tops in
        /// byte order; nil when none does (yet).
        var prefix: [UInt8]? {
            if atRoot { return [] }
            let mirror = Array(AppleDouble.mirrorFolder.utf8)
            let first = found.filter { key in
                let top = key.dropLast()
                return !top.elementsEqual(mirror) && !top.starts(with: AppleDouble.sidecarPrefix)
            }.min { a, b in
                let (ta, tb) = (a.dropLast(), b.dropLast())
                return ta.elementsEqual(tb) ? a.last! < b.last! : ta.lexicographicallyPrecedes(tb)
            }
            guard let key = first else { return nil }
            return Array(key.dropLast()) + [UInt8(ascii: "/")]
                + (key.last == 1 ? appDataName + [UInt8(ascii: "/")] : [])
        }
    }
}
