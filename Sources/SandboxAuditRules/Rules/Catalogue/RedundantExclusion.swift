import SandboxAuditCore
import SandboxAuditSystem

/// `redundant-exclusion`: the attribute where backup never goes anyway.
struct RedundantExclusion: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.attributesOnDisk)]
    let description = RuleDescription(
        id: "redundant-exclusion",
        name: "Redundant exclusion",
        summary:
            "The exclude attribute on an item inside Library/Caches, tmp or the system-written Library folders, "
            + "which backup skips anyway.",
        rationale: """
            iOS's backup carries none of Library/Caches, tmp, Library/SplashBoard, Library/Saved Application \
            State and Library/SyncedPreferences (Apple, File System Programming Guide, File System Basics: \
            https://developer.apple.com/library/archive/documentation/FileManagement/Conceptual/\
            FileSystemProgrammingGuide/FileSystemOverview/FileSystemOverview.html), \
            so the attribute there changes nothing. It often means the code marks paths without knowing where \
            they live, or that the folder was meant to be elsewhere.
            """,
        fix: "Drop the isExcludedFromBackup call for this path, or check that the content belongs in Caches/tmp.",
        defaultSeverity: .note,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A marked cache file", [.file("Library/Caches/feed.json", .exclude())],
                expect: ["Library/Caches/feed.json"]),
            RuleExample(
                "A marked temporary folder", [.directory("tmp/uploads", .exclude(.string))], expect: ["tmp/uploads"]),
        ],
        nonTriggeringExamples: [
            RuleExample("A marked support file", [.file("Library/Application Support/feed.json", .exclude())])
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let folders = Set(Zone.containerDirectories)
        return inventory.entries.findings(where: { c, i in c.isExcluded(i) }) { e in
            guard e.zone == .caches || e.zone == .tmp || e.zone == .systemLibrary, e.excludesItself,
                !folders.contains(e.path)
            else { return nil }
            let fix = FixCommand.command("include", e, in: inventory).map {
                "Drop the isExcludedFromBackup call for this path, or check that the content belongs in Caches/tmp; "
                    + "the mark on disk (in \(FixCommand.carrierPhrase(e.entry.marks))) goes with: \($0)"
            }
            return finding(e.path, "excluded from backup inside \(e.zone.title), which backup skips anyway", fix: fix)
        }
    }
}
