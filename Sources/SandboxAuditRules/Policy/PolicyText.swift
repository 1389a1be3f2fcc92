import Foundation
import SandboxAuditCore
import SandboxAuditSystem
import Yams

extension PolicyFile {
    /// The policy for a scan: the file given, or the one found from `directory` upward, or the
    /// defaults when there is none (a missing optional file is not an error). A file found on
    /// its own that another user could have written is not taken (`untrusted`): `note` says
    /// which and why, and `--config` takes it (as git's `safe.directory`, CVE-2022-24765).
    public static func resolve(
        config: String?, from directory: String = FileManager.default.currentDirectoryPath,
        note: (String) -> Void = { Terminal.write("sandbox-audit: note: \($0)\n", to: .error) }
    ) throws -> Policy {
        if let config { return try load(config) }
        if let found = find(from: directory) {
            if let why = untrusted(found) {
                note("skipped the policy file \(TerminalText.escaped(found)): \(why); give it with --config to use it")
                return Policy()
            }
            return try load(found)
        }
        return Policy()
    }

    /// Why the policy file at `path` may not be taken without `--config`: it, the symbolic link
    /// that names it, or the folder holding it, is owned by another user than this one or root, or writable by others
    /// (the
    /// world, or a group that is not this process's; a folder with the sticky bit lets no one
    /// replace a file they do not own). Nil when it may be taken, or cannot be read (`load`
    /// says why).
    static func untrusted(_ path: String) -> String? {
        let me = FileStatus.effectiveUser
        func who(_ uid: UInt32) -> String { uid == 0 ? "root" : "user \(uid)" }
        func writableByOthers(_ st: FileStatus) -> Bool {
            st.permissions & 0o002 != 0 || (st.permissions & 0o020 != 0 && st.group != FileStatus.effectiveGroup)
        }
        // A symbolic link counts as its owner's: another user's link would choose the policy for
        // you, whoever owns the file it points at.
        if let link = try? FileDescriptor.currentDirectory.status(of: path.utf8), link.kind == .symlink,
            link.owner != me && link.owner != 0
        {
            return "it is a symbolic link owned by \(who(link.owner)), not by you (\(who(me))) or root"
        }
        guard let file = try? FileDescriptor.currentDirectory.status(following: path.utf8) else { return nil }
        if file.owner != me && file.owner != 0 {
            return "it is owned by \(who(file.owner)), not by you (\(who(me))) or root"
        }
        if writableByOthers(file) { return "others can write it (mode \(String(file.permissions & 0o777, radix: 8)))" }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard let dir = try? FileDescriptor.currentDirectory.status(following: folder.utf8) else { return nil }
        if dir.owner != me && dir.owner != 0 {
            return "its folder is owned by \(who(dir.owner)), not by you (\(who(me))) or root"
        }
        if writableByOthers(dir), dir.permissions & 0o1000 == 0 {
            return "others can write its folder (mode \(String(dir.permissions & 0o777, radix: 8)))"
        }
        return nil
    }

    /// What `config init` writes: every key, commented. Its first line names the JSON Schema
    /// for editors that read it (the YAML language server: VS Code's YAML extension, JetBrains).
    public static let starter = """
        # yaml-language-server: $schema=\(PolicySchema.url)
        # .sandbox-audit.yml: the backup policy of this app, checked by `sandbox-audit scan`.
        # Reference: \(PolicySchema.documentation)
        # Sizes: B, kB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024). Globs are
        # relative to the data root; ** spans folders.

        # Exit 1 when a finding is at or above this severity (the command line's --fail-on wins).
        failOn: error

        # Per rule: off, a severity, or thresholds (`sandbox-audit rules` lists the ids).
        rules:
        \(starterRules)  # recreatable-in-documents: off

        # Paths left out of the audit (still counted in the totals).
        ignore:
          # - "Library/WebKit/**"

        # What may be stored where.
        paths:
          # - path: "Library/Application Support/Downloads"
          #   backup: excluded        # re-creatable: must not be backed up
          # - path: "Documents/**/*.sqlite"
          #   backup: included        # must survive a restore
          #   maxSize: 50MB
          # - path: "tmp/**"
          #   forbidden: true

        # How big the backup may grow. None is set: a budget fails the scan (budget-exceeded is an
        # error), so set each from the figures a first scan prints (its backup footprint, its zones)
        # with the room you want, then uncomment it.
        budgets:
          # backup: 25MB
          # churn: 5MB               # new or changed backed-up bytes since --baseline
          # zones:
          #   documents: 20MB
          #   caches: {max: 200MB, measure: size}
          # paths:
          #   - path: "Library/Application Support/**"
          #     max: 5MB
          # owners:                  # an owner's backed-up bytes (catalogue SDKs, or owners: below)
          #   Firebase: 2MB

        # Who owns which paths, as in CODEOWNERS: the last line covering a path wins, before the
        # built-in catalogue of SDKs (docs/owners.md). Reports show each path's owner.
        owners:
          # "Library/Application Support/Feed": feed-team
          # "Documents/Exports/**": exports

        # The weakest data protection class allowed, by glob: checked on a device backup only
        # (complete, completeUnlessOpen, completeUntilFirstUserAuthentication, none).
        # protection:
        #   "Documents/Private": complete

        # Growth of the backup footprint against --baseline: max(10% of it, 1 MB).
        # growth:
        #   backup: "10%"
        #   min: 1MB

        # The App Groups whose containers belong to the app (scanned with it on a Simulator
        # device or a backup, as --app-group does).
        # appGroups:
        #   - group.com.example.shared

        # Findings accepted for a while: not counted toward failOn, shown as suppressed with the
        # reason. After `until` (YYYY-MM-DD, UTC) the suppression-expired rule fails the run.
        # suppress:
        #   - rule: oversized-backed-up-file
        #     path: "Documents/Seed.sqlite"
        #     reason: "shipped seed database, split up in 2.4"
        #     until: 2026-12-31

        """

    /// `bytes` in the unit that writes it exactly in the fewest characters (10000000 is
    /// "10MB", 5242880 "5MiB"): the units a user writes, read back to the same number.
    static func exactSize(_ bytes: Int64) -> String {
        var best = "\(bytes)B"
        guard bytes != 0 else { return best }
        for (unit, scale) in [
            ("kB", Int64(1000)), ("KiB", 1 << 10), ("MB", 1_000_000), ("MiB", 1 << 20), ("GB", 1_000_000_000),
            ("GiB", 1 << 30),
        ]
        where bytes % scale == 0 {
            let text = "\(bytes / scale)\(unit)"
            if text.count < best.count || (text.count == best.count && !unit.contains("i")) { best = text }
        }
        return best
    }

    /// The starter's rule options: those declared `inStarter`, with their defaults.
    static var starterRules: String {
        RuleCatalogue.all.map { rule in
            let shown = rule.options.filter(\.inStarter)
            return shown.isEmpty ? "" : "  \(rule.id):\n" + shown.map { "    \($0.key): \($0.defaultText)\n" }.joined()
        }.joined()
    }

    /// The effective configuration as YAML: defaults merged, every rule listed with its severity
    /// and thresholds. It is itself a policy file: loaded, it gives the same effective policy
    /// (and renders to the same text).
    public static func render(_ policy: Policy) -> String {
        func scalar(_ s: String) -> Node { Node(s) }
        func map(_ pairs: [(String, Node)]) -> Node { Node.mapping(Node.Mapping(pairs.map { (Node($0.0), $0.1) })) }
        func size(_ b: Int64) -> Node { Node(exactSize(b)) }

        var rules: [(String, Node)] = []
        for rule in RuleCatalogue.all {
            var fields: [(String, Node)] = []
            // A rule whose default has two levels (`severityNote`) is written with a severity
            // only when the policy sets one: one severity would stand for both.
            if policy.disabledRules.contains(rule.id) {
                fields.append(("severity", scalar("off")))
            } else if let s = policy.severities[rule.id]
                ?? (rule.description.severityNote == nil ? rule.description.defaultSeverity : nil)
            {
                fields.append(("severity", scalar(s.rawValue)))
            }
            for option in rule.options {
                switch policy.settings[option] {
                case .size(let b): fields.append((option.key, size(b)))
                case .age(let a): fields.append((option.key, scalar(Age.compact(a))))
                case .count(let n): fields.append((option.key, scalar(String(n))))
                }
            }
            rules.append((rule.id, map(fields)))
        }
        var top: [(String, Node)] = [
            ("failOn", scalar(policy.failOn?.rawValue ?? "error")),
            ("rules", map(rules)),
            ("ignore", Node.sequence(Node.Sequence(policy.ignore.map { scalar($0.pattern) }))),
            (
                "paths",
                Node.sequence(
                    Node.Sequence(
                        policy.paths.map { p in
                            var f: [(String, Node)] = [("path", scalar(p.glob.pattern))]
                            if let b = p.backup { f.append(("backup", scalar(b.rawValue))) }
                            if p.forbidden { f.append(("forbidden", scalar("true"))) }
                            if let m = p.maxSize { f.append(("maxSize", size(m))) }
                            return map(f)
                        }))
            ),
        ]
        var budgets: [(String, Node)] = []
        var zones: [(String, Node)] = []
        var globs: [Node] = []
        var domains: [(String, Node)] = []
        var owners: [(String, Node)] = []
        for b in policy.budgets {
            switch b.scope {
            case .backup: budgets.append(("backup", size(b.limit)))
            case .churn: budgets.append(("churn", size(b.limit)))
            case .zone(let z):
                zones.append((z.rawValue, map([("max", size(b.limit)), ("measure", scalar(b.measure.rawValue))])))
            case .glob(let g):
                globs.append(
                    map([("path", scalar(g.pattern)), ("max", size(b.limit)), ("measure", scalar(b.measure.rawValue))]))
            case .domain(let d): domains.append((d, size(b.limit)))
            case .owner(let o): owners.append((o, size(b.limit)))
            case .growth: break
            }
        }
        if !zones.isEmpty { budgets.append(("zones", map(zones))) }
        if !domains.isEmpty { budgets.append(("domains", map(domains))) }
        if !globs.isEmpty { budgets.append(("paths", Node.sequence(Node.Sequence(globs)))) }
        if !owners.isEmpty { budgets.append(("owners", map(owners))) }
        top.append(("budgets", map(budgets)))
        if !policy.owners.isEmpty {
            top.append(("owners", map(policy.owners.map { ($0.glob.pattern, scalar($0.owner)) })))
        }
        if !policy.appGroups.isEmpty {
            top.append(("appGroups", Node.sequence(Node.Sequence(policy.appGroups.map { scalar($0) }))))
        }
        if let sources = policy.sources { top.append(("sources", scalar(sources))) }
        if !policy.protection.isEmpty {
            top.append(("protection", map(policy.protection.map { ($0.glob.pattern, scalar($0.weakest.name)) })))
        }
        if !policy.suppressions.isEmpty {
            top.append(
                (
                    "suppress",
                    Node.sequence(
                        Node.Sequence(
                            policy.suppressions.map { x in
                                var f: [(String, Node)] = [
                                    ("rule", scalar(x.ruleId)), ("path", scalar(x.glob.pattern)),
                                    ("reason", scalar(x.reason)),
                                ]
                                if let u = x.until { f.append(("until", scalar(u.description))) }
                                return map(f)
                            }))
                ))
        }
        if let g = policy.growth {
            let percent =
                g.percent == g.percent.rounded() && abs(g.percent) < 1e15 ? String(Int64(g.percent)) : "\(g.percent)"
            top.append(("growth", map([("backup", scalar("\(percent)%")), ("min", size(g.minimum))])))
        }
        let header = "# effective configuration: \(policy.source ?? "no policy file, built-in defaults")\n"
        return header + ((try? Yams.serialize(node: map(top), sortKeys: false)) ?? "")
    }
}
