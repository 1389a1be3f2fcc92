import Foundation
import SandboxAuditSystem

/// A Simulator device's `Containers` folder, opened once: every folder below it is opened
/// from this descriptor (`openDirectory(beneath:)`: no symlink followed at any component),
/// never through its path, which names it in messages only.
package struct ContainersFolder: Sendable {
    let path: String
    let held: HeldDescriptor

    /// A real device's `…/mobile/Containers` (a file-system extraction, or a copy pulled from
    /// a device), not a Simulator device's `data/Containers`.
    var isDeviceExtraction: Bool { path.hasSuffix("/mobile/Containers") || path == "mobile/Containers" }

    /// What messages call the folder it was found in.
    var place: String {
        (isDeviceExtraction ? "device file-system extraction " : "Simulator device folder ")
            + TerminalText.escaped(path)
    }
}
