import SandboxAuditCore
import SandboxAuditSystem

/// `exclusion-lost`: with a baseline, a file excluded from backup then and backed up now.
struct ExclusionLost: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.baseline)]
    let description = RuleDescription(
        id: "exclusion-lost",
        name: "Exclusion lost",
        summary:
            "With --baseline: a file that was excluded from backup in the baseline is backed up now; the message "
            + "says whether the file was replaced (new inode) or the attribute removed.",
        rationale: """
            The exclude attribute belongs to the file, not to its path: Apple says that "some operations \
            commonly made to user documents will cause this property to be reset to false" \
            (\(References.isExcludedFromBackup)), and: "Set this property each time you save a file because \
            some common file operations cause this property to reset to false" \
            (\(References.isExcludedFromBackupKey)). \
            An atomic write or safe save writes a new file and renames it over the old one: the new file has \
            a new inode and no attribute, so what the app excluded once goes back into every backup \
            (\(References.qa1719)). Setting the attribute only after the data is written leaves the same gap: \
            excluded too late (\(References.issue("kiwix/kiwix-apple", 181))). Two observations show it: the \
            baseline recorded the file excluded, this scan finds it backed up.
            """,
        fix:
            "Set isExcludedFromBackup again after every save of the file (an atomic write replaces it without the "
            + "attribute), or exclude the folder that holds it.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "Replaced by an atomic write since the baseline",
                [.file("Library/Application Support/index.db", size: 4000)],
                expect: ["Library/Application Support/index.db"],
                before: [.file("Library/Application Support/index.db", size: 3000, .exclude())],
                recreated: ["Library/Application Support/index.db"]),
            RuleExample(
                "The same file, its attribute removed", [.file("Library/Application Support/model.bin", size: 2000)],
                expect: ["Library/Application Support/model.bin"],
                before: [.file("Library/Application Support/model.bin", size: 2000, .exclude())]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Replaced, and excluded again after the save",
                [.file("Library/Application Support/index.db", size: 4000, .exclude())],
                before: [.file("Library/Application Support/index.db", size: 3000, .exclude())],
                recreated: ["Library/Application Support/index.db"]),
            RuleExample(
                "Backed up in the baseline too", [.file("Documents/notes.txt", size: 100)],
                before: [.file("Documents/notes.txt", size: 80)]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        guard let baseline = context.baseline else { return [] }
        var findings: [Finding] = []
        // The entries come in path order: each file looked for from the last one found.
        var files = baseline.lookup(domain: inventory.domain)
        let entries = inventory.entries
        for i in entries.indices where entries.isBackedUp(i) && entries.countsAsContent(i) {
            let e = entries[i]
            guard let old = files.file(e.path), old.excluded == true else { continue }
            let now = e.entry.inode
            let how: String
            switch old.inode {
            case .some(let before) where before != now:
                how =
                    "replaced since the baseline: inode \(before) → \(now); an atomic write makes a new file without "
                    + "the attribute: set it again after every save"
            case .some:
                how = "the same file (inode \(now)): the attribute was removed"
            case .none:
                how = "the baseline has no inode to tell a replaced file from a removed attribute"
            }
            findings.append(
                finding(
                    e.path,
                    "excluded from backup in the baseline, backed up now (\(ByteSize.format(e.entry.size))): \(how)",
                    size: e.entry.size))
        }
        return findings
    }
}
