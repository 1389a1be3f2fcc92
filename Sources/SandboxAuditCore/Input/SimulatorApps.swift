import Foundation
import SandboxAuditSystem

/// What `xcrun simctl listapps DEVICE` says of an app's App Groups (its `GroupContainers`:
/// group identifier → URL, twostraws/ControlRoom `SimCtl+Types.swift`), where `xcrun` is on
/// PATH (a Mac with Xcode). Never required: nil when `xcrun` is missing, fails, runs over
/// `timeout` seconds, prints more than `maximumOutput` bytes, or prints no plist naming the app.
enum SimulatorApps {
    static let maximumOutput = 16 << 20
    static let timeout = 30.0

    /// The App Group identifiers `listapps` gives the app, sorted.
    static func groups(of app: String, on device: SimulatorDevice,
                       environment: [String: String] = ProcessInfo.processInfo.environment) -> [String]? {
        guard let xcrun = executable("xcrun", path: environment["PATH"]) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: xcrun)
        process.arguments = ["simctl", "--set", device.deviceSet, "listapps", device.udid]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
        let bytes = (try? output.fileHandleForReading.read(upToCount: maximumOutput + 1)) ?? nil
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        deadline.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0, let bytes, bytes.count <= maximumOutput,
              let apps = BoundedPlist.dictionary([UInt8](bytes), maximumSize: maximumOutput, openStep: true),
              let info = apps[app] as? [String: Any] else { return nil }
        return ((info["GroupContainers"] as? [String: Any])?.keys).map { Array($0).sorted() } ?? []
    }

    /// `name` in the folders of `path`, when executable there.
    static func executable(_ name: String, path: String?) -> String? {
        (path ?? "").split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
