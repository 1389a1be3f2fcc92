import SandboxAuditSystem

/// What an input lets the scan observe, as each kind declares it: the audit, the rules and the
/// reports ask this, never which kind of input was given.
package struct InputCapabilities: Sendable, Equatable {
    /// The backup attributes (extended attributes, `._` sidecars, `__MACOSX` mirrors) decide
    /// what is backed up: in a backup they do not (an excluded file is absent from it; the
    /// attributes it records on the files it holds excluded nothing).
    let attributes: Bool
    /// The bytes each file takes on disk (blocks allocated) are known, not only its size.
    let bytesOnDisk: Bool
    /// The data protection class of each file is recorded (a backup's Manifest.db has it).
    package let protectionClasses: Bool
    /// `simulate --into` can write what an event leaves as a real tree: the input holds the
    /// files' bytes as a tree (a backup stores them by fileID).
    package let materialisable: Bool
    /// Its containers are folders on disk: a fix command (`sandbox-audit exclude PATH`) can
    /// name their files.
    package let filesOnDisk: Bool
    /// Its entries are what a device backup holds: their verdicts are what iOS did, not a
    /// prediction (an App Clip's data, which iOS never backs up, cannot be in it).
    package let recordsBackup: Bool
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
        for kind in all {
            if let input = kind.detect(path, selection) { return input }
        }
        // Unreachable: the folder kind takes every path.
        return FolderInput(path: path, selection: selection)
    }

    /// The kind of the input at `path`, without reading it further.
    package static func kind(of path: String, _ selection: ContainerSelection = ContainerSelection()) -> any InputKind.Type {
        type(of: detect(path, selection))
    }
}
