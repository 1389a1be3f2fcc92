import SandboxAuditSystem

/// How many entries of a backup domain, and how many file bytes, sit at each data protection
/// class: every entry of the inventory once (system entries and second hard links included),
/// so that the census adds up to the `inventory` lines of the domain. Only a device backup
/// records classes: other inputs have no census.
package struct ProtectionCensus: Sendable, Equatable {
    package struct Row: Sendable, Equatable {
        /// Nil: no class recorded (0, most folders and symlinks).
        package let protectionClass: ProtectionClass?
        package var entries = 0
        package var files = 0
        /// Apparent size of the files.
        package var size: Int64 = 0
        /// `complete` … `none`, `class N`, or "not recorded".
        package var label: String { protectionClass?.name ?? "not recorded" }
    }

    /// The four file classes first (strongest first), then other numbers in order (negative
    /// ones after the others), then entries with no class; only rows that count anything.
    package let rows: [Row]

    /// The census of `inventory`, or nil when it was not read from a backup.
    package init?(_ inventory: Inventory) {
        guard inventory.container.source.capabilities.protectionClasses else { return nil }
        var byClass: [ProtectionClass?: Row] = [:]
        for item in inventory.entries {
            let c = item.protectionClass
            var row = byClass[c] ?? Row(protectionClass: c)
            row.entries += 1
            if item.entry.kind == .file {
                row.files += 1
                row.size +|= item.entry.size
            }
            byClass[c] = row
        }
        rows = byClass.values.sorted { a, b in
            switch (a.protectionClass, b.protectionClass) {
            case (nil, _): return false
            case (_, nil): return true
            case (let x?, let y?): return ProtectionClass.listedBefore(x, y)
            }
        }
    }
}
