import SandboxAuditSystem

/// A container folder: an app's data container, an extension's or an App Group's, an
/// `.xcappdata` package, or a Simulator device folder given with `--app` (its app's containers,
/// and the App Groups named). Every path no other kind takes is read as one: locating it says
/// why it is not a container when it is not. Each container's data root is opened once when it
/// is located (`Container.root`) and read through that descriptor by the walk, the content rules
/// and `simulate --into`.
struct FolderInput: InputKind {
    static let name = "container folder"
    static let shortName = "container"
    static let capabilities = InputCapabilities(
        observes: [.attributesOnDisk, .fileHeaders, .fileContents, .sizesOnDisk, .itemsNotBackedUp],
        materialisable: true, filesOnDisk: true, recordsBackup: false)

    let path: String
    let selection: ContainerSelection

    /// Takes every path: the last kind tried.
    static func detect(_ path: String, _ selection: ContainerSelection) -> FolderInput? {
        FolderInput(path: path, selection: selection)
    }

    /// The containers (`AppContainers.resolve`), each walked by `FolderWalk`.
    func read() throws -> InputRead {
        let found = try AppContainers.resolve(path, selection)
        return InputRead(input: path, containers: try Self.walk(found.containers), notes: found.notes)
    }

    /// Each container located, with the walk of its data root through the descriptor held.
    static func walk(_ containers: [Container]) throws -> [(container: Container, walk: WalkResult)] {
        try containers.map { ($0, try FolderWalk.read($0)) }
    }

    static func contentReader(for container: Container) -> ContentReader? { ContentReader(folder: container) }
}
