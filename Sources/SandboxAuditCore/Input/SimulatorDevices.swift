import Foundation
import SandboxAuditSystem

/// One Simulator device of a device set, as its `device.plist` describes it.
struct SimulatorDevice: Sendable, Equatable {
    /// The device folder (`SET/UDID`), holding `device.plist` and `data/`.
    let folder: String
    let udid: String
    let name: String
    /// `com.apple.CoreSimulator.SimRuntime.iOS-26-1`, or empty when the plist has none.
    let runtime: String
    /// `device.plist`'s `state`: 0 Creating, 1 Shutdown, 2 Booting, 3 Booted, 4 Shutting down.
    let state: Int
    /// The device set the device is in.
    let deviceSet: String

    static let booted = 3

    /// A parallel-testing clone: its set is `XCTestDevices`, which `xcodebuild` empties when the
    /// test run ends.
    var isClone: Bool { deviceSet.split(separator: "/").last == "XCTestDevices" }

    var stateName: String {
        switch state {
        case 0: return "Creating"
        case 1: return "Shutdown"
        case 2: return "Booting"
        case 3: return "Booted"
        case 4: return "Shutting down"
        default: return "state \(state)"
        }
    }

    /// `iOS 26.1` for `com.apple.CoreSimulator.SimRuntime.iOS-26-1`; the identifier as it is otherwise.
    var runtimeName: String {
        let prefix = "com.apple.CoreSimulator.SimRuntime."
        guard runtime.hasPrefix(prefix) else { return runtime.isEmpty ? "unknown runtime" : runtime }
        let parts = runtime.dropFirst(prefix.count).split(separator: "-")
        guard parts.count > 1 else { return String(runtime.dropFirst(prefix.count)) }
        return parts[0] + " " + parts.dropFirst().joined(separator: ".")
    }

    /// One line naming the device: name, UDID, runtime, state, and its set.
    var line: String {
        "\(TerminalText.escaped(name)) (\(TerminalText.escaped(udid))), \(TerminalText.escaped(runtimeName)), \(stateName), in \(TerminalText.escaped(deviceSet))"
            + (isClone ? " (a parallel-testing clone)" : "")
    }
}

/// Finds a Simulator device by `booted`, UDID or name in device sets: the default set
/// `~/Library/Developer/CoreSimulator/Devices` and the parallel-testing clones'
/// `~/Library/Developer/XCTestDevices` (`$HOME` from the environment), or the sets given.
///
/// A set is listed once through a descriptor (without updating its access time where
/// permitted); each device's `device.plist` is read with `Container.readPlist`'s bound (1 MiB).
/// Nothing else of a device is read until it is chosen.
enum SimulatorDevices {
    static let deviceInfo = "device.plist"

    /// The default device sets under `home`.
    static func defaultSets(home: String) -> [String] {
        [home + "/Library/Developer/CoreSimulator/Devices", home + "/Library/Developer/XCTestDevices"]
    }

    /// The sets to search: `given`, else the default sets under `$HOME`.
    static func sets(_ given: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> [String] {
        guard given.isEmpty else {
            for set in given where (try? FileDescriptor.currentDirectory.status(following: set.utf8))?.kind != .directory {
                throw InputError("--device-set \(set) is not a folder: give a Simulator device set (a folder of device folders named by UDID)")
            }
            return given.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw InputError("--simulator needs HOME to find the Simulator's device sets, and HOME is not set: give --device-set DIR")
        }
        return defaultSets(home: home)
    }

    /// The devices of `set`, sorted by name then UDID. A folder without a readable
    /// `device.plist` naming a UDID is not a device; a set that is missing holds none; a set
    /// that cannot be listed is an error (the device wanted may be there).
    static func devices(in set: String) throws -> [SimulatorDevice] {
        try subfolders(of: set).compactMap { name in
            let folder = set + "/" + name
            guard let info = Container.readPlist(folder + "/" + deviceInfo), let udid = info["UDID"] as? String else { return nil }
            let state = (info["state"] as? Int) ?? (info["state"] as? NSNumber)?.intValue ?? -1
            return SimulatorDevice(folder: folder, udid: udid, name: (info["name"] as? String) ?? "", runtime: (info["runtime"] as? String) ?? "",
                                   state: state, deviceSet: set)
        }.sorted { ($0.name, $0.udid, $0.deviceSet) < ($1.name, $1.udid, $1.deviceSet) }
    }

    /// The one device `spec` names (`booted`, a UDID, or a device name) in `sets`. Throws an
    /// `InputError` listing the candidates when several match, and the devices there are
    /// when none does.
    static func find(_ spec: String, in sets: [String]) throws -> SimulatorDevice {
        let all = try sets.flatMap { try devices(in: $0) }
        let matches: [SimulatorDevice]
        let what: String
        if spec.lowercased() == "booted" {
            matches = all.filter { $0.state == SimulatorDevice.booted }
            what = "booted Simulator devices"
        } else if case let byUDID = all.filter({ $0.udid.caseInsensitiveCompare(spec) == .orderedSame }), !byUDID.isEmpty {
            matches = byUDID
            what = "Simulator devices with the UDID \(TerminalText.escaped(spec))"
        } else {
            matches = all.filter { $0.name == spec }
            what = "Simulator devices named \(TerminalText.escaped(spec))"
        }
        if matches.count == 1 { return matches[0] }
        let where_ = sets.map(TerminalText.escaped).joined(separator: " and ")
        guard matches.isEmpty else {
            throw InputError("\(matches.count) \(what): choose one with --simulator UDID\n"
                + matches.map { "  " + $0.line }.joined(separator: "\n"))
        }
        let none = spec.lowercased() == "booted" ? "no Simulator device is booted" : "no Simulator device is named or has the UDID \(TerminalText.escaped(spec))"
        guard !all.isEmpty else {
            throw InputError("\(none): there is no device in \(where_) (boot one with xcrun simctl boot, or give the set with --device-set DIR)")
        }
        throw InputError("\(none) in \(where_); the devices there are:\n" + all.map { "  " + $0.line }.joined(separator: "\n"))
    }

    /// The names of the folders in `path`, sorted by bytes: listed through one descriptor,
    /// without updating the access time where permitted, never through a symlink below `path`.
    /// Empty when `path` does not exist; throws `InputError` when it cannot be listed.
    static func subfolders(of path: String) throws -> [String] {
        let fd: FileDescriptor
        switch Result(catching: { () throws(Errno) in try FileDescriptor.currentDirectory.open(path.utf8, .namedDirectory, keepAccessTime: true) }) {
        case .success(let opened): fd = opened
        case .failure(let e) where e.code == ENOENT: return []
        case .failure(let e): throw InputError("cannot read \(path): \(errorText(e.code).lowercased())")
        }
        defer { fd.close() }
        var names: [[UInt8]] = []
        let failure = fd.forEachName { cName, name in
            if (try? fd.status(ofCString: cName))?.kind == .directory { names.append(Array(name)) }
        }
        if let failure { throw InputError("cannot read \(path): \(errorText(failure.code).lowercased())") }
        // A name that is not UTF-8 is no UUID: no device or container has it.
        return names.sorted { $0.lexicographicallyPrecedes($1) }.compactMap { String(bytes: $0, encoding: .utf8) }
    }
}
