import SandboxAuditCore
import SandboxAuditSystem

/// `stale-temporary-file`: a file left in tmp.
struct StaleTemporaryFile: Rule {
    static let age = RuleOption(
        key: "age", flag: "stale-tmp-age", json: "staleTemporaryAge", setting: \.staleTemporaryAge, kind: .age,
        default: "3d", inStarter: true, help: "stale-temporary-file age: 3d, 12h, 90m, 3600s")
    let options = [Self.age]
    init() {}
    /// A device backup holds none of what this rule is about (`Observation.itemsNotBackedUp`).
    let needs: [RuleNeed] = [.requires(.itemsNotBackedUp)]
    let description = RuleDescription(
        id: "stale-temporary-file",
        name: "Stale temporary file",
        summary: "A file in tmp not modified for 3 days before the scan (threshold: --stale-tmp-age).",
        rationale: """
            Apple asks apps to delete temporary files when done; the system purges tmp only while the app is \
            not running, and an update drops it (\(References.fileSystemBasics); \
            \(References.filesSavedDuringUpdates)). \
            A file that old was forgotten: it takes space meanwhile, and anything relying on it breaks on the next \
            purge.
            """,
        fix: "Delete temporary files when the work that made them ends (or move what must stay to Caches).",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A week-old export", [.file("tmp/export.zip", size: 1024, age: 7 * 86_400)], expect: ["tmp/export.zip"])
        ],
        nonTriggeringExamples: [
            RuleExample("A fresh temporary file", [.file("tmp/upload.part", age: 3600)]),
            RuleExample("An old cache file", [.file("Library/Caches/old.json", age: 30 * 86_400)]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let limit = context.settings.staleTemporaryAge
        return inventory.entries.findings(where: { c, i in c.zone(i) == .tmp && c.kind(i) == .file }) { e in
            guard e.zone == .tmp, e.entry.kind == .file else { return nil }
            let age = context.scanTime - e.entry.modifiedTime
            guard age >= limit else { return nil }
            let days = age / 86_400
            return finding(
                e.path,
                "temporary file last modified \(days >= 10 ? String(Int(days)) : ByteSize.fixed(days, decimals: 1)) "
                    + "days before the scan (\(ByteSize.format(e.entry.size)))",
                size: e.entry.size)
        }
    }
}

extension RuleSettings {
    /// `stale-temporary-file`: files in tmp not modified for this many seconds.
    public var staleTemporaryAge: Double {
        get { self[StaleTemporaryFile.age].seconds }
        set { self[StaleTemporaryFile.age] = .age(newValue) }
    }
}
