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
        let holding =
            parts.isEmpty
            ? []
            : candidates.filter { c in
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
        return "did you mean "
            + (names.count == 1 ? quoted[0] : quoted.dropLast().joined(separator: ", ") + " or " + "'\(last)'") + "?"
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
            let hint =
                didYouMean(near(word, in: level.names).map { (path + [$0]).joined(separator: " ") })
                ?? "the subcommands are " + level.names.joined(separator: ", ")
            return "'\(word)' is not a subcommand of \(prefix); \(hint) (see '\(prefix) --help')"
        }
        return nil
    }

    /// Names other tools give a format, and the format that is theirs here.
    static let formatAliases = [
        "gitlab": "codeclimate", "codequality": "codeclimate", "code-quality": "codeclimate",
        "gl-code-quality": "codeclimate", "checkstyle": "xcode", "md": "markdown", "xml": "junit",
    ]

    /// The one line for a value an option does not take (`--format xcodee`, `--format gitlab`),
    /// from ArgumentParser's message (which lists the values over several lines): the nearest
    /// values first, then all of them. Nil when `message` is not about such a value.
    static func invalidValue(_ message: String) -> String? {
        let lines = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lines.first, first.hasPrefix("The value '"),
            let valueEnd = first.range(of: "' is invalid for '"),
            let optionEnd = first.range(of: "'", range: valueEnd.upperBound..<first.endIndex)
        else { return nil }
        let value = String(first[first.index(first.startIndex, offsetBy: 11)..<valueEnd.lowerBound])
        let option =
            String(first[valueEnd.upperBound..<optionEnd.lowerBound]).split(separator: " ").first.map(String.init) ?? ""
        // A long list comes one value a line (`- text`), a short one inline (`one of 'a', 'b' or 'c'.`).
        var values = lines.dropFirst().filter { $0.hasPrefix("- ") }.map { String($0.dropFirst(2)) }
        if values.isEmpty, let list = first.range(of: "Please provide one of ") {
            values = first[list.upperBound...].split(separator: "'", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        guard !values.isEmpty else { return nil }
        var near = near(value.lowercased(), in: values)
        if let alias = formatAliases[value.lowercased()], values.contains(alias) {
            near = [alias] + near.filter { $0 != alias }
        }
        let hint = didYouMean(near).map { "; " + $0 } ?? ""
        return "'\(value)' is not a value of \(option)\(hint) (it takes \(values.joined(separator: ", ")))"
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
