import Foundation
import SandboxAuditSystem

/// What `xcrun simctl listapps DEVICE` says of an app's App Groups (its `GroupContainers`:
/// group identifier → URL, twostraws/ControlRoom `SimCtl+Types.swift`), where `xcrun` is on
/// PATH (a Mac with Xcode). Never required: without `xcrun`, nothing; when it fails, runs over
/// `timeout` seconds (its output included: it is killed with its process group then, stopped
/// or not, whatever still holds its output), prints more than `maximumOutput` bytes, or prints
/// no plist naming the app, a note says so and the groups are guessed from their names.
/// The output is parsed within bounds: a binary or XML plist by `BoundedPlist`; the text
/// (OpenStep) form `simctl` prints, which holds no shared references, after its nesting is
/// checked against `BoundedPlist.maximumDepth`.
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
    static func groups(of app: String, on device: SimulatorDevice,
                       environment: [String: String] = ProcessInfo.processInfo.environment) -> Answer {
        guard let xcrun = executable("xcrun", path: environment["PATH"]) else { return .unavailable }
        let run = Subprocess.run(xcrun, ["simctl", "--set", device.deviceSet, "listapps", device.udid], timeout: timeout, maximumOutput: maximumOutput)
        switch run.ending {
        case .exited(0): break
        case .exited(let code): return .failed("it exited with status \(code)")
        case .signalled(let signal): return .failed("it was ended by signal \(signal)")
        case .timedOut: return .failed("it ran over \(Int(timeout)) s (its output still open): it was ended with its process group")
        case .tooMuchOutput: return .failed("it printed over \(ByteSize.format(Int64(maximumOutput))): it was ended with its process group")
        case .notStarted(let e): return .failed("it could not be started: \(errorText(e).lowercased())")
        }
        let parsed: Any
        switch decode(run.output) {
        case .failure(let refusal): return .failed("its output is not a property list read within bounds (\(refusal.reason))")
        case .success(let object): parsed = object
        }
        guard let apps = parsed as? [String: Any] else { return .failed("its output is not a dictionary of apps") }
        guard let info = apps[app] as? [String: Any] else { return .failed("it does not list \(TerminalText.escaped(app))") }
        return .groups(((info["GroupContainers"] as? [String: Any])?.keys).map { Array($0).sorted() } ?? [])
    }

    /// The plist `bytes` hold: binary or XML through `BoundedPlist`; text (OpenStep) through
    /// Foundation once its nesting is within `BoundedPlist.maximumDepth` (the text form has no
    /// references: what it holds is at most as large as it is).
    static func decode(_ bytes: [UInt8]) -> Result<Any, BoundedPlist.Refusal> {
        if bytes.starts(with: Array("bplist".utf8)) || BoundedPlist.looksXML(bytes) {
            return BoundedPlist.decode(bytes, maximumSize: maximumOutput).map(\.object)
        }
        if let refusal = checkText(bytes) { return .failure(refusal) }
        guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil) else {
            return .failure(BoundedPlist.Refusal("not a property list"))
        }
        return .success(object)
    }

    /// Why the text plist `bytes` is refused before Foundation reads it: a NUL byte, or
    /// dictionaries and arrays nested deeper than `BoundedPlist.maximumDepth` (counted outside
    /// quoted strings and comments). Nil when it may be read.
    static func checkText(_ bytes: [UInt8]) -> BoundedPlist.Refusal? {
        var depth = 0
        var i = 0
        let n = bytes.count
        while i < n {
            switch bytes[i] {
            case 0: return BoundedPlist.Refusal("a NUL byte at offset \(i)")
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quote = bytes[i]
                i += 1
                while i < n && bytes[i] != quote { i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1 }
            case UInt8(ascii: "/") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "*"):
                i += 2
                while i + 1 < n && !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) { i += 1 }
                i += 1
            case UInt8(ascii: "/") where i + 1 < n && bytes[i + 1] == UInt8(ascii: "/"):
                while i < n && bytes[i] != UInt8(ascii: "\n") { i += 1 }
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "<"):
                depth += 1
                if depth > BoundedPlist.maximumDepth { return BoundedPlist.Refusal("nested deeper than \(BoundedPlist.maximumDepth) levels") }
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: ">"):
                depth -= 1
            default: break
            }
            i += 1
        }
        return nil
    }

    /// `name` in the folders of `path`, when executable there.
    static func executable(_ name: String, path: String?) -> String? {
        (path ?? "").split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
