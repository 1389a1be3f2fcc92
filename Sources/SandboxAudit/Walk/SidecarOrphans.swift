/// Where sidecars are, for the folder and the archive readings alike.
enum SidecarOrphans {
    /// `path` (a member path, or a file system path below a common ancestor) relative to the
    /// data root `root`: `../` for each of the root's components it does not share.
    static func relative(_ path: [UInt8], toRoot root: [UInt8]) -> ContainerPath {
        let slash = UInt8(ascii: "/")
        let p = path.split(separator: slash, omittingEmptySubsequences: true)
        let r = root.split(separator: slash, omittingEmptySubsequences: true)
        var shared = 0
        while shared < p.count, shared < r.count, p[shared].elementsEqual(r[shared]) { shared += 1 }
        let parts = [ArraySlice<UInt8>](repeating: [UInt8(ascii: "."), UInt8(ascii: ".")], count: r.count - shared) + p[shared...]
        return ContainerPath(bytes: Array(parts.joined(separator: [slash])))
    }
}
