import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// Something the scan could not read: a folder it could not list, an entry whose attributes it
/// could not read, or the content a rule needed. The figures and the rule checks leave it out,
/// so a scan that missed anything is incomplete.
package struct MissedItem: Sendable, Hashable {
    package let path: ContainerPath
    /// The backup domain of the container it is in.
    package let domain: String
    /// What was not done ("open directory", "read the first bytes: volatile-store not checked").
    package let what: String
    /// Why ("Permission denied").
    package let why: String

    init(path: ContainerPath, domain: String, what: String, why: String) {
        self.path = path
        self.domain = domain
        self.what = what
        self.why = why
    }

    /// One line: "Library: open directory (Permission denied)".
    package var line: String { "\(path.display): \(what) (\(why))" }
}

/// Every walk problem of `inventories` (what `inventory` and `simulate` could not read, as
/// `scan` reports it too), in domain then path order.
package struct Completeness: Sendable {
    package let missed: [MissedItem]

    package init(missed: [MissedItem]) { self.missed = missed }

    /// What reading the inventories missed: their walks' problems.
    package init(_ inventories: [Inventory]) {
        missed = inventories.flatMap { inv in
            inv.problems.map { MissedItem(path: $0.path, domain: inv.domain, what: $0.operation, why: $0.reason) }
        }
    }

    package var complete: Bool { missed.isEmpty }

    /// The banner every command that reads an input shows first when it missed something
    /// (`scan`, `inventory` on standard error, `simulate`): the same words, then what the
    /// command's figures leave out.
    package static func banner(_ count: Int, leavesOut what: String) -> String {
        "INCOMPLETE SCAN: \(count) \(count == 1 ? "item" : "items") could not be read; \(what) leave "
            + "\(count == 1 ? "it" : "them") out"
    }

    /// The lines naming what was missed, at most `shown` of them, then how many more.
    package func lines(shown: Int = 5, multiDomain: Bool) -> [String] {
        var lines = missed.prefix(shown).map { "  not read: " + (multiDomain ? "\($0.domain): " : "") + $0.line }
        if missed.count > shown { lines.append("  … \(missed.count - shown) more") }
        return lines
    }

    /// The verdict of a command with no findings: it fails when incomplete, unless accepted.
    package func fails(allowIncomplete: Bool) -> Bool { !complete && !allowIncomplete }
}

/// The contents of one entry that the rules needed and could not read (every rule that asked,
/// once per entry): one missed item and one `unreadable-entry` finding.
package struct UnreadContent: Sendable {
    package let path: ContainerPath
    /// Each read asked for, in the order asked.
    let misses: [ContentMiss]
    /// The backup lists the file and its folder holds no bytes for it.
    let absentFromBackup: Bool
    /// Read from a device backup (its files are not the container's on disk).
    let fromBackup: Bool

    init(path: ContainerPath, misses: [ContentMiss], absentFromBackup: Bool, fromBackup: Bool) {
        self.path = path
        self.misses = misses
        self.absentFromBackup = absentFromBackup
        self.fromBackup = fromBackup
    }

    private static func unique(_ list: [String]) -> [String] {
        var seen = Set<String>()
        return list.filter { seen.insert($0).inserted }
    }

    /// "the first bytes and the contents".
    var wanted: String { Self.unique(misses.map(\.what)).joined(separator: " and ") }
    /// "volatile-store not checked; large-user-defaults could not name its largest keys".
    var consequences: String { Self.unique(misses.map(\.consequence)).joined(separator: "; ") }
    /// Why, each reason once ("Permission denied"; "XX/FILEID is missing …").
    var why: String { Self.unique(misses.map(\.why)).joined(separator: "; ") }
    /// As a missed item's `what`: "read the first bytes: volatile-store not checked".
    var what: String { "read \(wanted): \(consequences)" }
}

/// A rule the audit did not run on a container, or ran in part, because neither the input nor
/// the run's options gave what it needs (`Rule.needs`).
package struct NotChecked: Sendable, Hashable {
    package let ruleId: String
    /// The backup domain of the container.
    package let domain: String
    /// What was missing, in `Observation` order.
    package let needs: [Observation]
    /// Nil: the rule was not run. Else it ran, and this is what it left out.
    package let partly: String?

    /// What the container's input lost of what its kind observes, with why (`Container.lost`).
    package let lost: [Observation: String]

    init(ruleId: String, domain: String, needs: [Observation], partly: String?, lost: [Observation: String] = [:]) {
        self.ruleId = ruleId
        self.domain = domain
        self.needs = needs.sorted()
        self.partly = partly
        self.lost = lost.filter { needs.contains($0.key) }
    }

    /// "needs a baseline (--baseline)"; run in part: "checked in part: without the files'
    /// contents (…), names none of the largest keys …".
    package var reason: String {
        let what = needs.map { lost[$0] ?? $0.needed }.joined(separator: " and ")
        guard let partly else { return "needs " + what }
        return "checked in part: without \(what), it \(partly)"
    }
}

/// The not-checked rules as reports list them: rules with the same reason on the same domains
/// together, in catalogue order.
package struct NotCheckedLine: Sendable, Equatable {
    package let rules: [String]
    /// Nil: every container the rules apply to; else the domains where they were not checked.
    package let domains: [String]?
    package let reason: String
    /// False: the rules were not run there. True: run in part.
    package let partly: Bool

    /// "exclusion-lost: needs a baseline (--baseline)", with the domains first when not all.
    package var text: String {
        (domains.map { $0.joined(separator: ", ") + ": " } ?? "") + rules.joined(separator: ", ") + ": " + reason
    }
}

extension AuditResult {
    /// True when the scan read everything it needed: no walk problem, no content read missed.
    package var complete: Bool { missed.isEmpty }

    /// The `notChecked` entries grouped for reports (`NotCheckedLine`).
    package var notCheckedLines: [NotCheckedLine] {
        var lines: [NotCheckedLine] = []
        var seen: [String: Int] = [:]
        var byRule: [(rule: String, reason: String, partly: Bool, domains: [String])] = []
        for n in notChecked {
            // By index: a copy of the last entry held here would make each append copy its domains.
            if let i = byRule.indices.last, byRule[i].rule == n.ruleId, byRule[i].reason == n.reason {
                byRule[i].domains.append(n.domain)
            } else {
                byRule.append((n.ruleId, n.reason, n.partly != nil, [n.domain]))
            }
        }
        for entry in byRule {
            let rule = RuleCatalogue.rule(id: entry.rule)
            let applies = inventories.filter { rule?.roles.contains($0.container.role) ?? true }.map(\.domain)
            let domains: [String]? = entry.domains == applies ? nil : entry.domains
            let key =
                entry.reason + "\u{0}" + (domains?.joined(separator: "\u{0}") ?? "") + (entry.partly ? "\u{1}" : "")
            if let i = seen[key] {
                lines[i] = NotCheckedLine(
                    rules: lines[i].rules + [entry.rule], domains: domains, reason: entry.reason, partly: entry.partly)
            } else {
                seen[key] = lines.count
                lines.append(
                    NotCheckedLine(rules: [entry.rule], domains: domains, reason: entry.reason, partly: entry.partly))
            }
        }
        return lines
    }

    /// The rules not run at all on the containers they apply to (every one of them).
    package func notRun(_ ruleId: String) -> [NotChecked] {
        notChecked.filter { $0.ruleId == ruleId && $0.partly == nil }
    }

    /// The verdict: findings at or above `level`, or an incomplete scan unless it is accepted.
    public func fails(at level: Severity, allowIncomplete: Bool) -> Bool {
        fails(at: level) || (!complete && !allowIncomplete)
    }

    /// One line for the banners of every report: how much was missed, and what it means.
    package var incompleteSummary: String {
        Completeness.banner(missed.count, leavesOut: "the figures and findings") + " (see unreadable-entry)"
    }
}
