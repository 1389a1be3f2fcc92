import SandboxAuditSystem

/// A Simulator device named with `--simulator DEVICE` (`booted`, a UDID or a name) and
/// `--app BUNDLE_ID`: the path is not read; the device found in the device sets gives the app's
/// containers, its extensions' and the App Groups named. They are container folders on disk.
struct SimulatorInput: InputKind {
    static let name = "Simulator device"
    static let shortName = "device"
    static let capabilities = FolderInput.capabilities

    let spec: String
    let selection: ContainerSelection

    /// Taken when `--simulator` names a device, whatever the path.
    static func detect(_ path: String, _ selection: ContainerSelection) -> SimulatorInput? {
        selection.simulator.map { SimulatorInput(spec: $0, selection: selection) }
    }

    /// The device's containers for the app (`AppContainers.onSimulator`), each walked by
    /// `FolderWalk`; the reports name the app's data container as the input.
    func read() throws -> InputRead {
        let found = try AppContainers.onSimulator(spec, selection)
        let containers = found.containers.map { $0.found(in: SimulatorInput.self) }
        return InputRead(input: containers[0].input, containers: try FolderInput.walk(containers), notes: found.notes)
    }

    static func contentReader(for container: Container) -> ContentReader? { ContentReader(folder: container) }
}
