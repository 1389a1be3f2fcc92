import ArgumentParser
import SandboxAudit

struct InventoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inventory",
        abstract: "Print every entry with its zone and backup, update and restore verdicts, as JSON Lines.",
        discussion: "One JSON object per line, sorted by path bytes; fields in docs/inventory-format.md. Read-only.")

    @Argument(help: "The data container or .xcappdata package.")
    var path: String

    func run() throws {
        let inventory = try Audit.inventory(of: path)
        var chunk = ""
        chunk.reserveCapacity(1 << 16)
        for entry in inventory.entries {
            chunk += JSONReport.entry(entry).compact
            chunk += "\n"
            if chunk.utf8.count >= 1 << 16 { emit(chunk); chunk.removeAll(keepingCapacity: true) }
        }
        emit(chunk)
    }
}
