import SandboxAuditCore
import SandboxAuditSystem

/// `excluded-user-data`: an exclusion inside Documents.
struct ExcludedUserData: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.attributesOnDisk)]
    let description = RuleDescription(
        id: "excluded-user-data",
        name: "Excluded user data",
        summary:
            "An item inside Documents carries the exclude-from-backup attribute: it is lost on restore to a new "
            + "device.",
        rationale: """
            Documents holds what the user created and the app cannot re-create; a restore brings back the \
            backed-up set only, so an excluded item there is gone after a new device is set up \
            (\(References.fileSystemBasics); \(References.whatIOSBacksUp)). Apple also warns that safe-save \
            operations reset the flag, so it protects nothing the app rewrites (\(References.isExcludedFromBackup)). \
            Reported once per topmost excluded item.
            """,
        fix:
            "If it can be re-created, move it to Library/Caches or Application Support; if not, clear the attribute "
            + "(sandbox-audit include PATH).",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "An excluded folder of user files",
                [
                    .directory("Documents/Projects", .exclude()), .file("Documents/Projects/a.txt"),
                    .directory("Documents/Projects/Old", .exclude()),
                ], expect: ["Documents/Projects"]),
            RuleExample(
                "An excluded file, marked through a sidecar", [.file("Documents/journal.db", .exclude(via: .sidecar))],
                expect: ["Documents/journal.db"]),
            RuleExample(
                "An excluded folder, marked in a __MACOSX mirror (an unzipped Finder archive)",
                [.directory("Documents/Drafts", .exclude(via: .macosx)), .file("Documents/Drafts/a.txt")],
                expect: ["Documents/Drafts"]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Exclusion in Application Support", [.file("Library/Application Support/index.db", .exclude())]),
            RuleExample(
                "Documents itself excluded (another rule's finding)",
                [.directory("Documents", .exclude()), .file("Documents/a.txt")]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let entries = inventory.entries
        let carriers = entries.indices.filter {
            entries.zone($0) == .documents && entries.isExcluded($0) && entries.folder($0) > 0
        }
        .map { entries[$0] }.filter { $0.excludesItself && $0.path.depth >= 2 }
        guard !carriers.isEmpty else { return [] }
        // Each carrier's topmost carrier: its own, or that of the nearest carrier above it
        // (carriers are in path order, so that one is known by then).
        var topOf: [ContainerPath: ContainerPath] = [:]
        var topmost: [InventoryEntry] = []
        for c in carriers {
            var p = c.path.parent
            while let q = p, q.depth >= 2, topOf[q] == nil { p = q.parent }
            if let q = p, q.depth >= 2, let top = topOf[q] {
                topOf[c.path] = top
            } else {
                topOf[c.path] = c.path
                topmost.append(c)
            }
        }
        // The files under one carrier come together (path order): its topmost carrier looked up,
        // and their bytes added to it, once per run.
        // What excludes a file is compared by number; its path is made once per run.
        var sizes: [ContainerPath: Int64] = [:]
        var lastBy: Int32?
        var lastTop: ContainerPath?
        var run: Int64 = 0
        for i in entries.indices
        where entries.zone(i) == .documents && entries.isExcluded(i) && entries.countsInTotals(i)
            && entries.kind(i) != .directory
        {
            let by = entries.exclusionSource(i)
            if by != lastBy {
                if let top = lastTop { sizes[top, default: 0] += run }
                lastBy = by
                lastTop = entries[i].excludedBy.flatMap { topOf[$0] }
                run = 0
            }
            if lastTop != nil { run += entries.size(i) }
        }
        if let top = lastTop { sizes[top, default: 0] += run }
        return topmost.map { c in
            let size = sizes[c.path] ?? 0
            let fix = FixCommand.command("include", c, in: inventory).map {
                "If it can be re-created, move it to Library/Caches or Application Support; if not, clear the "
                    + "attribute (held in \(FixCommand.carrierPhrase(c.entry.marks))): \($0)"
            }
            return finding(
                c.path,
                "excluded from backup inside Documents: \(ByteSize.format(size)) of user data is lost on restore",
                size: size, fix: fix)
        }
    }
}
