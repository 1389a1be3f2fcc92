import SandboxAuditCore
import SandboxAuditSystem

/// `unreadable-entry`: what the scan could not read.
struct UnreadableEntry: Rule {
    init() {}
    let description = RuleDescription(
        id: "unreadable-entry",
        name: "Unreadable entry",
        summary:
            "An entry the scan could not read (permission denied, vanished during the scan, a malformed AppleDouble "
            + "sidecar): the totals leave it out.",
        rationale: """
            The audit can only vouch for what it read. An unreadable folder may hold anything backup carries, \
            so the figures are a lower bound until it is readable.
            """,
        fix:
            "Permission denied: make the container readable to the user running the scan (chmod -R u+rX). Vanished: "
            + "scan a copy taken while the app is not running. Malformed ._ sidecar: re-copy the container from "
            + "macOS, or delete it and mark the item again (sandbox-audit exclude --carrier sidecar PATH).",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A malformed AppleDouble sidecar",
                [.file("Documents/a.txt"), .bytes("Documents/._a.txt", [0x00, 0x05, 0x16, 0x07, 0x00, 0x02])],
                expect: ["Documents/._a.txt"])
        ],
        nonTriggeringExamples: [
            RuleExample(
                "A file named like a sidecar that is not one", [.bytes("Documents/._notes", Array("plain text".utf8))])
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.problems.map { p in
            var fix: String?
            // A malformed sidecar in the container: exclude refuses to rewrite it, so it goes first.
            if p.operation.hasSuffix("AppleDouble file"), let file = FixCommand.onDisk(p.path, in: inventory) {
                fix =
                    "Re-copy the container from macOS, or delete the malformed sidecar (rm -- \(file)) and mark the "
                    + "item again if it was excluded from backup."
            }
            // A backup row: nothing on disk to make readable; the backup itself is what is wrong.
            if p.operation.hasPrefix(BackupWalk.rowOperation) {
                fix =
                    "This row of the backup's Manifest.db cannot be an entry (the reason says why): make a new "
                    + "backup of the device with Finder or iTunes and scan that, or scan the app's container "
                    + "itself."
            }
            return finding(
                p.path,
                p.vanished
                    ? "vanished or moved during the scan (\(p.operation): \(p.reason))"
                    : "could not \(p.operation): \(p.reason)", fix: fix)
        }
    }

    /// The finding for an entry whose contents the rules needed and could not read: once per
    /// entry, naming every rule left unchecked, and why. From a device backup the fix is the
    /// backup's (nothing on disk to make readable).
    func finding(for unread: UnreadContent) -> Finding {
        let fix: String? =
            unread.absentFromBackup
            ? "The backup's Manifest.db lists this file, and its folder holds no copy of it (XX/FILEID): make a new "
                + "backup of the device with Finder or iTunes and scan that, or scan the app's container itself."
            : unread.fromBackup
                ? "The backup's copy of this file could not be read (the reason says why): make a new backup of the "
                    + "device with Finder or iTunes and scan that, or scan the app's container itself."
                : nil
        return finding(
            unread.path,
            "could not read \(unread.wanted) of \(unread.path.display): \(unread.consequences) (\(unread.why))",
            fix: fix)
    }
}

extension RuleCatalogue {
    /// `unreadable-entry`'s id, for the findings of content reads that failed.
    static let unreadableEntryID = UnreadableEntry().id

    /// The `unreadable-entry` finding for an entry whose contents the rules could not read.
    static func unreadContentFinding(_ unread: UnreadContent) -> Finding { UnreadableEntry().finding(for: unread) }
}
