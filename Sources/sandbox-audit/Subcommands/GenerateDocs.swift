import ArgumentParser
import Foundation
import SandboxAudit
import SandboxAuditReport

/// `sandbox-audit generate-docs`: the project's files made from its code, written in one step or
/// checked (`--check`, what the tests run). Hidden: it is for the project's own repository.
struct GenerateDocs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate-docs",
        abstract: "WRITES: regenerate the repository's derived docs (rules.md, owners.md, policy.schema.json, usage.md).",
        discussion: """
            Rewrites each file under --root whose content differs from what the code makes, through a temporary file renamed into place. \
            With --check, writes nothing and exits 1 naming the stale files.
            """,
        shouldDisplay: false)

    @Option(help: "The repository's root.")
    var root = "."

    @Flag(help: "Write nothing; exit 1 when a file is stale.")
    var check = false

    func run() throws {
        var stale: [String] = []
        for file in DerivedFile.all {
            let path = root + "/" + file.path
            guard (try? String(contentsOfFile: path, encoding: .utf8)) != file.content else { continue }
            stale.append(file.path)
            guard !check else { continue }
            let temporary = path + ".generate-docs"
            try Data(file.content.utf8).write(to: URL(fileURLWithPath: temporary), options: .withoutOverwriting)
            guard rename(temporary, path) == 0 else { throw InputError("cannot write \(path): \(String(cString: strerror(errno)))") }
        }
        if check {
            guard !stale.isEmpty else { return }
            FileHandle.standardError.write(Data("stale: \(stale.joined(separator: ", ")) (regenerate with: swift run sandbox-audit generate-docs)\n".utf8))
            throw ExitCode(1)
        }
        emit(stale.isEmpty ? "every derived file is current\n" : "wrote \(stale.joined(separator: ", "))\n")
    }
}

/// A file of the repository made from the code: its path from the root, and its content.
struct DerivedFile {
    let path: String
    let content: String

    static var all: [DerivedFile] {
        [
            DerivedFile(path: "docs/rules.md", content: RulesCatalogueReport.markdown()),
            DerivedFile(path: "docs/owners.md", content: OwnerCatalogueReport.markdown()),
            DerivedFile(path: "docs/policy.schema.json", content: PolicyFile.schema),
            DerivedFile(path: "docs/usage.md", content: usage()),
        ]
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
            out += SandboxAuditCommand.helpMessage(for: command, columns: 100).trimmingCharacters(in: .newlines) + "\n```\n\n"
            for sub in configuration.subcommands { add(sub, path + [command._commandName]) }
        }
        add(SandboxAuditCommand.self, [])
        return String(out.dropLast())
    }
}
