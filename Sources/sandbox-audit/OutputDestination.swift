import Foundation
import SandboxAudit

/// Checks, before any input is read, that a file a command will write can be written: its
/// folder exists, is a folder and is writable, and (where the command refuses to overwrite)
/// nothing is there yet. The write itself still goes through `AtomicFile`, which checks again;
/// this only moves the predictable failures ahead of a long scan.
enum OutputDestination {
    /// `force`: the option that lets the command replace the file, named in the refusal.
    static func check(_ path: String, option: String, replaces: Bool, force: String? = nil) throws {
        let fm = FileManager.default
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard fm.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw InputError("\(option): the folder \(folder) does not exist; create it first")
        }
        guard isFolder.boolValue else { throw InputError("\(option): \(folder) is not a folder") }
        guard fm.isWritableFile(atPath: folder) else {
            throw InputError("\(option): cannot write in \(folder): permission denied")
        }
        var target: ObjCBool = false
        if fm.fileExists(atPath: path, isDirectory: &target) {
            if target.boolValue { throw InputError("\(option): \(path) is a folder") }
            if !replaces {
                throw InputError(
                    "\(option): \(path) exists; refusing to overwrite it" + (force.map { " (\($0) replaces it)" } ?? "")
                )
            }
        }
    }
}
