import SandboxAuditCore
import SandboxAuditSystem

/// `scoped-exclusion-attribute`: an item carrying one of the two undocumented scoped exclusion
/// attributes. Informational: they change no verdict.
struct ScopedExclusionAttribute: Rule {
    init() {}

    let description = RuleDescription(
        id: "scoped-exclusion-attribute",
        name: "Undocumented scoped exclusion attribute",
        summary:
            "An item carries com.apple.metadata:com_apple_cloudBackup_excludeItem or "
            + "com.apple.metadata:com_apple_unencryptedBackup_excludeItem (natively, in a sidecar, in an "
            + "archive, or as a device backup records it).",
        rationale: """
            Apple documents one exclusion, the attribute isExcludedFromBackup writes \
            (\(References.isExcludedFromBackup); \(References.qa1719)). Two more names appear in real device \
            backups, on one of Apple's own folders only, with the value com.apple.MobileBackup: \
            com_apple_cloudBackup_excludeItem and com_apple_unencryptedBackup_excludeItem. They are \
            undocumented; by their names they would exclude an item from iCloud backups only, or from \
            unencrypted computer backups only, but nothing public says what honours them, on which iOS \
            versions, or that an app may rely on them. So they change no verdict here (the item counts as \
            backed up, as far as they go), and this is a note: an app that sets them is relying on private \
            behaviour, and one that finds them in its container should know what it sees \
            (\(References.whatIOSBacksUp)).
            """,
        fix: "To exclude an item, set isExcludedFromBackup (URLResourceValues); do not rely on the scoped names.",
        defaultSeverity: .note,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "The iCloud-only name on a folder",
                [.directory("Library/Application Support/Media", .scoped(.cloudExclude))],
                expect: ["Library/Application Support/Media"]),
            RuleExample(
                "The unencrypted-only name in a sidecar",
                [.file("Documents/export.zip", .scoped(.unencryptedExclude, via: .sidecar))],
                expect: ["Documents/export.zip"]),
            RuleExample(
                "Both, as a device backup records them",
                [
                    .directory("Library/Media", .scoped(.cloudExclude), .scoped(.unencryptedExclude)),
                    .file("Library/Media/a.jpg", size: 100),
                ], expect: ["Library/Media"], backupInput: true),
        ],
        nonTriggeringExamples: [
            RuleExample("The documented exclusion", [.directory("Library/Application Support/Media", .exclude())]),
            RuleExample(
                "A backup folder without attributes", [.file("Library/Media/a.jpg", size: 100)], backupInput: true),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.entries.findings(where: { c, i in c.hasMarks(i) }) { e in
            let scoped = e.entry.marks.filter(\.attribute.isScoped)
            guard !scoped.isEmpty else { return nil }
            let names = Array(Set(scoped.map(\.attribute))).sorted { $0.rawValue < $1.rawValue }
            let text = names.map { "\($0.macName) (\($0.meaning))" }.joined(separator: "; ")
            let verdict = e.backedUp == true ? "it counts as backed up" : "its verdict comes from elsewhere"
            return finding(e.path, "carries \(text); \(verdict)")
        }
    }
}
