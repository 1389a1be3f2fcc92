import Foundation
import SandboxAuditCore
import SandboxAuditSystem
import Yams

extension PolicyFile {
    /// `suppress:`, a list of `{rule: ID, path: GLOB, reason: TEXT, until: YYYY-MM-DD}`: `rule`,
    /// `path` and `reason` required, `until` optional. An unknown rule id is refused with the
    /// nearest one, as under `rules:`.
    static func readSuppressions(_ node: Node) throws -> [Suppression] {
        guard let seq = node.sequence else {
            throw Failure(
                message: "suppress must be a list of {rule: ID, path: GLOB, reason: TEXT, until: YYYY-MM-DD} entries",
                mark: node.mark)
        }
        return try seq.map { item in
            let m = try mapping(item, "each entry of suppress")
            try checkKeys(m, allowed: suppressKeys, in: "suppress")
            guard let r = m["rule"], let p = m["path"], let why = m["reason"] else {
                let missing = ["rule", "path", "reason"].filter { m[$0] == nil }.map { "'\($0)'" }.joined(
                    separator: " and ")
                throw Failure(
                    message:
                        "each entry of suppress needs 'rule' (a rule id), 'path' (a glob) and 'reason' (why the "
                        + "findings are accepted): \(missing) missing",
                    mark: item.mark)
            }
            let id = try string(r, "suppress.rule")
            let known = RuleCatalogue.all.map(\.id)
            guard known.contains(id) else {
                var message = "suppress.rule: unknown rule '\(id)'"
                if let near = nearest(id, in: known) { message += "; did you mean '\(near)'?" }
                message += " ('sandbox-audit rules' lists them)"
                throw Failure(message: message, mark: r.mark)
            }
            // The finding that says a suppression expired cannot itself be suppressed: it would
            // keep an expired entry in force for ever.
            guard id != RuleCatalogue.suppressionExpiredID else {
                throw Failure(
                    message:
                        "suppress.rule: \(id) cannot be suppressed: it reports a suppression past its until date; "
                        + "renew that entry's until or remove it",
                    mark: r.mark)
            }
            let glob = try glob(p, "suppress.path")
            let reason = try string(why, "suppress.reason")
            guard !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw Failure(
                    message:
                        "suppress.reason is empty: say why the findings of \(id) on '\(glob.pattern)' are accepted",
                    mark: why.mark)
            }
            var until: CalendarDay?
            if let u = m["until"] {
                let text = try string(u, "suppress.until")
                guard let day = CalendarDay(text) else {
                    throw Failure(
                        message:
                            "suppress.until: '\(text)' is not a date; write YYYY-MM-DD, e.g. 2026-12-31 (the last "
                            + "day the suppression holds, UTC)",
                        mark: u.mark)
                }
                until = day
            }
            return Suppression(ruleId: id, glob: glob, reason: reason, until: until)
        }
    }
}
