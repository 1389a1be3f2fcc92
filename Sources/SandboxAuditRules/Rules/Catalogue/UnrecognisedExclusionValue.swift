import SandboxAuditCore
import SandboxAuditSystem

/// `unrecognised-exclusion-value`: an exclude attribute whose value is none of the known encodings.
struct UnrecognisedExclusionValue: Rule {
    init() {}
    let description = RuleDescription(
        id: "unrecognised-exclusion-value",
        name: "Unrecognised exclusion value",
        summary:
            "The exclude attribute holds a value that is neither the canonical binary plist, the plain string "
            + "com.apple.backupd, nor another plist (value class `other`, e.g. empty or `true`).",
        rationale: """
            Presence alone excludes the item, whatever the value, but a value isExcludedFromBackup does not \
            write means the attribute was set another way: by hand, by a tool, or by code written for the legacy \
            com.apple.MobileBackup attribute, whose documented value is the byte 1 (\(References.qa1719)), \
            with the new attribute's name. The next tool may read such a value differently (the value Apple's \
            API writes: \(References.isExcludedFromBackup); the values seen in the wild: \(References.valueClasses)).
            """,
        fix: "Rewrite it through URLResourceValues.isExcludedFromBackup (or sandbox-audit exclude PATH).",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "Written by hand as `true`", [.file("Library/Application Support/blob", .exclude(.other))],
                expect: ["Library/Application Support/blob"]),
            RuleExample(
                "An empty value in a sidecar", [.file("Library/Application Support/blob", .raw([], via: .sidecar))],
                expect: ["Library/Application Support/blob"]),
            RuleExample(
                "The legacy attribute's byte 1 under the new name",
                [.file("Library/Application Support/blob", .raw(BackupAttribute.legacyValue, via: .native))],
                expect: ["Library/Application Support/blob"]),
        ],
        nonTriggeringExamples: [
            RuleExample("Canonical value", [.file("Library/Application Support/a", .exclude(.canonical))]),
            RuleExample(
                "Plain string and XML plist",
                [
                    .file("Library/Application Support/b", .exclude(.string)),
                    .file("Library/Application Support/c", .exclude(.plistOther)),
                ]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        var out: [Finding] = []
        func inspect(_ path: ContainerPath, _ marks: [AttributeMark]) {
            for m in marks where m.attribute == .exclude && m.valueClass == .other {
                let shown =
                    m.value.isEmpty
                    ? "an empty value"
                    : m.value == BackupAttribute.legacyValue
                        ? "the byte 1, the value Apple documents for the legacy com.apple.MobileBackup attribute "
                            + "(QA1719), which isExcludedFromBackup does not write"
                        : "the value \"\(ByteText.display(m.value.prefix(40)))\", which isExcludedFromBackup does "
                            + "not write"
                let carrier = FixCommand.carrier(m.source)
                let fix = FixCommand.command("exclude", path, marks: marks, in: inventory, only: carrier).map {
                    "Rewrite it through URLResourceValues.isExcludedFromBackup, or replace the value in place (in "
                        + "\(FixCommand.carrierPhrase([m]))): \($0)"
                }
                out.append(
                    finding(path, "exclude attribute (\(m.source.kind) \(m.source.detail)) holds \(shown)", fix: fix))
            }
        }
        inspect(.root, inventory.rootMarks)
        let entries = inventory.entries
        for i in entries.indices where entries.hasMarks(i) {
            let e = entries[i]
            inspect(e.path, e.entry.marks)
        }
        return out
    }
}
