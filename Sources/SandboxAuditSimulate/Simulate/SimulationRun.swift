import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// What `simulate` does with an app's inventories: each event replayed on each container and,
/// with `into`, the one event written as a real tree (each domain in `DIR/DOMAIN` when there are
/// several) and, with `verify`, that tree scanned back and compared entry by entry.
public struct SimulationRun: Sendable {
    /// Per container (backup domain, the app's data container first), per event.
    package let results: [[SimulationResult]]
    /// Per container: what was written (nil without `into`).
    package let materialized: [Materializer.Report?]
    /// Per container: how the written tree differs from the prediction (nil without `verify`).
    package let mismatches: [[Verification.Mismatch]?]
    /// What reading the containers missed: the figures leave it out, as `scan`'s do.
    package let completeness: Completeness

    /// Refuses a destination before anything is read: an input whose kind cannot be written as
    /// a tree (a backup folder: its files are stored by fileID), or a DIR that is not a name of a
    /// missing or empty folder.
    public static func checkDestination(_ destination: String, input: String) throws {
        let kind = InputKinds.kind(of: input)
        if !kind.capabilities.materialisable {
            throw InputError(
                "simulate --into cannot write from a \(kind.name) (\(input)): it predicts from the "
                    + "\(kind.shortName)'s inventory only; leave out --into"
            )
        }
        try Materializer.checkDestination(destination)
    }

    /// Replays `events` on every inventory. With `into`, `events` is one event, and what it
    /// leaves is written there.
    public init(
        _ inventories: [Inventory], events: [SimulatedEvent], policy: Policy, into: String? = nil, verify: Bool = false
    ) throws {
        completeness = Completeness(inventories)
        results = inventories.map { inventory in events.map { SimulationResult($0, inventory, policy: policy) } }
        var materialized: [Materializer.Report?] = results.map { _ in nil }
        var mismatches: [[Verification.Mismatch]?] = results.map { _ in nil }
        if let into {
            let written = try AppMaterializer.write(results.map { $0[0] }, into: into)
            for (i, report) in written.enumerated() {
                materialized[i] = report
                if verify {
                    let copy = try Audit.inventory(of: report.destination, role: results[i][0].inventory.container.role)
                    mismatches[i] = Verification.compare(results[i][0], materialized: copy, skipped: report.skipped)
                }
            }
        }
        self.materialized = materialized
        self.mismatches = mismatches
    }

    /// A written tree is not what was predicted.
    public var failedVerification: Bool { mismatches.contains { !($0 ?? []).isEmpty } }

    /// The verdict: a written tree that is not what was predicted, or part of the input not
    /// read (unless `allowIncomplete` accepts it), exit 1 as `scan` does.
    public func fails(allowIncomplete: Bool) -> Bool {
        failedVerification || completeness.fails(allowIncomplete: allowIncomplete)
    }
}
