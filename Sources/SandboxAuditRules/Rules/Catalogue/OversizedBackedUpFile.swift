import SandboxAuditCore
import SandboxAuditSystem

/// `oversized-backed-up-file`: a large file that backup carries.
struct OversizedBackedUpFile: Rule {
    static let size = RuleOption(
        key: "size", flag: "oversized-file-size", json: "oversizedFileSize", setting: \.oversizedFileSize, kind: .size,
        default: "10MB", inStarter: true, help: "oversized-backed-up-file threshold, in B, kB, MB, GB, KiB, MiB or GiB")
    let options = [Self.size]
    init() {}
    let description = RuleDescription(
        id: "oversized-backed-up-file",
        name: "Oversized backed-up file",
        summary: "A backed-up regular file of 10 MB or more (threshold: --oversized-file-size).",
        rationale: """
            Large files in backed-up places slow every backup and eat the user's iCloud quota, which pushes \
            users to delete the app or turn its backup off; App Review rejects apps that store downloaded \
            content where it is backed up (the iOS Data Storage Guidelines, once guideline 2.23: \
            \(References.dataStorageGuidelines); \(References.reviewGuidelines); \(References.backupBestPractices); \
            a rejection: \(References.issue("bibledit/old", 21))).
            """,
        fix: "Move re-creatable content to Library/Caches, or mark it excluded from backup (isExcludedFromBackup).",
        defaultSeverity: .error,
        severityNote: "error outside Documents; warning inside Documents, where large files may be genuine user data",
        triggeringExamples: [
            RuleExample(
                "A downloaded model in Application Support",
                [.file("Library/Application Support/model.bin", size: 10_000_000)],
                expect: ["Library/Application Support/model.bin"]),
            RuleExample(
                "A large video in Documents (warning)", [.file("Documents/video.mov", size: 25_000_000)],
                expect: ["Documents/video.mov"]),
        ],
        nonTriggeringExamples: [
            RuleExample("The same file in Caches", [.file("Library/Caches/model.bin", size: 10_000_000)]),
            RuleExample(
                "Excluded from backup", [.file("Library/Application Support/model.bin", size: 10_000_000, .exclude())]),
            RuleExample(
                "Inside an excluded folder",
                [
                    .directory("Library/Application Support/Downloads", .exclude()),
                    .file("Library/Application Support/Downloads/a.bin", size: 12_000_000),
                ]),
            RuleExample("Just under the threshold", [.file("Documents/clip.mov", size: 9_999_999)]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let limit = context.settings.oversizedFileSize
        return inventory.entries.findings(where: { c, i in c.kind(i) == .file && c.size(i) >= limit }) { e in
            guard e.entry.kind == .file, e.countsInTotals, e.backedUp == true, e.entry.size >= limit else { return nil }
            let severity: Severity = e.zone == .documents ? .warning : .error
            return finding(
                e.path, "\(ByteSize.format(e.entry.size)) file is backed up (limit \(ByteSize.format(limit)))",
                size: e.entry.size, severity: severity)
        }
    }
}

extension RuleSettings {
    /// `oversized-backed-up-file`: files this large or larger.
    public var oversizedFileSize: Int64 {
        get { self[OversizedBackedUpFile.size].bytes }
        set { self[OversizedBackedUpFile.size] = .size(newValue) }
    }
}
