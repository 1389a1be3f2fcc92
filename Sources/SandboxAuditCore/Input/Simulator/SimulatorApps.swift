import Foundation
import SandboxAuditSystem

/// What `xcrun simctl listapps DEVICE` says of an app's App Groups (its `GroupContainers`:
/// group identifier → URL, twostraws/ControlRoom `SimCtl+Types.swift`), where `xcrun` is on
/// PATH (a Mac with Xcode). Never required: without `xcrun`, nothing; when it fails, runs over
/// `timeout` seconds (its output included: it is killed with its process group then, stopped
/// or not, whatever still holds its output), prints more than `maximumOutput` bytes, or prints
/// no plist naming the app, a note says so and the groups are guessed from their names.
/// The output is parsed within bounds: a binary or XML plist by `BoundedPlist`; the text
/// (OpenStep) form `simctl` prints, which holds no shared references, once `BoundedPlist` has
/// checked its nesting against `BoundedPlist.maximumDepth`.
enum SimulatorApps {
    static let maximumOutput = 4 << 20
    static let timeout = 30.0

    /// What `listapps` said of the app.
    enum Answer: Equatable {
        /// The App Group identifiers it gives the app, sorted.
        case groups([String])
        /// No `xcrun` on PATH: nothing to say.
        case unavailable
        /// Why no list came: the note's words.
        case failed(String)
    }

    /// The App Group identifiers `listapps` gives the app, or why there are none.
    static func groups(
        of app: String, on device: SimulatorDevice,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Answer {
        guard let xcrun = executable("xcrun", path: environment["PATH"]) else { return .unavailable }
        let run = Subprocess.run(
            xcrun, ["simctl", "--set", device.deviceSet, "listapps", device.udid], timeout: timeout,
            maximumOutput: maximumOutput)
        switch run.ending {
        case .exited(0): break
        case .exited(let code): return .failed("it exited with status \(code)")
        case .signalled(let signal): return .failed("it was ended by signal \(signal)")
        case .timedOut:
            return .failed("it ran over \(Int(timeout)) s (its output still open): it was ended with its process group")
        case .tooMuchOutput:
            return .failed(
                "it printed over \(ByteSize.format(Int64(maximumOutput))): it was ended with its process group")
        case .notStarted(let e): return .failed("it could not be started: \(errorText(e).lowercased())")
        }
        let parsed: Any
        switch BoundedPlist.decode(run.output, maximumSize: maximumOutput, openStep: true).map(\.object) {
        case .failure(let refusal):
            return .failed("its output is not a property list read within bounds (\(refusal.reason))")
        case .success(let object): parsed = object
        }
        guard let apps = parsed as? [String: Any] else { return .failed("its output is not a dictionary of apps") }
        guard let info = apps[app] as? [String: Any] else {
            return .failed("it does not list \(TerminalText.escaped(app))")
        }
        return .groups(((info["GroupContainers"] as? [String: Any])?.keys).map { Array($0).sorted() } ?? [])
    }

    /// `name` in the folders of `path`, when executable there.
    static func executable(_ name: String, path: String?) -> String? {
        (path ?? "").split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
