import ArgumentParser
import Foundation
import SandboxAudit

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Write a starter policy file, or show the effective configuration.",
        subcommands: [Init.self, Show.self])

    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "WRITES: create a commented .sandbox-audit.yml (refuses to overwrite an existing file).")

        @Argument(help: "Where to write it.")
        var path: String = PolicyFile.fileName

        func run() throws {
            try AtomicFile.write(Array(PolicyFile.starter.utf8), to: path, overwrite: false)
            emit("wrote \(path)\n")
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the effective configuration (the policy file found or given, defaults merged) as YAML.")

        @Option(help: "The policy file (default: .sandbox-audit.yml found from the working directory upward).")
        var config: String?

        func run() throws {
            emit(PolicyFile.render(try PolicyFile.resolve(config: config)))
        }
    }
}
