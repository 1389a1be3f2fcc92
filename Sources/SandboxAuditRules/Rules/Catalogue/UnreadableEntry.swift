import SandboxAuditSystem
import SandboxAuditCore

/// `unreadable-entry`: what the scan could not read.
struct UnreadableEntry: Rule {
    init() {}
    let description = RuleDescription(
        id: "unreadable-entry",
        name: "Unreadable entry",
        summary: "An entry the scan could not read (permission denied, vanished during the scan, a malformed AppleDouble sidecar): the totals leave it out.",
        rationale: """
            The audit can only vouch for what it read. An unreadable folder may hold anything backup carries, \
            so the figures are a lower bound until it is readable.
            """,
        fix: "Permission denied: make the container readable to the user running the scan (chmod -R u+rX). Vanished: scan a copy taken while the app is not running. Malformed ._ sidecar: re-copy the container from macOS, or delete it and mark the item again (sandbox-audit exclude --carrier sidecar PATH).",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample("A malformed AppleDouble sidecar", [.file("Documents/a.txt"), .bytes("Documents/._a.txt", [0x00, 0x05, 0x16, 0x07, 0x00, 0x02])], expect: ["Documents/._a.txt"]),
        ],
        nonTriggeringExamples: [
            RuleExample("A file named like a sidecar that is not one", [.bytes("Documents/._notes", Array("plain text".utf8))]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.problems.map { p in
            var fix: String?
            // A malformed sidecar in the container: exclude refuses to rewrite it, so it goes first.
            if p.operation.hasSuffix("AppleDouble file"), let file = FixCommand.onDisk(p.path, in: inventory) {
                fix = "Re-copy the container from macOS, or delete the malformed sidecar (rm -- \(file)) and mark the item again if it was excluded from backup."
            }
            // A backup row: nothing on disk to make readable; the backup itself is what is wrong.
            if p.operation.hasPrefix(BackupWalk.rowOperation) {
                fix = "This row of the backup's Manifest.db cannot be an entry (the reason says why): make a new backup of the device with Finder or iTunes and scan that, or scan the app's container itself."
            }
            return finding(p.path, p.vanished ? "vanished or moved during the scan (\(p.operation): \(p.reason))" : "could not \(p.operation): \(p.reason)", fix: fix)
        }
    }

    /// The finding for a content read a rule needed and could not do (`ContentReader.misses`):
    /// what was not checked, and why.
    func finding(for miss: ContentMiss) -> Finding {
        finding(miss.path, "could not read \(miss.what) of \(miss.path.display): \(miss.consequence) (\(miss.why))")
    }
}

extension RuleCatalogue {
    /// `unreadable-entry`'s id, for the findings of content reads that failed.
    static let unreadableEntryID = UnreadableEntry().id

    /// The `unreadable-entry` finding for a content read a rule could not do.
    static func unreadContentFinding(_ miss: ContentMiss) -> Finding { UnreadableEntry().finding(for: miss) }
}
