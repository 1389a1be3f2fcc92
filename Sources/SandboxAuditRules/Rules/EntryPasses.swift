import SandboxAuditCore
import SandboxAuditSystem

extension InventoryEntries {
    /// A rule's pass over every entry: `test` reads each entry's columns by position (kind,
    /// zone, size …), and only an entry that passes it is made an `InventoryEntry` for `body`,
    /// which may still turn it away. `test` must hold for every entry `body` reports.
    func findings(where test: (InventoryEntries, Int) -> Bool, _ body: (InventoryEntry) -> Finding?) -> [Finding] {
        var out: [Finding] = []
        for i in indices where test(self, i) {
            if let f = body(self[i]) { out.append(f) }
        }
        return out
    }
}
