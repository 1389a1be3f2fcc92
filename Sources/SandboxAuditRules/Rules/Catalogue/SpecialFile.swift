import SandboxAuditCore
import SandboxAuditSystem

/// `special-file`: a FIFO, socket or device node.
struct SpecialFile: Rule {
    init() {}
    /// A device backup holds none of what this rule is about (`Observation.itemsNotBackedUp`).
    let needs: [RuleNeed] = [.requires(.itemsNotBackedUp)]
    let description = RuleDescription(
        id: "special-file",
        name: "Special file",
        summary: "A FIFO, socket or device node in the container.",
        rationale: """
            Backup carries files and folders; a FIFO or socket left behind by a crashed process or an \
            embedded server is not data, is not restored, and trips tools that copy containers. The scan \
            records it and never opens it (what backup carries: \(References.whatIOSBacksUp)).
            """,
        fix: "Create FIFOs and sockets in tmp and remove them when done.",
        defaultSeverity: .note,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A FIFO left in Application Support", [.fifo("Library/Application Support/ipc.fifo")],
                expect: ["Library/Application Support/ipc.fifo"])
        ],
        nonTriggeringExamples: [
            RuleExample("Files and a symlink", [.file("Documents/a"), .symlink("Documents/b", to: "a")])
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.entries.findings(where: { c, i in c.kind(i) == .other }) { e in
            guard e.entry.kind == .other, !e.isSystem else { return nil }
            return finding(
                e.path,
                "\(e.entry.special?.rawValue ?? "special file") in the container: it is not data and backup does not "
                    + "carry it"
            )
        }
    }
}
