import ArgumentParser
import Foundation
import SandboxAudit
import SandboxAuditReport
import SandboxAuditRules

struct InventoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inventory",
        abstract:
            "Print every entry with its domain, zone, owner and backup, update and restore verdicts, as JSON Lines.",
        discussion: """
            One JSON object per line: each container (backup domain) in turn, the app's data container \
            first, and within it sorted by path bytes; fields in docs/inventory-format.md. Read-only. \
            When part of the container could not be read, standard error says so first (INCOMPLETE SCAN), \
            the lines of the entries not read in full carry notRead, and the exit status is 1 \
            (--allow-incomplete accepts it). \
            A progress line is shown on standard error after one second, only when it is a terminal.

            \(inputKindsHelp)

            Examples:
              sandbox-audit inventory MyApp.xcappdata > inventory.jsonl
              sandbox-audit inventory container.tgz | jq -c 'select(.backedUp) | .path'
              sandbox-audit inventory DEVICE_FOLDER --app com.example.app
              sandbox-audit inventory --simulator "iPhone 17" --app com.example.app
              sandbox-audit inventory BACKUP_FOLDER --app com.example.app --app-group group.com.example
            """)

    @Argument(help: ArgumentHelp(inputArgumentHelp))
    var path: String?

    @OptionGroup var containers: ContainerOptions

    @Option(
        help: ArgumentHelp(
            "The policy file, for its appGroups and owners (default: .sandbox-audit.yml found from the working "
                + "directory upward).")
    )
    var config: String?

    @Option(help: sourcesHelp)
    var sources: String?

    @Flag(
        name: .customLong("allow-incomplete"),
        help: ArgumentHelp(
            "Do not fail (exit 1) because part of the container could not be read; the banner on standard error and "
                + "the lines' notRead fields still say what was missed.")
    )
    var allowIncomplete = false

    func run() throws {
        let policy = try PolicyFile.resolve(config: config)
        // Read before the container: a folder that cannot be read fails the run first.
        let appSources = try (sources ?? policy.sourcesFolder).map(AppSources.read)
        let inventories = try ProgressLine.during {
            try Audit.inventories(of: try containers.input(path), try containers.selection(policy))
        }
        // What was not read, first, on standard error (standard output is the JSON Lines).
        let banner = JSONReport.incompleteBanner(inventories)
        if let banner { FileHandle.standardError.write(Data(banner.utf8)) }
        if let note = appSources?.skippedNote { FileHandle.standardError.write(Data("note: \(note)\n".utf8)) }
        JSONReport.inventoryLines(inventories, policy: policy, sources: appSources) {
            FileHandle.standardOutput.write(Data($0))
        }
        if banner != nil && !allowIncomplete { throw ExitCode(1) }
    }
}
