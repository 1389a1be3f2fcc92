import SandboxAuditCore
import SandboxAuditSystem

/// `backup-prediction-mismatch`: with --against-backup, a path where the prediction and the real
/// backup disagree.
struct BackupPredictionMismatch: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.backupToCompare)]
    let description = RuleDescription(
        id: "backup-prediction-mismatch",
        name: "Backup prediction mismatch",
        summary:
            "With --against-backup: a path predicted backed up that the backup does not hold, a path the backup "
            + "holds that was predicted not backed up, or a file of another size; one finding per path, and one "
            + "per domain the backup lacks.",
        rationale: """
            The prediction follows Apple's documented rules (\(References.fileSystemBasics); \
            \(References.optimizingForICloudBackup); \(References.qa1719)) and the path sets of iOS's backup \
            (\(References.whatIOSBacksUp)). A real backup is the other observation: its Manifest.db lists \
            every path of every domain, as the public readers show (mvt-project/mvt: \
            https://github.com/mvt-project/mvt, richinfante/iphonebackuptools: \
            https://github.com/richinfante/iphonebackuptools, pymobiledevice3: \
            https://github.com/doronz88/pymobiledevice3). Where they disagree, either the container scanned \
            is not the one backed up (the app wrote since), or an exclusion did not hold on the device: both \
            are worth knowing before a user's restore finds out.
            """,
        fix:
            "Read the finding's why: re-take the backup and the container copy together, or fix the exclusion the "
            + "backup shows did not hold.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "The backup holds an excluded file",
                [.file("Library/Application Support/index.db", size: 3000, .exclude())],
                expect: ["Library/Application Support/index.db"],
                backup: BackupPredictionMismatch.folders + [.file("Library/Application Support/index.db", size: 3000)]),
            RuleExample(
                "A document predicted backed up, absent from the backup", [.file("Documents/notes.txt", size: 120)],
                expect: ["Documents/notes.txt"],
                backup: BackupPredictionMismatch.folders),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "The backup holds what was predicted; caches and tmp stay out",
                [
                    .file("Documents/notes.txt", size: 120), .file("Library/Caches/thumb.png", size: 5000),
                    .file("tmp/upload.part", size: 700),
                    .file("Library/Application Support/index.db", size: 3000, .exclude()),
                ], backup: BackupPredictionMismatch.folders + [.file("Documents/notes.txt", size: 120)])
        ])

    /// What a backup holds of an example's empty container: its backed-up folders.
    static let folders: [RuleExample.Item] = [
        "Documents", "Library", "Library/Application Support", "Library/Preferences",
    ].map { .directory($0) }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        guard let comparison = context.backupComparison, let domain = comparison.backupDomain(ofScan: inventory.domain)
        else { return [] }
        var findings: [Finding] = []
        if comparison.missingDomains.contains(domain) {
            findings.append(
                finding(
                    nil,
                    "the backup \(comparison.backup) holds no \(domain) domain: nothing of this container was backed up"
                ))
        }
        for m in comparison.mismatches(in: domain) {
            findings.append(finding(m.path, "\(m.kind.rawValue): \(m.line)", size: m.actual.size ?? m.predicted.size))
        }
        return findings
    }
}
