import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// App Review's own measurement of an app's data: what it stores in the backup "on launch and
/// content download", as the rejections under the old guideline 2.23 ("Apps must follow the iOS
/// Data Storage Guidelines or they will be rejected") put it. Measured on the containers as
/// scanned (after install and first launch, or a scripted onboarding, when the scan is made
/// then): the backed-up bytes of every container, where they are, whose they are, and what to do
/// with each place. The figures are the inventory's: the same bytes as `backupFootprint`.
package struct AppReviewMeasurement: Sendable {
    /// The backed-up bytes of one place of one container that one owner has: a folder two levels
    /// below the container's root (three under `Library`: `Library/Application Support/NAME`),
    /// or a file higher up on its own.
    package struct Place: Sendable, Equatable {
        package let domain: String
        package let path: ContainerPath
        /// The place is a folder (its backed-up files below it summed), not one file.
        package let isFolder: Bool
        package let zone: Zone
        /// Nil: no owner (neither the policy's `owners:` nor the catalogue covers it).
        package let owner: String?
        /// `team`, `sdk` or `framework`; nil with `owner`.
        package let ownerKind: String?
        package var files = 0
        package var bytes: Int64 = 0
        /// What to do with it, and the public sources that say so.
        package let advice: Advice
    }

    /// What to do with backed-up bytes, in one sentence, and where it is said.
    package struct Advice: Sendable, Equatable {
        package let text: String
        package let sources: [String]
    }

    /// One owner's backed-up bytes over every container (nil owner: what no owner claims).
    package struct OwnerShare: Sendable, Equatable {
        package let owner: String?
        package let kind: String?
        package var files = 0
        package var bytes: Int64 = 0
    }

    /// One container's backed-up bytes.
    package struct DomainShare: Sendable, Equatable {
        package let domain: String
        package let files: Int
        package let bytes: Int64
    }

    /// Backed-up bytes over every container: the app's backup footprint.
    package let bytes: Int64
    /// Backed-up files (a hard-linked file once).
    package let files: Int
    package let domains: [DomainShare]
    /// Every place holding backed-up bytes, most bytes first (then domain order, path, owner).
    package let places: [Place]
    /// Every owner of backed-up bytes, most bytes first; the bytes no owner claims as a nil owner.
    package let owners: [OwnerShare]

    /// Where Apple says what goes where, and the guidelines App Review applies.
    package static let guidelineSources = [
        References.dataStorageGuidelines, References.qa1719, References.reviewGuidelines,
    ]

    /// How deep a place is below the container's root: under `Library` one more level, so that a
    /// framework's or SDK's folder in `Library/Application Support` is a place of its own.
    static func placeDepth(_ path: ContainerPath) -> Int {
        path.leadingComponents(1).first.map { Array($0) == Array("Library".utf8) } == true ? 3 : 2
    }

    package init(_ inventories: [Inventory], owners: OwnerMap?) {
        struct Key: Hashable {
            let container: Int
            let path: ContainerPath
            let owner: Int32
        }
        var places: [Key: Place] = [:]
        var byOwner: [Int32: OwnerShare] = [:]
        var domains: [DomainShare] = []
        var total: Int64 = 0
        var files = 0
        for (c, inventory) in inventories.enumerated() {
            var domainBytes: Int64 = 0
            var domainFiles = 0
            let codes = owners.map { $0.codes[c] }
            var attributions: [Int32: Attribution] = [:]
            let entries = inventory.entries
            for i in entries.indices where entries.countsInTotals(i) && entries.isBackedUp(i) {
                let item = entries[i]
                let size = item.countedSize
                let isFile = item.entry.kind == .file
                guard isFile || size > 0 else { continue }
                let code = codes.map { $0[i] } ?? -1
                if code >= 0, attributions[code] == nil, let a = owners?.attribution(container: c, entry: i) {
                    attributions[code] = a
                }
                let attribution = code >= 0 ? attributions[code] : nil
                let depth = Self.placeDepth(item.path)
                let parts = item.path.leadingComponents(depth + 1)
                let isFolder = parts.count > depth
                let placePath =
                    isFolder
                    ? ContainerPath(bytes: Array(parts.prefix(depth).joined(separator: [UInt8(ascii: "/")])))
                    : item.path
                let key = Key(container: c, path: placePath, owner: code)
                var place =
                    places[key]
                    ?? Place(
                        domain: inventory.domain, path: placePath, isFolder: isFolder, zone: item.zone,
                        owner: attribution?.name, ownerKind: attribution?.kind,
                        advice: Self.advice(zone: item.zone, role: inventory.container.role, owner: attribution))
                var share = byOwner[code] ?? OwnerShare(owner: attribution?.name, kind: attribution?.kind)
                if isFile {
                    place.files += 1
                    share.files += 1
                    domainFiles += 1
                }
                place.bytes +|= size
                share.bytes +|= size
                domainBytes +|= size
                places[key] = place
                byOwner[code] = share
            }
            domains.append(DomainShare(domain: inventory.domain, files: domainFiles, bytes: domainBytes))
            total +|= domainBytes
            files += domainFiles
        }
        let order = Dictionary(inventories.enumerated().map { ($1.domain, $0) }, uniquingKeysWith: { a, _ in a })
        self.bytes = total
        self.files = files
        self.domains = domains
        self.places = places.values.sorted { a, b in
            if a.bytes != b.bytes { return a.bytes > b.bytes }
            if a.domain != b.domain { return (order[a.domain] ?? 0) < (order[b.domain] ?? 0) }
            if a.path != b.path { return a.path < b.path }
            return (a.owner ?? "") < (b.owner ?? "")
        }
        // Owners of one name (several catalogue entries of one SDK) add up.
        var merged: [String: OwnerShare] = [:]
        for share in byOwner.values {
            let key = share.owner.map { (share.kind ?? "") + "\u{0}" + $0 } ?? ""
            var m = merged[key] ?? OwnerShare(owner: share.owner, kind: share.kind)
            m.files += share.files
            m.bytes +|= share.bytes
            merged[key] = m
        }
        self.owners = merged.values.sorted { a, b in
            if a.bytes != b.bytes { return a.bytes > b.bytes }
            return (a.owner ?? "\u{10FFFF}") < (b.owner ?? "\u{10FFFF}")
        }
    }

    /// What to do with backed-up bytes: an SDK's or framework's own advice where the catalogue
    /// has it, else by where they are.
    static func advice(zone: Zone, role: ContainerRole, owner: Attribution?) -> Advice {
        if let entry = owner?.entry {
            return Advice(
                text: entry.advice,
                sources: ["\(entry.owner), where it writes: \(entry.source.url)", References.isExcludedFromBackup])
        }
        switch (zone, role) {
        case (.documents, _):
            return Advice(
                text:
                    "Documents is for what the user creates and the app cannot re-create: move downloaded or "
                    + "re-creatable files to Library/Caches (purged when storage is low) or to "
                    + "Library/Application Support marked isExcludedFromBackup.",
                sources: [References.dataStorageGuidelines, References.fileSystemBasics])
        case (.applicationSupport, _):
            return Advice(
                text:
                    "Support files the app downloads or generates again: set isExcludedFromBackup on them or on "
                    + "their folder (after each write: replacing a file drops it), or move them to "
                    + "Library/Caches if the system may purge them.",
                sources: [References.qa1719, References.isExcludedFromBackup])
        case (.preferences, _):
            return Advice(
                text:
                    "UserDefaults is backed up whole: keep settings there, and move data (responses, images, queues) "
                    + "to files in Library/Caches or an excluded folder.",
                sources: [References.optimizingForICloudBackup, References.sizeLimitExceeded])
        case (.root, .group):
            return Advice(
                text:
                    "An App Group container is backed up from its root: mark re-creatable files "
                    + "isExcludedFromBackup, or keep caches in the group's Library/Caches.",
                sources: [References.optimizingForICloudBackup, References.isExcludedFromBackup])
        default:
            return Advice(
                text:
                    "Library outside Caches is backed up: move caches to Library/Caches and temporary files to tmp, "
                    + "or mark what must persist but can be downloaded again isExcludedFromBackup.",
                sources: [References.dataStorageGuidelines, References.optimizingForICloudBackup])
        }
    }
}
