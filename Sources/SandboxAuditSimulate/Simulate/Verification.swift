import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// Compares a materialised container with the simulation's prediction, entry by entry: the
/// same paths, kinds, sizes and backup attributes (by name and value: sidecar marks become
/// native attributes in the copy).
package enum Verification {
    package struct Mismatch: Sendable, CustomStringConvertible {
        let path: ContainerPath
        let problem: String
        package var description: String { "\(path.display): \(problem)" }
    }

    struct Signature: Equatable {
        let kind: WalkEntry.Kind
        let size: Int64?
        let marks: [String]
    }

    static func signature(_ e: InventoryEntry) -> Signature {
        let w = e.entry.walkEntry
        let marks = Set(w.marks.map { "\($0.attribute.rawValue)=\(ByteText.hexString($0.value))" }).sorted()
        return Signature(kind: w.kind, size: w.holdsContent ? w.size : nil, marks: marks)
    }

    /// Empty when the tree at `materialized` is what `simulation` predicted.
    static func compare(_ simulation: SimulationResult, materialized: Inventory, skipped: [ContainerPath]) -> [Mismatch]
    {
        let skippedSet = Set(skipped)
        var expected: [ContainerPath: Signature] = [:]
        for (e, keep) in zip(simulation.inventory.entries, simulation.kept) where keep && !skippedSet.contains(e.path) {
            expected[e.path] = signature(e)
        }
        var mismatches: [Mismatch] = []
        var seen = Set<ContainerPath>()
        for e in materialized.entries {
            seen.insert(e.path)
            guard let want = expected[e.path] else {
                mismatches.append(Mismatch(path: e.path, problem: "present, but the event does not keep it"))
                continue
            }
            let got = signature(e)
            if got.kind != want.kind {
                mismatches.append(
                    Mismatch(path: e.path, problem: "is a \(got.kind.rawValue), expected a \(want.kind.rawValue)"))
            }
            if got.size != want.size {
                mismatches.append(Mismatch(path: e.path, problem: "size \(got.size ?? 0), expected \(want.size ?? 0)"))
            }
            if got.marks != want.marks {
                mismatches.append(Mismatch(path: e.path, problem: "attributes \(got.marks), expected \(want.marks)"))
            }
        }
        for path in expected.keys where !seen.contains(path) {
            mismatches.append(Mismatch(path: path, problem: "missing"))
        }
        for p in materialized.problems { mismatches.append(Mismatch(path: p.path, problem: "unreadable: \(p.reason)")) }
        return mismatches.sorted { $0.path < $1.path }
    }
}
