import ArgumentParser
import Foundation
import SandboxAudit

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract:
            "Write a starter policy file, show the effective configuration, or print the policy file's JSON Schema.",
        subcommands: [Init.self, Show.self, Schema.self])

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "WRITES: create a commented .sandbox-audit.yml (refuses to overwrite an existing file).",
            discussion:
                "Every setting is written with its default; the budgets are written commented out, so that a first "
                + "scan fails only on findings: set the budgets from what a scan reports."
        )

        @Argument(help: "Where to write it (- for standard output).")
        var path: String = PolicyFile.fileName

        func run() throws {
            if path == "-" { return emit(PolicyFile.starter) }
            try OutputDestination.check(path, option: "config init", replaces: false)
            try AtomicFile.write(Array(PolicyFile.starter.utf8), to: path, overwrite: false)
            emit("wrote \(path)\n")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print the effective configuration (the policy file found or given, defaults merged) as a policy "
                + "file that loads to the same policy."
        )

        @Option(help: "The policy file (default: .sandbox-audit.yml found from the working directory upward).")
        var config: String?

        func run() throws {
            emit(PolicyFile.render(try PolicyFile.resolve(config: config)))
        }
    }

    struct Schema: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print the policy file's JSON Schema (draft 2020-12), generated from the keys the reader checks: "
                + "what docs/policy.schema.json holds."
        )

        func run() throws {
            emit(PolicyFile.schema)
        }
    }
}
