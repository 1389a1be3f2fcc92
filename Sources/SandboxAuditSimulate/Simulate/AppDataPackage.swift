import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// `simulate EVENT … --into NAME.xcappdata`: the app's data container as the event leaves it,
/// written as an `.xcappdata` package, the layout of Xcode's Download Container that
/// `xcrun simctl install_app_data DEVICE NAME.xcappdata` loads into the Simulator: `AppData/`
/// holding the data root (written as `Materializer` writes a tree) and `AppDataInfo.plist`
/// naming the app (`CFBundleIdentifier`, and `XCExecutableVersion` when the source says it).
///
/// The package is built as a temporary sibling (mode 0700), every part reached through
/// descriptors held from its creation, and renamed into place when complete: a failure or a
/// signal leaves nothing at the destination, and an existing package is never overwritten.
enum AppDataPackage {
    static let suffix = ".xcappdata"
    static let dataFolder = "AppData"

    /// True when `--into` names a package (`….xcappdata`).
    static func isPackage(_ destination: String) -> Bool {
        var dest = destination
        while dest.count > 1 && dest.hasSuffix("/") { dest.removeLast() }
        return dest.hasSuffix(suffix)
    }

    /// The plist naming the app; throws when the simulations are not one app data container
    /// with a bundle identifier (install_app_data loads an app's data container, nothing else).
    static func info(_ simulations: [SimulationResult], into destination: String) throws -> [UInt8] {
        guard simulations.count == 1 else {
            let domains = simulations.map(\.inventory.domain).joined(separator: ", ")
            throw InputError(
                "--into \(destination): an .xcappdata package holds one app's data container, and "
                    + "\(simulations.count) containers were read (\(domains)); give the data container alone (xcrun "
                    + "simctl get_app_container DEVICE BUNDLE_ID data), or a folder name to write each domain"
            )
        }
        let container = simulations[0].inventory.container
        guard container.role == .app else {
            throw InputError(
                "--into \(destination): an .xcappdata package holds an app's data container, and \(container.input) "
                    + "is \(container.role == .group ? "an App Group" : "an extension") container; give a folder name"
            )
        }
        guard let bundle = container.bundleIdentifier else {
            throw InputError(
                "--into \(destination): \(container.input) does not name its app (no container metadata or "
                    + "AppDataInfo.plist), and an .xcappdata package must; give a Simulator data container, an "
                    + ".xcappdata package, --simulator, or a folder name"
            )
        }
        var plist: [String: Any] = ["CFBundleIdentifier": bundle]
        if let version = container.version { plist["XCExecutableVersion"] = version }
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        return Array(data)
    }

    /// Writes the package, as `Materializer` writes a tree (the same checks, temporary sibling,
    /// exclusive rename and clean-up); the report's destination is the package (scanning it
    /// reads `AppData/`).
    static func write(_ simulations: [SimulationResult], into destination: String) throws -> Materializer.Report {
        let info = try info(simulations, into: destination)
        return try Materializer.write(simulations[0], into: destination) { packageFD, dest in
            let data = dest + "/" + dataFolder
            try attempt("create", data) { () throws(Errno) in try packageFD.makeDirectory(dataFolder.utf8, mode: 0o700)
            }
            let rootFD = try attempt("open", data) { () throws(Errno) in try packageFD.openDirectory(dataFolder.utf8) }
            defer { rootFD.close() }
            let (built, finish) = try Materializer.build(simulations[0], into: rootFD)
            let infoPath = dest + "/" + Container.appDataInfo
            let infoFD = try attempt("create", infoPath) { () throws(Errno) in
                try packageFD.open(Container.appDataInfo.utf8, .newFile, mode: 0o644)
            }
            defer { infoFD.close() }
            let written = info.withUnsafeBytes { b in Result { () throws(Errno) in try infoFD.writeAll(b) } }
            if case .failure(let e) = written { throw e.labelled("write", infoPath) }
            try? infoFD.setPermissions(0o644)  // whatever the umask made of it
            // AppData is finished now: the package around it stays 0700 until it is in place.
            try? rootFD.setPermissions(finish.mode)
            if let times = finish.times { try? rootFD.setTimes(times) }
            return (built, Materializer.RootFinish(mode: 0o755, times: nil))
        }
    }
}
