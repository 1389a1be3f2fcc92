import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// What the app finds after an event the system controls (`BackupPathSets` says which paths):
/// - `update`: Documents and Library (Caches included) are kept; tmp and everything else at
///   the root are not; a group container is kept whole;
/// - `restore` (backup onto a new device): only what backup carried, less Saved Application
///   State and SplashBoard; Caches, tmp and the root's other items start empty, excluded
///   items are gone;
/// - `purge` (storage running low): Library/Caches (and an app's tmp) are emptied.
///
/// The container folders themselves (Documents, Library, Library/Caches, tmp …) stay, empty if
/// need be, as they would on a device; system items are kept and not counted.
public enum SimulatedEvent: String, CaseIterable, Sendable {
    case update, restore, purge
}

package struct SimulationResult: Sendable {
    package struct Lost: Sendable {
        package let path: ContainerPath
        package let size: Int64
        /// What makes it matter: "SQLite store", "large file", "policy: backup included".
        package let kind: String
        package let why: String
    }

    package struct ZoneLine: Sendable {
        package let zone: Zone
        package var keptFiles = 0, lostFiles = 0
        package var keptBytes: Int64 = 0, lostBytes: Int64 = 0
    }

    package let event: SimulatedEvent
    package let inventory: Inventory
    /// Per inventory entry (same order): does the event keep it?
    let kept: [Bool]
    /// Per app zone that has entries.
    package let zones: [ZoneLine]
    /// The lost items that matter most (stores, large files, policy `backup: included`),
    /// largest first.
    package let notable: [Lost]

    package var keptBytes: Int64 { zones.byteSum(\.keptBytes) }
    package var lostBytes: Int64 { zones.byteSum(\.lostBytes) }

    /// Files at least this large are "large" among the lost.
    static let largeFile: Int64 = 1_000_000
    static let storeSuffixes = [".sqlite", ".sqlite3", ".db", ".realm", ".store"]

    init(_ event: SimulatedEvent, _ inventory: Inventory, policy: Policy = Policy()) {
        self.event = event
        self.inventory = inventory
        // The folders Apple defines stay, empty if need be (in a group container, only Library's).
        let containerFolders = Set(
            Zone.containerDirectories.filter {
                inventory.container.role != .group || $0.bytes.starts(with: Array("Library".utf8))
            })
        var kept: [Bool] = []
        var lines = [ZoneLine?](repeating: nil, count: Zone.allCases.count)
        var notable: [Lost] = []
        let mustSurvive = policy.paths.filter { $0.backup == .included }.map(\.glob)
        for e in inventory.entries {
            let keep: Bool
            var why = ""
            if e.isSystem {
                // The system's own items stay where the device keeps them; a restore brings back
                // only what backup carried, and it carries no app's or extension's SystemData
                // (a group's SystemData is no system item: BackupPathSets decides it).
                keep = event != .restore || !e.path.bytes.starts(with: Zone.systemDataName)
            } else if containerFolders.contains(e.path) {
                keep = true
            } else {
                switch event {
                case .update:
                    keep = e.survivesUpdate == true
                    why =
                        e.zone == .tmp
                        ? "an update does not keep tmp" : "outside Documents and Library: an update does not keep it"
                case .restore:
                    keep = e.survivesRestore == true
                    if let by = e.excludedBy {
                        why = by == e.path ? "excluded from backup" : "excluded from backup by \(by.display)"
                    } else if e.placement.backedUp {
                        why = "backed up, but a restore does not put \(e.zone.title) back"
                    } else {
                        switch e.zone {
                        case .caches: why = "backup does not carry Library/Caches: it starts empty"
                        case .tmp: why = "backup does not carry tmp: it starts empty"
                        case .systemLibrary: why = "backup does not carry the system-written Library folders"
                        default:
                            why =
                                "backup carries only Documents, Library and GeoJSON: items elsewhere at the root are "
                                + "lost"
                        }
                    }
                case .purge:
                    keep = e.zone != .caches && e.zone != .tmp
                    why =
                        e.zone == .caches
                        ? "the system empties Library/Caches when storage runs low"
                        : "the system empties tmp while the app is not running"
                }
            }
            kept.append(keep)
            guard !e.isSystem, e.countsInTotals else { continue }
            var line = lines[e.zone.ordinal] ?? ZoneLine(zone: e.zone)
            let bytes = e.entry.contentSize
            if keep {
                if e.entry.kind == .file { line.keptFiles += 1 }
                line.keptBytes +|= bytes
            } else {
                if e.entry.kind == .file { line.lostFiles += 1 }
                line.lostBytes +|= bytes
                // Known system caches (the URL cache …) are meant to go.
                if e.entry.kind == .file, !StoreSignature.isSystemStore(e.path) {
                    let name = String(decoding: e.path.name, as: UTF8.self).lowercased()
                    var kinds: [String] = []
                    if let header = e.entry.header, let db = StoreSignature.databaseKind(header) {
                        kinds.append("\(db) store")
                    } else if Self.storeSuffixes.contains(where: { name.hasSuffix($0) }) {
                        kinds.append("store")
                    }
                    if bytes >= Self.largeFile { kinds.append("large file") }
                    if mustSurvive.contains(where: { $0.covers(e.path) }) { kinds.append("policy: backup included") }
                    if !kinds.isEmpty {
                        notable.append(Lost(path: e.path, size: bytes, kind: kinds.joined(separator: ", "), why: why))
                    }
                }
            }
            lines[e.zone.ordinal] = line
        }
        self.kept = kept
        self.zones = lines.compactMap { $0 }
        self.notable = notable.sorted { $0.size != $1.size ? $0.size > $1.size : $0.path < $1.path }
    }
}
