import Foundation
import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// The rules catalogue as text (`sandbox-audit rules`) and as Markdown (docs/rules.md, which
/// a test compares with this output so the docs cannot drift).
public enum RulesCatalogueReport {
    /// The widest line `list()` writes, in characters (a terminal's 100 columns).
    public static let listWidth = 100

    /// One rule a line: id, default severity, summary; a summary longer than the line has room
    /// for goes on over further lines, indented to its column, broken between words; no line is
    /// longer than `listWidth`.
    public static func list() -> String {
        let width = RuleCatalogue.all.map(\.id.count).max() ?? 0
        let column = width + 2 + 9
        return RuleCatalogue.all.map { r in
            let lines = wrap(r.description.summary, width: max(listWidth - column, 20))
            let head = TextReport.pad(r.id, width + 2) + TextReport.pad(r.description.defaultSeverity.rawValue, 9)
            // A word longer than the column has room for (an attribute's full name) starts
            // further left, so that the line still ends by the width.
            let rest = lines.dropFirst().map {
                String(repeating: " ", count: min(column, max(0, listWidth - $0.count))) + $0
            }
            return ([head + lines[0]] + rest).joined(separator: "\n")
        }.joined(separator: "\n") + "\n"
    }

    /// `text` broken between words into lines of at most `width` characters (a longer word on a
    /// line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        lines.append(line)
        return lines
    }

    static func describe(_ item: RuleExample.Item) -> String {
        var text: String
        switch item.kind {
        case .file(let size): text = "file `\(item.path)` (\(ByteSize.format(Int64(size))))"
        case .directory: text = "folder `\(item.path)/`"
        case .symlink(let target): text = "symlink `\(item.path)` → `\(target)`"
        case .fifo: text = "FIFO `\(item.path)`"
        case .hardLink(let other): text = "hard link `\(item.path)` to `\(other)`"
        case .bytes(let b): text = "file `\(item.path)` holding \(b.count) bytes `\(ByteText.hexString(b.prefix(16)))`"
        case .plist(let keys):
            text =
                "binary plist `\(item.path)` of a dictionary: "
                + keys.map { "`\($0.key)` (\(ByteSize.format(Int64($0.size))) of data)" }.joined(separator: ", ")
        case .files(let count, let size):
            text = "\(count) files of \(ByteSize.format(Int64(size))) in folder `\(item.path)/`"
        }
        for m in item.marks {
            let name = m.attribute.shortName
            let cls = m.attribute == .exclude ? " (\(AttributeValueClass.classify(m.value).rawValue))" : ""
            let carrier =
                m.carrier == .native
                ? "as a native attribute" : m.carrier == .sidecar ? "in a ._ sidecar" : "in a __MACOSX mirror sidecar"
            text += ", \(name)\(cls) \(carrier)"
        }
        if let age = item.age { text += ", modified \(Age.format(age)) ago" }
        if let c = item.protection { text += ", protection class `\(c.name)`" }
        return text
    }

    public static func detail(_ rule: any Rule) -> String {
        let d = rule.description
        var out = "\(d.id): \(d.name)\n"
        out += "default severity: \(d.defaultSeverity.rawValue)\(d.severityNote.map { " (\($0))" } ?? "")\n"
        out += "checks: \(containers(rule))\n"
        out += "needs: \(needs(rule))\n\n"
        out += d.summary + "\n\nWhy: " + d.rationale + "\n\nFix: " + d.fix + "\n"
        out += "More: \(References.ruleHelp(d.id))\n"
        for (title, examples) in [
            ("Triggers on", d.triggeringExamples), ("Does not trigger on", d.nonTriggeringExamples),
        ] {
            out += "\n\(title):\n"
            for ex in examples {
                out += "  - \(ex.title): " + ex.items.map(describe).joined(separator: "; ") + observed(ex)
                if !ex.expectedPaths.isEmpty {
                    out += " ⇒ reports " + ex.expectedPaths.map { "`\($0)`" }.joined(separator: ", ")
                }
                out += "\n"
                if let policy = ex.policy { out += policyBlock(policy, indent: "      ") }
            }
        }
        return out
    }

    /// An example's second observation, for the rules that compare two: the container when
    /// the baseline was written (and what an atomic write re-created since), or the backup.
    static func observed(_ ex: RuleExample) -> String {
        var parts: [String] = []
        if let before = ex.before { parts.append("at the baseline: " + before.map(describe).joined(separator: "; ")) }
        if !ex.recreated.isEmpty {
            parts.append(
                "re-created since by an atomic write: " + ex.recreated.map { "`\($0)`" }.joined(separator: ", "))
        }
        if let backup = ex.backup {
            parts.append("the backup's app domain holds: " + backup.map(describe).joined(separator: "; "))
        }
        if ex.backupInput { parts.append("a device backup's domain, scanned as the input") }
        if let keys = ex.appInfoKeys {
            parts.append(
                keys.isEmpty
                    ? "the app's Info.plist sets neither key"
                    : "the app's Info.plist sets " + keys.map { "`\($0)`" }.joined(separator: " and "))
        }
        return parts.map { " — " + $0 }.joined()
    }

    /// The containers a rule checks, in words.
    static func containers(_ rule: any Rule) -> String {
        let roles = ContainerRole.allCases.filter { rule.roles.contains($0) }
        if roles.count == ContainerRole.allCases.count { return "app, extension and App Group containers" }
        return roles.map { $0 == .group ? "App Group" : $0.rawValue }.joined(separator: " and ") + " containers only"
    }

    /// What a rule needs of the scan, in words: "nothing beyond the entries" or each need (a
    /// need it only reads says what the rule leaves out without it).
    static func needs(_ rule: any Rule) -> String {
        guard !rule.needs.isEmpty else { return "nothing beyond the entries (every input)" }
        return rule.needs.map { n in
            n.observation.needed
                + (n.without.map { " (read when there; without it, the rule \($0))" } ?? " (without it: not checked)")
        }.joined(separator: "; ")
    }

    /// An example's policy file, indented.
    static func policyBlock(_ yaml: String, indent: String) -> String {
        yaml.split(separator: "\n", omittingEmptySubsequences: false).dropLast(yaml.hasSuffix("\n") ? 1 : 0)
            .map { indent + $0 + "\n" }.joined()
    }

    public static func markdown() -> String {
        var out = """
            # Rules catalogue

            Generated by `sandbox-audit rules --format markdown`; the test suite fails when this file
            and the code disagree. Every example below is built on disk (real files, real extended
            attributes or AppleDouble sidecars) and scanned by the tests.

            | id | default | summary |
            |---|---|---|

            """
        for r in RuleCatalogue.all {
            out +=
                "| [`\(r.id)`](#\(r.id)) | \(r.description.defaultSeverity.rawValue) | "
                + "\(r.description.summary.replacingOccurrences(of: "|", with: "\\|")) |\n"
        }
        for r in RuleCatalogue.all {
            let d = r.description
            out += "\n## \(d.id)\n\n**\(d.name)**. \(d.summary)\n\n"
            out += "- Default severity: **\(d.defaultSeverity.rawValue)**\(d.severityNote.map { " (\($0))" } ?? "")\n"
            out += "- Checks: \(containers(r))\n"
            out += "- Needs: \(needs(r))\n"
            out += "- Why: \(d.rationale)\n"
            out += "- Fix: \(d.fix)\n\n"
            out += "Triggers on:\n\n"
            for ex in d.triggeringExamples {
                out +=
                    "- \(ex.title)\(ex.role == .app ? "" : " (\(ex.role.rawValue) container)"): "
                    + ex.items.map(describe).joined(separator: "; ") + observed(ex)
                out += " ⇒ reports " + ex.expectedPaths.map { "`\($0)`" }.joined(separator: ", ") + "\n"
                if let policy = ex.policy { out += "\n  ```yaml\n" + policyBlock(policy, indent: "  ") + "  ```\n" }
            }
            out += "\nDoes not trigger on:\n\n"
            for ex in d.nonTriggeringExamples {
                out +=
                    "- \(ex.title)\(ex.role == .app ? "" : " (\(ex.role.rawValue) container)"): "
                    + ex.items.map(describe).joined(separator: "; ") + observed(ex) + "\n"
                if let policy = ex.policy { out += "\n  ```yaml\n" + policyBlock(policy, indent: "  ") + "  ```\n" }
            }
        }
        return out
    }
}
