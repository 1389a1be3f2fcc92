import SandboxAuditSystem

/// A Finder or iTunes backup folder (one holding `Manifest.db`), given with `--app`: the app's
/// domains, its extensions' and the App Groups named (`BackupContainers`), each walked from its
/// `Manifest.db` rows by `BackupWalk`. The folder is opened once (`BackupFolder.open`) and every
/// file is read through that descriptor.
package struct BackupInput: InputKind {
    package static let name = "backup folder"
    package static let shortName = "backup"
    /// Attributes recorded but deciding nothing (an excluded file is absent), sizes from
    /// Manifest.db, each file's protection class recorded; its files are stored by fileID: no
    /// tree to write or to fix.
    package static let capabilities = InputCapabilities(
        observes: [.fileHeaders, .fileContents, .protectionClasses],
        materialisable: false, filesOnDisk: false, recordsBackup: true)

    let path: String
    let selection: ContainerSelection

    /// Taken for a folder holding an entry named `Manifest.db`.
    package static func detect(_ path: String, _ selection: ContainerSelection) -> BackupInput? {
        BackupFolder.isBackup(path) ? BackupInput(path: path, selection: selection) : nil
    }

    /// `path` read as a backup folder whatever else it may be (`--against-backup`); throws
    /// `InputError` when it is not one.
    package static func open(_ path: String, _ selection: ContainerSelection) throws -> BackupInput {
        guard let input = detect(path, selection) else {
            throw InputError(
                "\(path) is not a device backup folder: it holds no \(BackupFolder.manifestDatabase) (give the "
                    + "folder named by the device's UDID)"
            )
        }
        return input
    }

    package func read() throws -> InputRead {
        let choice = try BackupContainers.read(path, selection)
        return InputRead(input: path, containers: try BackupWalk.read(choice).map { ($0, $1) }, notes: choice.notes)
    }

    package static func contentReader(for container: Container) -> ContentReader? {
        container.backup.map { ContentReader(backup: $0) }
    }
}
