import SandboxAuditSystem

/// Something the audit can observe of the app beyond its entries' paths, kinds and sizes. An input
/// kind declares those it gives (`InputCapabilities.observes`); the others come from the run's
/// options (`fromRun`: a baseline, a backup to compare with, the app's Info.plist, the policy's
/// sections). A rule declares those it needs (`Rule.needs`); where one is missing, the audit does
/// not run the rule on that container and reports it "not checked: needs …".
public enum Observation: String, CaseIterable, Sendable, Comparable {
    /// The backup attributes on disk (extended attributes, `._` sidecars, `__MACOSX` mirrors)
    /// decide what is backed up. A device backup has none to decide with: an excluded file is
    /// absent from it, and the attributes it records on the files it holds excluded nothing.
    case attributesOnDisk
    /// The first bytes of the files that may be a database (a SQLite or Realm header).
    case fileHeaders
    /// Whole file contents (a preferences plist's keys).
    case fileContents
    /// The bytes each file takes on disk (blocks allocated), not only its size.
    case sizesOnDisk
    /// Each file's data protection class (a device backup records it).
    case protectionClasses
    /// The items iOS does not back up (tmp, Library/Caches, excluded files, special files,
    /// items at the data root): a container holds them, a device backup holds none of them, so
    /// a rule about them finds nothing there for want of its subject.
    case itemsNotBackedUp
    /// The app's own Info.plist (`--app-info`, or the app's bundle on a Simulator device).
    case appInfo
    /// An earlier release's baseline (`--baseline`).
    case baseline
    /// A real device backup to hold the prediction against (`--against-backup`).
    case backupToCompare
    /// The policy file's `paths:` entries.
    case policyPaths
    /// The policy file's `budgets:`.
    case policyBudgets
    /// The policy file's `protection:` requirements.
    case policyProtection
    /// The app's Swift and Objective-C sources (`--sources DIR`).
    case sources

    public static func < (a: Observation, b: Observation) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Given by the run's options, not by the input kind.
    package var fromRun: Bool {
        switch self {
        case .appInfo, .baseline, .backupToCompare, .policyPaths, .policyBudgets, .policyProtection, .sources:
            return true
        default: return false
        }
    }

    /// What the reports say is needed: "needs " + this.
    package var needed: String {
        switch self {
        case .attributesOnDisk:
            return "the backup attributes on disk (a device backup holds no excluded file to see them on)"
        case .fileHeaders: return "the files' first bytes (this input holds none)"
        case .fileContents: return "the files' contents (this input holds none)"
        case .sizesOnDisk: return "the sizes on disk (blocks allocated)"
        case .protectionClasses:
            return "data protection classes (a device backup's Manifest.db has them: scan a backup folder)"
        case .itemsNotBackedUp:
            return
                "the items iOS does not back up (a device backup holds only what it backs up: scan the container, an "
                + "archive of it or the Simulator device)"
        case .appInfo: return "the app's Info.plist (--app-info, or the app's bundle on a Simulator device)"
        case .baseline: return "a baseline (--baseline)"
        case .backupToCompare: return "a backup to compare with (--against-backup)"
        case .policyPaths: return "path entries in the policy file (paths:)"
        case .policyBudgets: return "budgets in the policy file (budgets: or growth:)"
        case .policyProtection: return "protection requirements in the policy file (protection:)"
        case .sources: return "the app's sources (--sources DIR)"
        }
    }
}

/// What an input lets the scan observe, as each kind declares it: the audit, the rules and the
/// reports ask this, never which kind of input was given.
package struct InputCapabilities: Sendable, Equatable {
    /// What the input lets the scan observe (none of them `fromRun`).
    package let observes: Set<Observation>
    /// `simulate --into` can write what an event leaves as a real tree: the input holds the
    /// files' bytes as a tree (a backup stores them by fileID).
    package let materialisable: Bool
    /// Its containers are folders on disk: a fix command (`sandbox-audit exclude PATH`) can
    /// name their files.
    package let filesOnDisk: Bool
    /// Its entries are what a device backup holds: their verdicts are what iOS did, not a
    /// prediction (an App Clip's data, which iOS never backs up, cannot be in it).
    package let recordsBackup: Bool

    package init(observes: Set<Observation>, materialisable: Bool, filesOnDisk: Bool, recordsBackup: Bool) {
        precondition(!observes.contains { $0.fromRun }, "an input kind declares only what the input gives")
        self.observes = observes
        self.materialisable = materialisable
        self.filesOnDisk = filesOnDisk
        self.recordsBackup = recordsBackup
    }

    /// The backup attributes on disk decide what is backed up.
    package var attributesDecide: Bool { observes.contains(.attributesOnDisk) }
    /// Each file's data protection class is recorded.
    package var protectionClasses: Bool { observes.contains(.protectionClasses) }
    /// Each file's blocks on disk are known (a file needs at most those to be copied).
    package var sizesOnDisk: Bool { observes.contains(.sizesOnDisk) }
}

/// One kind of input a user can give (a folder container, an archive, a backup folder, a
/// Simulator device). Each kind is one type in `Input/`, with its walk in `Walk/`; `InputKinds.all`
/// lists them, and the audit runs over this protocol alone.
package protocol InputKind: Sendable {
    /// What the kind is called in messages ("backup folder").
    static var name: String { get }
    /// The short word for it ("backup": "the backup's inventory").
    static var shortName: String { get }
    static var capabilities: InputCapabilities { get }

    /// The input at `path` when it is of this kind, holding what was opened to tell; nil when
    /// it is not. Nothing is opened twice: what detection opened is what the reading uses.
    static func detect(_ path: String, _ selection: ContainerSelection) -> Self?

    /// The containers the selection names (identity included: bundle identifier, role, backup
    /// domain), each walked into entries, and what finding them had to say. Throws
    /// `InputError` when a container named cannot be audited.
    func read() throws -> InputRead

    /// The reader of a container's file contents for the rules that look inside; nil when the
    /// input holds no bytes to read back (an archive: its walk kept the headers the rules need).
    /// The audit asks for it only where the kind declares `.fileContents`.
    static func contentReader(for container: Container) -> ContentReader?
}

/// What reading an input gives.
package struct InputRead {
    /// The path reports name: the one given, or the container found for it (`--simulator`).
    package let input: String
    /// Each container and its walk, the app's data container first.
    package let containers: [(container: Container, walk: WalkResult)]
    /// What the user should know about the choice of containers.
    package let notes: [String]
}

/// The kinds of input, in the order they are tried: the first whose `detect` takes the path
/// decides. The folder kind takes any path, so it comes last: what is none of the others is
/// read as a container folder, and its errors say why it is not one.
package enum InputKinds {
    static let all: [any InputKind.Type] = [SimulatorInput.self, BackupInput.self, ArchiveInput.self, FolderInput.self]

    /// The input at `path` (with `selection.simulator`, the device it names), of the first kind
    /// that takes it.
    package static func detect(_ path: String, _ selection: ContainerSelection) -> any InputKind {
        // `-`: an archive on standard input (`scan -`), whatever a file or folder named `-` holds.
        if path == ArchiveInput.standardInputName && selection.simulator == nil {
            return ArchiveInput.standardInput(selection)
        }
        for kind in all {
            if let input = kind.detect(path, selection) { return input }
        }
        // Unreachable: the folder kind takes every path.
        return FolderInput(path: path, selection: selection)
    }

    /// The kind of the input at `path`, without reading it further.
    package static func kind(of path: String, _ selection: ContainerSelection = ContainerSelection())
        -> any InputKind.Type
    {
        // Standard input is read when its input is made: only once, by the command's own reading.
        if path == ArchiveInput.standardInputName && selection.simulator == nil { return ArchiveInput.self }
        return type(of: detect(path, selection))
    }
}
