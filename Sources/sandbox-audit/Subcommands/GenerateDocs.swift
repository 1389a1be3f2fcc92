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
            renamed into place; a page that is not a regular file or over 4 MiB is an error, and nothing is written. \
            With --check, writes nothing and exits 1 naming the stale files.
            """,
        shouldDisplay: false)

    @Option(help: "The repository's root.")
    var root = "."

    @Flag(help: "Write nothing; exit 1 when a file is stale.")
    var check = false

    func run() throws {
        var stale: [String] = []
        for file in try DerivedFile.all(root: root) where file.current != file.content {
            stale.append(file.path)
            if !check { try AtomicFile.write(Array(file.content.utf8), to: root + "/" + file.path) }
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

/// A file of the repository made from the code: its path from the root, its content, and what
/// the file under the root holds now (nil when there is none).
struct DerivedFile {
    let path: String
    let content: String
    let current: String?

    /// The most a page may hold: the largest made here is under 200 kB (docs/limits.md).
    static let maximumSize = 4 << 20

    /// The page under `root` at `path`, read once, bounded, never through a FIFO or a folder;
    /// nil when there is none. A page that cannot be read is an error naming it.
    static func read(_ root: String, _ path: String) throws -> String? {
        let full = root + "/" + path
        do {
            let bytes = try BoundedRead.file(Array(full.utf8), limit: maximumSize, followSymlink: true)
            guard let text = ByteText.utf8String(bytes) else { throw InputError("\(full): not UTF-8 text") }
            return text
        } catch BoundedRead.Failure.open(ENOENT) {
            return nil
        } catch let e as BoundedRead.Failure {
            throw InputError("cannot read \(full): \(e)")
        }
    }

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
                "docs/report-formats.md", "<!-- generated: the sections; swift run sandbox-audit generate-docs -->\n",
                "<!-- end of generated part -->", ReportFormat.sectionsTable()
            ),
            (
                "docs/json-format.md", "The thresholds in force (defaults, policy file and options merged): ",
                ", and `failOn`", jsonSettingsFields()
            ),
        ]
        let whole: [(path: String, content: String)] = [
            ("docs/rules.md", RulesCatalogueReport.markdown()),
            ("docs/owners.md", OwnerCatalogueReport.markdown()),
            ("docs/policy.schema.json", PolicyFile.schema),
            ("docs/usage.md", usage()),
        ]
        return try whole.map { try DerivedFile(path: $0.path, content: $0.content, current: read(root, $0.path)) }
            + parts.compactMap { part in
                guard let page = try read(root, part.path) else { return nil }
                guard let start = page.range(of: part.after)?.upperBound,
                    let end = page[start...].range(of: part.before)?.lowerBound
                else {
                    throw InputError(
                        "\(part.path): the text around its generated part is not there (\(part.after.prefix(40))…)")
                }
                let content = String(page[..<start]) + part.text + String(page[end...])
                return DerivedFile(path: part.path, content: content, current: page)
            }
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
