import SandboxAuditCore
import SandboxAuditSystem

/// `unexcluded-support-data`: a sizeable file in Application Support that backup carries.
struct UnexcludedSupportData: Rule {
    static let size = RuleOption(
        key: "size", flag: "support-data-size", json: "supportDataSize", setting: \.supportDataSize, kind: .size,
        default: "1MB", inStarter: true, help: "unexcluded-support-data threshold")
    let options = [Self.size]
    init() {}
    let description = RuleDescription(
        id: "unexcluded-support-data",
        name: "Unexcluded support data",
        summary:
            "A backed-up regular file of 1 MB or more in Library/Application Support (threshold: --support-data-size).",
        rationale: """
            Application Support holds files the app downloads or generates and can re-create; Apple asks that \
            such files carry the exclude-from-backup attribute, often on a custom subfolder \
            (\(References.fileSystemBasics); \(References.backupBestPractices)). Whether a file is re-creatable is \
            the app's knowledge: this rule goes by size.
            """,
        fix:
            "Set isExcludedFromBackup on the file or on its own subfolder (sandbox-audit exclude PATH builds a "
            + "fixture).",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A downloaded catalogue", [.file("Library/Application Support/catalogue.json", size: 1_500_000)],
                expect: ["Library/Application Support/catalogue.json"])
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Excluded folder",
                [
                    .directory("Library/Application Support/Downloaded", .exclude()),
                    .file("Library/Application Support/Downloaded/catalogue.json", size: 1_500_000),
                ]),
            RuleExample("Small settings file", [.file("Library/Application Support/settings.json", size: 4_000)]),
            RuleExample("Large file in Documents", [.file("Documents/book.epub", size: 1_500_000)]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let limit = context.settings.supportDataSize
        return inventory.entries.findings(where: { c, i in
            c.zone(i) == .applicationSupport && c.kind(i) == .file && c.size(i) >= limit
        }) { e in
            guard e.zone == .applicationSupport, e.entry.kind == .file, e.countsInTotals, e.backedUp == true,
                e.entry.size >= limit
            else { return nil }
            let fix = FixCommand.command("exclude", e, in: inventory).map {
                "Set isExcludedFromBackup on the file or on its own subfolder; to mark this copy on disk: \($0)"
            }
            return finding(
                e.path,
                "\(ByteSize.format(e.entry.size)) in Application Support is backed up: if the app can re-create it, "
                    + "exclude it",
                size: e.entry.size, fix: fix)
        }
    }
}

extension RuleSettings {
    /// `unexcluded-support-data`: files this large or larger.
    public var supportDataSize: Int64 {
        get { self[UnexcludedSupportData.size].bytes }
        set { self[UnexcludedSupportData.size] = .size(newValue) }
    }
}
