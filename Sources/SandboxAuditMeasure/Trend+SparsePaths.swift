import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

extension Trend {
    /// The paths of the series, sparse: each path's figures as records (path, point, size) in the
    /// order the points were read, and a tally per path that decides, without the records,
    /// whether it changed, grew at every step, and by how much.
    struct SparsePaths {
        struct Tally {
            var firstPoint: Int32, lastPoint: Int32
            var firstSize: Int64, lastSize: Int64
            var present: Int32 = 1
            var allEqual = true, increasing = true
            /// From the last point that has the path.
            var backedUp: Bool, zone: Zone, owner: String?

            func unchanged(_ count: Int) -> Bool { Int(present) == count && allEqual }
            func grewEveryStep(_ count: Int) -> Bool { count >= 2 && Int(present) == count && increasing }
            func growth(_ count: Int) -> Int64 {
                (Int(lastPoint) == count - 1 ? lastSize : 0) &- (firstPoint == 0 ? firstSize : 0)
            }
        }

        var index: [ComparedReport.PathKey: Int32] = [:]
        var keys: [ComparedReport.PathKey] = []
        var tallies: [Tally] = []
        var recordPath: [Int32] = [], recordPoint: [Int32] = [], recordSize: [Int64] = []

        /// `names`: the file's other names (a hard-linked file's). A file the point before
        /// recorded under one of them is the same file: its series goes on under `key`.
        mutating func add(
            _ key: ComparedReport.PathKey, _ r: ComparedReport.PathRecord, at point: Int32,
            names: [ComparedReport.PathKey] = []
        ) {
            var known = index[key]
            if known == nil {
                for n in names {
                    guard let same = index[n], tallies[Int(same)].lastPoint == point - 1 else { continue }
                    known = same
                    index[key] = same
                    keys[Int(same)] = key
                    break
                }
            }
            let p: Int32
            if let known {
                p = known
                let previous = tallies[Int(p)]
                var t = previous
                t.present += 1
                t.allEqual = t.allEqual && r.size == t.firstSize
                t.increasing = t.increasing && previous.lastPoint == point - 1 && r.size > previous.lastSize
                t.lastPoint = point
                t.lastSize = r.size
                t.backedUp = r.backedUp
                t.zone = r.zone
                t.owner = r.owner
                tallies[Int(p)] = t
            } else {
                p = Int32(keys.count)
                index[key] = p
                keys.append(key)
                tallies.append(
                    Tally(
                        firstPoint: point, lastPoint: point, firstSize: r.size, lastSize: r.size,
                        backedUp: r.backedUp, zone: r.zone, owner: r.owner))
            }
            recordPath.append(p)
            recordPoint.append(point)
            recordSize.append(r.size)
            for n in names where index[n] == nil { index[n] = p }
        }

        /// The dense series of the paths asked for, from one pass over the records.
        func series(of wanted: Set<Int>, points: Int) -> [Int: PathSeries] {
            var values: [Int: [Int64?]] = [:]
            for p in wanted { values[p] = Array(repeating: nil, count: points) }
            for r in recordPath.indices where wanted.contains(Int(recordPath[r])) {
                values[Int(recordPath[r])]![Int(recordPoint[r])] = recordSize[r]
            }
            return values.reduce(into: [:]) { out, e in
                let t = tallies[e.key]
                let key = keys[e.key]
                out[e.key] = PathSeries(
                    key: key, series: Series(name: key.path.display, id: nil, values: e.value),
                    backedUp: t.backedUp, zone: t.zone, owner: t.owner)
            }
        }
    }
}
