import SandboxAuditSystem

/// What the inventory makes of a walk's entries before it classifies them: sizes no sum can
/// trap on, and a hard-linked file's attributes on every path of it.
extension Inventory {
    /// The most bytes one inventory's sizes may add up to (sizes and allocated sizes apart):
    /// 64 PiB, far past any device, and small enough that no sum over the entries of fewer
    /// than 128 inventories can overflow, whatever the input claims (docs/limits.md).
    static let maximumTotal: Int64 = 1 << 56

    /// Makes every size possible: a negative size is 0, and once the sizes (or allocated
    /// sizes) add up to `maximumTotal`, the rest count as 0, with one problem.
    static func boundSizes(_ entries: inout WalkEntries, problems: inout [WalkProblem]) {
        var sized: Int64 = 0
        var allocated: Int64 = 0
        var reported = false
        for i in entries.indices {
            let s = entries.size[i]
            let a = entries.allocated[i]
            let size = min(max(s, 0), maximumTotal - sized)
            let blocks = min(max(a, 0), maximumTotal - allocated)
            sized += size
            allocated += blocks
            guard size != s || blocks != a else { continue }
            entries.size[i] = size
            entries.allocated[i] = blocks
            if s < 0 || a < 0 {
                problems.append(
                    WalkProblem(
                        path: entries.path(i), operation: "size",
                        reason: "its size (\(min(s, a)) bytes) is negative: counted as 0"))
            } else if !reported {
                reported = true
                problems.append(
                    WalkProblem(
                        path: entries.path(i), operation: "size",
                        reason:
                            "the container's sizes add up to more than \(ByteSize.format(maximumTotal)), more than "
                            + "any device holds: this entry counts only up to that total, every later one as 0"
                    ))
            }
        }
    }

    /// Attributes belong to a file, not to one of its names: a sidecar's marks on one path of a
    /// hard-linked file are every path's (unpacked on a device, the attribute lands on the one
    /// inode, so backup excludes every name of it). Native marks are each path's already.
    static func shareLinkMarks(_ entries: inout WalkEntries) {
        var byFile: [HardLinkKey: [Int]] = [:]
        for key in entries.marks.keys {
            let i = Int(key)
            guard entries.kind[i] == .file, entries.links[i] > 1 else { continue }
            byFile[HardLinkKey(device: entries.device[i], inode: entries.inode[i]), default: []].append(i)
        }
        for k in byFile.keys { byFile[k]!.sort() }
        guard !byFile.isEmpty else { return }
        var sidecarMarks: [HardLinkKey: [AttributeMark]] = [:]
        for (key, paths) in byFile {
            var seen = Set<AttributeMark>()
            let marks = paths.flatMap {
                (entries.marks[Int32($0)] ?? []).filter { if case .native = $0.source { false } else { true } }
            }.filter { seen.insert($0).inserted }
            if !marks.isEmpty { sidecarMarks[key] = marks }
        }
        guard !sidecarMarks.isEmpty else { return }
        for i in entries.indices where entries.kind[i] == .file && entries.links[i] > 1 {
            guard let marks = sidecarMarks[HardLinkKey(device: entries.device[i], inode: entries.inode[i])] else {
                continue
            }
            let own = Set(entries.marks[Int32(i)] ?? [])
            entries.addMarks(marks.filter { !own.contains($0) }, at: i)
        }
    }
}
