import ArgumentParser
import Foundation
import SandboxAudit

struct InventoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inventory",
        abstract: "Print every entry with its domain, zone and backup, update and restore verdicts, as JSON Lines.",
        discussion: """
            One JSON object per line: each container (backup domain) in turn, the app's data container             first, and within it sorted by path bytes; fields in docs/inventory-format.md. Read-only.
            """)

    @Argument(help: "The data container, .xcappdata package, tar or zip archive of one, or with --app a Simulator device folder.")
    var path: String

    @OptionGroup var containers: ContainerOptions

    @Option(help: "The policy file, for its appGroups (default: .sandbox-audit.yml found from the working directory upward).")
    var config: String?

    func run() throws {
        let policy = try PolicyFile.resolve(config: config)
        let inventories = try Audit.inventories(of: path, containers.selection(policy))
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 17)
        for inventory in inventories {
          for entry in inventory.entries {
            JSONReport.entry(entry, domain: inventory.domain).appendCompact(to: &chunk)
            chunk.append(UInt8(ascii: "\n"))
            if chunk.count >= 1 << 16 {
                FileHandle.standardOutput.write(Data(chunk))
                chunk.removeAll(keepingCapacity: true)
            }
          }
        }
        FileHandle.standardOutput.write(Data(chunk))
    }
}
