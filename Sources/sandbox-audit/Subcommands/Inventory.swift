import ArgumentParser
import Foundation
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
        var chunk: [UInt8] = []
        chunk.reserveCapacity(1 << 17)
        for entry in inventory.entries {
            JSONReport.entry(entry).appendCompact(to: &chunk)
            chunk.append(UInt8(ascii: "\n"))
            if chunk.count >= 1 << 16 {
                FileHandle.standardOutput.write(Data(chunk))
                chunk.removeAll(keepingCapacity: true)
            }
        }
        FileHandle.standardOutput.write(Data(chunk))
    }
}
