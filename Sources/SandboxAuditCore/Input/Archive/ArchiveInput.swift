import SandboxAuditSystem

/// A tar or zip archive of one container (`ArchiveWalk.swift` beside it reads it as a stream,
/// nothing extracted): a regular file, not through a symlink, whose name ends as an archive's
/// does or whose first bytes are an archive's. The file is opened once, when it is detected,
/// and read through that descriptor; its container's identity comes from the members that
/// carry it, so locating the container and walking it are one pass over the archive.
struct ArchiveInput: InputKind {
    static let name = "archive"
    static let shortName = "archive"
    /// Sizes as stored, no blocks; the first bytes of the files that may be a database (kept by the
    /// walk), no other contents; no data root on disk: a fix command cannot name its files.
    static let capabilities = InputCapabilities(
        observes: [.attributesOnDisk, .fileHeaders, .itemsNotBackedUp],
        materialisable: true, filesOnDisk: false, recordsBackup: false)

    let path: String
    let selection: ContainerSelection
    /// The file as opened when it was detected, or why it could not be opened (said when read).
    let file: Result<ArchiveSnapshot, InputError>

    /// Taken for a regular file named as an archive (opened here; a failure to open is said when
    /// it is read), or for one whose first bytes, read through the descriptor opened here, are an
    /// archive's.
    static func detect(_ path: String, _ selection: ContainerSelection) -> ArchiveInput? {
        guard Container.fileExists(path) else { return nil }
        let file = Result { () throws(InputError) in try ArchiveWalk.open(path) }
        if ArchiveWalk.isArchive(path) { return ArchiveInput(path: path, selection: selection, file: file) }
        guard case .success(let opened) = file, ArchiveWalk.hasArchiveSignature(ArchiveWalk.header(of: opened)) else {
            return nil
        }
        return ArchiveInput(path: path, selection: selection, file: file)
    }

    /// The path that names standard input: `scan -`.
    static let standardInputName = "-"

    /// The archive on standard input, read once (`StandardInput.held`: descriptor 0 itself when
    /// it is a regular file, else its bytes copied once into a temporary file with no name) and
    /// then read through that descriptor like a named archive's.
    static func standardInput(_ selection: ContainerSelection) -> ArchiveInput {
        let file = Result { () throws(InputError) in
            let held = try StandardInput.held(
                limit: selection.standardInputLimit ?? StandardInput.defaultLimit,
                signatureLength: ArchiveWalk.signatureLength, recognises: ArchiveWalk.hasArchiveSignature)
            switch Result(catching: { () throws(Errno) in try held.descriptor.status() }) {
            case .success(let status): return ArchiveSnapshot(file: held, status: status)
            case .failure(let e): throw InputError("cannot read standard input: \(errorText(e.code))")
            }
        }
        return ArchiveInput(path: standardInputName, selection: selection, file: file)
    }

    /// The archive's one container and its walk. App Groups named with it cannot be in it.
    func read() throws -> InputRead {
        if !selection.appGroups.isEmpty { throw AppContainers.loneGroupError(selection.appGroups, path) }
        // Standard input is named as such in messages and reports.
        let location = path == Self.standardInputName ? Container.standardInputLocation : path
        let (container, walk) = try ArchiveWalk.read(
            location, file: try file.get(), role: selection.role,
            recording: selection.recordsArchiveReading)
        try AppContainers.checkBelongs(container, to: selection, input: location)
        // An archive that lost every attribute says so, whatever the format.
        let notes =
            container.lost[.attributesOnDisk] == nil
            ? []
            : [
                "\(TerminalText.escaped(location)) carries no extended attributes, `._` files or `__MACOSX` folder: "
                    + "an item the app excluded from backup counts as backed up, so the backup footprint is an upper "
                    + "bound and the exclusion rules were not checked; "
                    + "archive the container with its attributes (GNU tar: --xattrs --xattrs-include='*'; bsdtar and "
                    + "macOS tar keep them)"
            ]
        return InputRead(input: path, containers: [(container, walk)], notes: notes)
    }

    /// None: the walk kept the first bytes the rules need (`Inventory.archive` holds the file).
    static func contentReader(for container: Container) -> ContentReader? { nil }
}
