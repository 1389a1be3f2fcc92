import ArgumentParser
import Foundation
import SandboxAudit
import SandboxAuditReport
import SandboxAuditRules

/// `sandbox-audit generate-docs`: the project's files made from its code, written in one step or
/// checked (`--check`, what the tests run). Hidden: it is for the project's own repository.
struct GenerateDocs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-docs",
        abstract:
            "WRITES: regenerate the repository's derived docs (rules.md, owners.md, policy.schema.json, usage.md).",
        discussion: """
            Rewrites each file under --root whose content differs from what the code makes, through a temporary file \
            renamed into place. \
            With --check, writes nothing and exits 1 naming the stale files.
            """,
        shouldDisplay: false)

    @Option(help: "The repository's root.")
    var root = "."

    @Flag(help: "Write nothing; exit 1 when a file is stale.")
    var check = false

    func run() throws {
        var stale: [String] = []
        for file in try DerivedFile.all(root: root) {
            let path = root + "/" + file.path
            guard (try? String(contentsOfFile: path, encoding: .utf8)) != file.content else { continue }
            stale.append(file.path)
            guard !check else { continue }
            let temporary = path + ".generate-docs"
            try Data(file.content.utf8).write(to: URL(fileURLWithPath: temporary), options: .withoutOverwriting)
            guard rename(temporary, path) == 0 else {
                throw InputError("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        }
        if check {
            guard !stale.isEmpty else { return }
            FileHandle.standardError.write(
                Data(
                    "stale: \(stale.joined(separator: ", ")) (regenerate with: swift run sandbox-audit generate-docs)\n"
                        .utf8))
            throw ExitCode(1)
        }
        emit(stale.isEmpty ? "every derived file is current\n" : "wrote \(stale.joined(separator: ", "))\n")
    }
}

/// A file of the repository made from the code: its path from the root, and its content.
struct DerivedFile {
    let path: String
    let content: String

    /// Every derived file, and the pages with a derived part (the part replaced in the page as
    /// it is under `root`; a page without the text around its part is an error).
    static func all(root: String) throws -> [DerivedFile] {
        let parts: [(path: String, after: String, before: String, text: String)] = [
            (
                "docs/policy-file.md",
                "rule's thresholds. A severity set here replaces the rule's own (for "
                    + "`oversized-backed-up-file`,\nboth its error and its warning).\n\n",
                "\n```yaml\nrules:", policyFileTable()
            ),
            (
                "docs/json-format.md", "The thresholds in force (defaults, policy file and options merged): ",
                ", and `failOn`", jsonSettingsFields()
            ),
        ]
        return [
            DerivedFile(path: "docs/rules.md", content: RulesCatalogueReport.markdown()),
            DerivedFile(path: "docs/owners.md", content: OwnerCatalogueReport.markdown()),
            DerivedFile(path: "docs/policy.schema.json", content: PolicyFile.schema),
            DerivedFile(path: "docs/usage.md", content: usage()),
        ]
            + (try parts.compactMap { part in
                guard let page = try? String(contentsOfFile: root + "/" + part.path, encoding: .utf8) else {
                    return nil
                }
                guard let start = page.range(of: part.after)?.upperBound,
                    let end = page[start...].range(of: part.before)?.lowerBound
                else {
                    throw InputError(
                        "\(part.path): the text around its generated part is not there (\(part.after.prefix(40))…)")
                }
                return DerivedFile(path: part.path, content: String(page[..<start]) + part.text + String(page[end...]))
            })
    }

    /// docs/policy-file.md's table of rule options, as the declarations give it.
    static func policyFileTable() -> String {
        var rows = ["| rule | threshold keys (defaults) | command-line option |", "|---|---|---|"]
        for rule in RuleCatalogue.all where !rule.options.isEmpty {
            let keys = rule.options.map { "`\($0.key)` (\($0.defaultText))" }.joined(separator: ", ")
            let flags = rule.options.map { "`--\($0.flag)`" }.joined(separator: ", ")
            rows.append("| `\(rule.id)` | \(keys) | \(flags) |")
        }
        return rows.joined(separator: "\n") + "\n"
    }

    /// docs/json-format.md's list of `settings` fields, grouped by unit in the order of first use.
    static func jsonSettingsFields() -> String {
        func list(_ items: [String]) -> String {
            items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
        var units: [String] = []
        for (_, o) in RuleCatalogue.options where !units.contains(o.unit) { units.append(o.unit) }
        return units.map { unit in
            list(RuleCatalogue.options.filter { $0.option.unit == unit }.map { "`\($0.option.json)`" }) + " (\(unit))"
        }.joined(separator: ", ")
    }

    /// Every command's `--help`, as the tool prints it 100 columns wide, one section a command.
    static func usage() -> String {
        var out = """
            # Command-line usage

            Every command's `--help`, generated from the code (`swift run sandbox-audit generate-docs`);
            a test fails when this page and the tool differ. What each option does in practice, with
            recipes, is in the [README](../README.md) and the pages it links.


            """
        func add(_ command: ParsableCommand.Type, _ path: [String]) {
            let configuration = command.configuration
            guard configuration.shouldDisplay else { return }
            let name = (path + [command._commandName]).joined(separator: " ")
            out += "## \(name)\n\n```text\n"
            out +=
                SandboxAuditCommand.helpMessage(for: command, columns: 100).trimmingCharacters(in: .newlines)
                + "\n```\n\n"
            for sub in configuration.subcommands { add(sub, path + [command._commandName]) }
        }
        add(SandboxAuditCommand.self, [])
        return String(out.dropLast())
    }
}
