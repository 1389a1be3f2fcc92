import SandboxAuditSystem

extension Inventory {
    /// The same entries for an app iOS does not back up at all (an App Clip): classified again
    /// with nothing backed up or restored.
    package func skippedByBackup() -> Inventory {
        var walk = WalkResult()
        walk.entries = entries.map(\.entry)
        walk.problems = problems
        walk.rootMarks = rootMarks
        walk.sidecarCount = sidecarCount
        walk.orphanSidecars = orphanSidecars
        walk.archive = archive
        return Inventory(container: container, walk: walk, skippedByBackup: true)
    }
}
