import SandboxAuditCore
import SandboxAuditSystem

/// `suppression-expired`: a `suppress:` entry of the policy file is past its `until` day.
struct SuppressionExpired: Rule {
    init() {}
    let description = RuleDescription(
        id: "suppression-expired",
        name: "Suppression expired",
        summary:
            "A suppress: entry of the policy file is past its until day: it suppresses nothing any more, and this "
            + "finding, with the entry's reason, fails the run until the entry is renewed or removed. It has no "
            + "path: its message names the entry.",
        rationale: """
            A suppression is a promise to fix later; an expiry makes the promise checkable. Each suppressed \
            finding is still reported, marked as suppressed with its justification (OASIS, Static Analysis \
            Results Interchange Format (SARIF) Version 2.1.0, §3.35 suppressions: \
            https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html), and once the day passes the \
            findings it covered count again. The day is today in UTC, or the day of SOURCE_DATE_EPOCH when \
            it is set (Reproducible Builds, SOURCE_DATE_EPOCH: \
            https://reproducible-builds.org/specs/source-date-epoch/).
            """,
        fix:
            "Fix what the entry accepted and remove the entry, or give it a later until with a reason that still "
            + "holds.",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A FIFO suppressed until a day long past", [.fifo("Library/Application Support/ipc.fifo")],
                expect: ["."],
                policy:
                    "suppress:\n  - rule: special-file\n    path: \"Library/Application Support/*.fifo\"\n "
                    + "   reason: \"the IPC server removes it at launch\"\n    until: 2001-01-01\n"
            )
        ],
        nonTriggeringExamples: [
            RuleExample(
                "The same FIFO, suppressed until a day far ahead", [.fifo("Library/Application Support/ipc.fifo")],
                policy:
                    "suppress:\n  - rule: special-file\n    path: \"Library/Application Support/*.fifo\"\n "
                    + "   reason: \"the IPC server removes it at launch\"\n    until: 2999-12-31\n"
            ),
            RuleExample(
                "A suppression without an until", [.fifo("Library/Application Support/ipc.fifo")],
                policy:
                    "suppress:\n  - rule: special-file\n    path: \"**\"\n    reason: \"the IPC server removes it at "
                    + "launch\"\n"
            ),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        context.expiredSuppressions.map { s in
            // No path: the entry is about a glob, not one entry of the container.
            finding(
                nil,
                "the suppression of \(s.label) expired: its last day was \(s.until.map(\.description) ?? "?") (today "
                    + "is \(context.today), UTC); "
                    + "its reason was \"\(s.reason)\"; the findings it covered count again")
        }
    }
}

extension RuleCatalogue {
    /// `suppression-expired`'s id: a `suppress:` entry may not name it (`PolicyFile.readSuppressions`).
    static let suppressionExpiredID = SuppressionExpired().id
}
