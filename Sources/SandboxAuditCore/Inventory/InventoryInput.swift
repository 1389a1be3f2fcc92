import SandboxAuditSystem

/// What the inventory makes of a walk's entries before it classifies them: sizes no sum can
/// trap on, and a hard-linked file's attributes on every path of it.
extension Inventory {
    /// The most bytes one inventory's sizes may add up to (sizes and allocated sizes apart):
    /// 64 PiB, far past any device, and small enough that no sum over the entries of fewer
    /// than 128 inventories can overflow, whatever the input claims (docs/limits.md).
    static let maximumTotal: Int64 = 1 << 56

    /// The entries with every size made possible: a negative size is 0, and once the sizes (or
    /// allocated sizes) add up to `maximumTotal`, the rest count as 0, with one problem.
    static func boundedSizes(_ entries: WalkEntries, problems: inout [WalkProblem]) -> WalkEntries {
        var sized: Int64 = 0, allocated: Int64 = 0
        var out = entries
        var reported = false
        for i in entries.indices {
            let e = entries[i]
            let size = min(max(e.size, 0), maximumTotal - sized)
            let blocks = min(max(e.allocated, 0), maximumTotal - allocated)
            sized += size
            allocated += blocks
            guard size != e.size || blocks != e.allocated else { continue }
            out[i].size = size
            out[i].allocated = blocks
            if e.size < 0 || e.allocated < 0 {
                problems.append(WalkProblem(path: e.path, operation: "size", reason: "its size (\(min(e.size, e.allocated)) bytes) is negative: counted as 0"))
            } else if !reported {
                reported = true
                problems.append(WalkProblem(path: e.path, operation: "size",
                                            reason: "the container's sizes add up to more than \(ByteSize.format(maximumTotal)), more than any device holds: this entry counts only up to that total, every later one as 0"))
            }
        }
        return out
    }

    /// Attributes belong to a file, not to one of its names: a sidecar's marks on one path of a
    /// hard-linked file are every path's (unpacked on a device, the attribute lands on the one
    /// inode, so backup excludes every name of it). Native marks are each path's already.
    static func shareLinkMarks(_ entries: inout WalkEntries) {
        var byFile: [HardLinkKey: [Int]] = [:]
        for (i, e) in entries.enumerated() where e.kind == .file && e.linkCount > 1 && !e.marks.isEmpty {
            byFile[HardLinkKey(device: e.device, inode: e.inode), default: []].append(i)
        }
        guard !byFile.isEmpty else { return }
        var sidecarMarks: [HardLinkKey: [AttributeMark]] = [:]
        for (key, paths) in byFile {
            var seen = Set<AttributeMark>()
            let marks = paths.flatMap { entries[$0].marks.filter { if case .native = $0.source { false } else { true } } }.filter { seen.insert($0).inserted }
            if !marks.isEmpty { sidecarMarks[key] = marks }
        }
        guard !sidecarMarks.isEmpty else { return }
        for i in entries.indices where entries[i].kind == .file && entries[i].linkCount > 1 {
            guard let marks = sidecarMarks[HardLinkKey(device: entries[i].device, inode: entries[i].inode)] else { continue }
            let own = Set(entries[i].marks)
            entries[i].marks += marks.filter { !own.contains($0) }
        }
    }
}
