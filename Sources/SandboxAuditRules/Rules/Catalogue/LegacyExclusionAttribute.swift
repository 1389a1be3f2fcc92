import SandboxAuditCore
import SandboxAuditSystem

/// `legacy-exclusion-attribute`: `com.apple.MobileBackup` without the modern attribute.
struct LegacyExclusionAttribute: Rule {
    init() {}
    let description = RuleDescription(
        id: "legacy-exclusion-attribute",
        name: "Legacy exclusion attribute",
        summary:
            "com.apple.MobileBackup on an item that the modern attribute does not exclude: only iOS 5.0.1 honoured it.",
        rationale: """
            com.apple.MobileBackup was the do-not-back-up flag of iOS 5.0.1 alone (\(References.qa1719)); from \
            iOS 5.1 the attribute is com.apple.metadata:com_apple_backup_excludeItem, set through \
            isExcludedFromBackup (\(References.isExcludedFromBackup)). An item marked the old way only is backed up.
            """,
        fix: "Set isExcludedFromBackup (URLResourceValues) instead; the old attribute can go.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "Old code marking a download", [.file("Library/Application Support/pack.zip", .legacy())],
                expect: ["Library/Application Support/pack.zip"]),
            RuleExample(
                "Marked through a sidecar", [.directory("Library/Application Support/Packs", .legacy(via: .sidecar))],
                expect: ["Library/Application Support/Packs"]),
        ],
        nonTriggeringExamples: [
            RuleExample("Both attributes", [.file("Library/Application Support/pack.zip", .legacy(), .exclude())]),
            RuleExample(
                "Inside an excluded folder",
                [
                    .directory("Library/Application Support/Packs", .exclude()),
                    .file("Library/Application Support/Packs/a.zip", .legacy()),
                ]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.entries.findings(where: { c, i in c.hasMarks(i) }) { e in
            guard e.carriesLegacy, e.excludedBy == nil, !e.isSystem else { return nil }
            let effect = e.backedUp == true ? "it is backed up" : "\(e.zone.title) is not backed up anyway"
            let fix = FixCommand.command("include", e, in: inventory, attribute: .legacy).map {
                "Set isExcludedFromBackup (URLResourceValues) where exclusion is meant; the old attribute (in "
                    + "\(FixCommand.carrierPhrase(e.entry.marks, attribute: .legacy))) can go: \($0)"
            }
            return finding(
                e.path, "carries only the legacy com.apple.MobileBackup attribute (iOS 5.0.1): \(effect)", fix: fix)
        }
    }
}
