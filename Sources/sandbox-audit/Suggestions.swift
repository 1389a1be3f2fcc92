import ArgumentParser
import SandboxAudit

/// "Did you mean …?" for a word the command line does not know: a subcommand (`sacn`) or a
/// rule id (`rules oversized-file`).
enum Suggestions {
    /// The candidates `word` is likely a slip for, nearest first, at most `limit`: those within
    /// an edit distance of a third of its length (at least 2), then those that hold every
    /// hyphen-separated word of it (`oversized-file` → `oversized-backed-up-file`).
    static func near(_ word: String, in candidates: [String], limit: Int = 3) -> [String] {
        let close = candidates.map { ($0, editDistance(word, $0)) }
            .filter { $0.1 <= max(2, word.count / 3) }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.map(\.0)
        let parts = word.lowercased().split(separator: "-").filter { $0.count >= 3 }.map(String.init)
        let holding = parts.isEmpty ? [] : candidates.filter { c in
            let words = c.lowercased().split(separator: "-").map(String.init)
            return parts.allSatisfy { p in words.contains { $0.hasPrefix(p) } }
        }
        var out: [String] = []
        for c in close + holding where !out.contains(c) { out.append(c) }
        return Array(out.prefix(limit))
    }

    /// "did you mean 'a'?" or "did you mean 'a', 'b' or 'c'?"; nil for none.
    static func didYouMean(_ names: [String]) -> String? {
        guard let last = names.last else { return nil }
        let quoted = names.map { "'\($0)'" }
        return "did you mean " + (names.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + "'\(last)'") + "?"
    }

    /// The one line for a command line whose subcommand is not one (`sandbox-audit sacn`,
    /// `sandbox-audit config int`), or nil when the words name subcommands (the error is
    /// elsewhere, and ArgumentParser's message says it).
    static func unknownSubcommand(_ arguments: [String]) -> String? {
        var level = Level(SandboxAuditCommand.configuration)
        var path: [String] = []
        for word in arguments {
            // ArgumentParser's own `help SUBCOMMAND…` names the same subcommands.
            if path.isEmpty && word == "help" { continue }
            guard !word.hasPrefix("-"), !level.names.isEmpty, !level.hasDefault else { return nil }
            if let i = level.names.firstIndex(of: word) {
                level = Level(level.configurations[i])
                path.append(word)
                continue
            }
            let prefix = (["sandbox-audit"] + path).joined(separator: " ")
            let hint = didYouMean(near(word, in: level.names).map { (path + [$0]).joined(separator: " ") })
                ?? "the subcommands are " + level.names.joined(separator: ", ")
            return "'\(word)' is not a subcommand of \(prefix); \(hint) (see '\(prefix) --help')"
        }
        return nil
    }

    /// A command's subcommands: their names and configurations, and whether one is the default.
    struct Level {
        let names: [String]
        let configurations: [CommandConfiguration]
        let hasDefault: Bool

        init(_ configuration: CommandConfiguration) {
            names = configuration.subcommands.map { Suggestions.name($0) }
            configurations = configuration.subcommands.map { Suggestions.configuration($0) }
            hasDefault = configuration.defaultSubcommand != nil
        }
    }

    static func name(_ command: ParsableCommand.Type) -> String { command._commandName }
    static func configuration(_ command: ParsableCommand.Type) -> CommandConfiguration { command.configuration }
}
