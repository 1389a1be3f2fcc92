import SandboxAuditCore
import SandboxAuditSystem

/// The scan's prediction held against a real backup: for every domain of the scan, the paths
/// predicted backed up and the paths the backup holds, and where the two disagree, why the
/// model predicted what it did.
package struct BackupComparison: Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        /// Predicted backed up; the backup does not hold it.
        case predictedButAbsent = "predicted-but-absent"
        /// The backup holds it; predicted not backed up (or not in the container at all).
        case presentButPredictedAbsent = "present-but-predicted-absent"
        /// A file in both, of another size.
        case sizeDiffers = "size-differs"
        /// In both, of another kind (a symlink in one, a folder in the other …).
        case kindDiffers = "kind-differs"
    }

    /// One side of a path: whether it is there (predicted backed up, or held by the backup),
    /// and its size (files and symlinks; nil for folders and for what is not there).
    package struct Side: Sendable, Equatable {
        package let present: Bool
        package let size: Int64?
    }

    package struct Mismatch: Sendable {
        package let path: ContainerPath
        /// The backup domain (`AppDomain-ID` …).
        package let domain: String
        package let kind: Kind
        /// Predicted backed up or not, with the container's size.
        package let predicted: Side
        /// The entry's kind in the container and in the backup (`kind-differs` only).
        var kinds: (container: WalkEntry.Kind, backup: WalkEntry.Kind)?
        /// In the backup or not, with the backup's size.
        package let actual: Side
        /// Why the model predicted what it did.
        package let why: String

        /// One line for the reports and the finding.
        package var line: String {
            func size(_ s: Side) -> String { s.size.map { " (\(ByteSize.format($0)))" } ?? "" }
            switch kind {
            case .predictedButAbsent:
                return "predicted backed up\(size(predicted)), not in the backup: \(why)"
            case .presentButPredictedAbsent:
                return "in the backup\(size(actual)), predicted not backed up: \(why)"
            case .sizeDiffers:
                return
                    "in the backup with \(actual.size ?? 0) bytes, the container holds \(predicted.size ?? 0) bytes: "
                    + "\(why)"
            case .kindDiffers:
                let (mine, theirs) = kinds.map { ($0.container.rawValue, $0.backup.rawValue) } ?? ("?", "?")
                return "a \(theirs) in the backup, a \(mine) in the container: \(why)"
            }
        }
    }

    /// A domain of the scan and the backup domain it was compared with.
    struct DomainPair: Sendable, Equatable {
        let scan: String
        let backup: String
    }

    /// The backup folder.
    package let backup: String
    let domains: [DomainPair]
    /// The union compared: paths predicted backed up or held by the backup.
    package let paths: Int
    /// Paths in both (files of the same size).
    package let agreeing: Int
    /// Sorted by domain, then path bytes.
    package let mismatches: [Mismatch]
    /// Backup domains of the scan that the backup does not hold at all.
    package let missingDomains: [String]

    /// Compares the scan's inventories (the prediction) with the backup's. The scan's app
    /// container that names no bundle identifier is compared with `AppDomain-APP`.
    init(prediction: [Inventory], backup: [Inventory], folder: String, app: String?) {
        self.backup = folder
        var pairs: [DomainPair] = []
        var mismatches: [Mismatch] = []
        var missing: [String] = []
        var paths = 0
        var agreeing = 0
        for inventory in prediction {
            let name = BackupComparison.backupDomain(of: inventory.container, app: app)
            pairs.append(DomainPair(scan: inventory.domain, backup: name))
            let held = backup.first { $0.domain == name }
            if held == nil { missing.append(name) }
            var inBackup: [ContainerPath: InventoryEntry] = [:]
            if let held { for e in held.entries where !e.path.isRoot { inBackup[e.path] = e } }
            let sets = inventory.container.role.pathSets
            var predicted = Set<ContainerPath>()
            let entries = inventory.entries
            for i in entries.indices where entries.isBackedUp(i) && entries.kind(i) != .other && entries.folder(i) >= 0
            {
                let e = entries[i]
                predicted.insert(e.path)
                paths += 1
                let mine = Side(present: true, size: BackupComparison.size(e))
                let why = "\(sets.decision(for: e.path).text(for: e.path)) and no exclude attribute covers it"
                guard let theirs = inBackup[e.path] else {
                    let absent = held == nil ? "; the backup holds no \(name) domain" : ""
                    mismatches.append(
                        Mismatch(
                            path: e.path, domain: name, kind: .predictedButAbsent, predicted: mine,
                            actual: Side(present: false, size: nil), why: why + absent))
                    continue
                }
                if e.entry.kind != theirs.entry.kind {
                    var m = Mismatch(
                        path: e.path, domain: name, kind: .kindDiffers, predicted: mine,
                        actual: Side(present: true, size: BackupComparison.size(theirs)),
                        why: why + "; the item was replaced by another kind between the backup and the copy scanned")
                    m.kinds = (e.entry.kind, theirs.entry.kind)
                    mismatches.append(m)
                } else if e.entry.kind == .file, e.entry.size != theirs.entry.size {
                    mismatches.append(
                        Mismatch(
                            path: e.path, domain: name, kind: .sizeDiffers, predicted: mine,
                            actual: Side(present: true, size: theirs.entry.size),
                            why: why + "; the file changed between the backup and the copy scanned"))
                } else {
                    agreeing += 1
                }
            }
            for (path, theirs) in inBackup where !predicted.contains(path) {
                paths += 1
                let mine = inventory.entry(at: path)
                mismatches.append(
                    Mismatch(
                        path: path, domain: name, kind: .presentButPredictedAbsent,
                        predicted: Side(present: false, size: mine.flatMap(BackupComparison.size)),
                        actual: Side(present: true, size: BackupComparison.size(theirs)),
                        why: mine.map { BackupComparison.whyNotBackedUp($0, sets) } ?? "not in the container"))
            }
        }
        self.domains = pairs
        self.paths = paths
        self.agreeing = agreeing
        self.mismatches = mismatches.sorted { $0.domain != $1.domain ? $0.domain < $1.domain : $0.path < $1.path }
        self.missingDomains = missing
    }

    /// The backup domain a scanned container is compared with.
    static func backupDomain(of container: Container, app: String?) -> String {
        if container.role == .app, container.bundleIdentifier == nil, let app { return ContainerRole.app.domain(app) }
        return container.domain
    }

    /// The backup domain compared with the scan's domain `scan`.
    func backupDomain(ofScan scan: String) -> String? { domains.first { $0.scan == scan }?.backup }

    /// The mismatches of one backup domain.
    func mismatches(in domain: String) -> [Mismatch] { mismatches.filter { $0.domain == domain } }

    static func size(_ e: InventoryEntry) -> Int64? {
        e.entry.kind == .file || e.entry.kind == .symlink ? e.entry.size : nil
    }

    /// Why a path the container holds was predicted not backed up.
    static func whyNotBackedUp(_ e: InventoryEntry, _ sets: BackupPathSets) -> String {
        let decision = sets.decision(for: e.path)
        if !decision.backedUp { return decision.text(for: e.path) }
        if e.entry.kind == .other {
            return
                "it is a special file (\(e.entry.special?.rawValue ?? "other")): backup takes files, folders and "
                + "symlinks"
        }
        if let by = e.excludedBy {
            if by == e.path { return "it carries the exclude-from-backup attribute" }
            return by.isRoot
                ? "the exclude-from-backup attribute on the container's root covers it"
                : "the exclude-from-backup attribute on \(by.display) covers it"
        }
        return "the system manages it, not the app"
    }
}
