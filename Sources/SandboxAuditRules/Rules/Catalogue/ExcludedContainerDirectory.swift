import SandboxAuditCore
import SandboxAuditSystem

/// `excluded-container-directory`: the attribute on one of the folders Apple defines.
struct ExcludedContainerDirectory: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.attributesOnDisk)]
    let description = RuleDescription(
        id: "excluded-container-directory",
        name: "Excluded container directory",
        summary:
            "The exclude attribute on Documents, Library, Library/Application Support, Library/Caches, "
            + "Library/Preferences, tmp or the data root itself.",
        rationale: """
            An exclusion on a directory covers its whole subtree (\(References.isExcludedFromBackup)), so marking \
            a container folder silently drops everything any part of the app, or a framework, ever puts there, \
            including preferences and user data. Apple's guidance is to mark your own subfolder of Application \
            Support (\(References.fileSystemBasics)).
            """,
        fix: "Clear it (sandbox-audit include PATH) and mark a subfolder of your own instead.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "Application Support marked wholesale", [.directory("Library/Application Support", .exclude())],
                expect: ["Library/Application Support"]),
            RuleExample(
                "Documents marked through a sidecar", [.directory("Documents", .exclude(via: .sidecar))],
                expect: ["Documents"]),
        ],
        nonTriggeringExamples: [
            RuleExample("A subfolder of its own", [.directory("Library/Application Support/Downloads", .exclude())])
        ])

    /// A group container has no folders Apple defines but Library's.
    var roles: Set<ContainerRole> { [.app, .extension] }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        var out: [Finding] = []
        func fix(_ path: ContainerPath, _ marks: [AttributeMark]) -> String? {
            FixCommand.command("include", path, marks: marks, in: inventory).map {
                "Clear it (held in \(FixCommand.carrierPhrase(marks))): \($0); then mark a subfolder of your own "
                    + "instead."
            }
        }
        if inventory.rootExcluded {
            out.append(
                finding(
                    .root, "the data root itself is excluded from backup: nothing of the app is backed up",
                    fix: fix(.root, inventory.rootMarks)))
        }
        let folders = Set(Zone.containerDirectories)
        let entries = inventory.entries
        for i in entries.indices
        where entries.isExcluded(i)
            && (entries.folder(i) == 0 || (entries.folder(i) > 0 && entries.parentFolder(entries.folder(i)) == 0))
        {
            let e = entries[i]
            guard e.excludesItself && folders.contains(e.path) else { continue }
            out.append(
                finding(
                    e.path, "a container folder carries the exclude attribute: its whole subtree is excluded",
                    fix: fix(e.path, e.entry.marks)))
        }
        return out
    }
}
