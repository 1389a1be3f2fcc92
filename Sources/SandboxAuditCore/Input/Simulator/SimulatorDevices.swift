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
    /// Where the listing found it: the set's folder as opened, the device folder's name in it
    /// and the identity it had then. The device is opened again only through that descriptor,
    /// its identity checked (`open`): never by its path.
    var listing: DeviceListing? = nil

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
        "\(TerminalText.escaped(name)) (\(TerminalText.escaped(udid))), \(TerminalText.escaped(runtimeName)), "
            + "\(stateName), in \(TerminalText.escaped(deviceSet))"
            + (isClone ? " (a parallel-testing clone)" : "")
    }
}

/// A folder found by listing a folder held open: the listing's descriptor, the name in it and
/// the identity (device and inode) the folder had when it was listed and read. Opened again
/// only through that descriptor, never through a symlink, and only when it is still that folder.
struct DeviceListing: Sendable, Equatable {
    let parent: HeldDescriptor
    let name: [UInt8]
    let device: UInt64
    let inode: UInt64

    static func == (a: DeviceListing, b: DeviceListing) -> Bool {
        a.parent === b.parent && a.name == b.name && a.device == b.device && a.inode == b.inode
    }

    /// The folder opened again through the listing; throws `InputError` naming `path` when it
    /// cannot be, is a symlink now, or is another folder than the one listed.
    func open(_ path: String) throws -> HeldDescriptor {
        let held: HeldDescriptor
        do { held = HeldDescriptor(try parent.descriptor.openDirectory(name)) } catch {
            let why =
                error.code == ELOOP || error.code == ENOTDIR
                ? "it is no longer a folder (a symbolic link or a file was put in its place)"
                : errorText(error.code).lowercased()
            throw InputError("cannot read \(TerminalText.escaped(path)): \(why)")
        }
        guard let st = try? held.descriptor.status(), st.device == device, st.inode == inode else {
            throw InputError(
                "\(TerminalText.escaped(path)) changed while it was read (another folder is in its place): not audited")
        }
        return held
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
    static func sets(_ given: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> [String]
    {
        guard given.isEmpty else {
            for set in given
            where (try? FileDescriptor.currentDirectory.status(following: set.utf8))?.kind != .directory {
                throw InputError(
                    "--device-set \(TerminalText.escaped(set)) is not a folder: give a Simulator device set (a "
                        + "folder of device folders named by UDID)"
                )
            }
            return given.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        }
        guard let home = environment["HOME"], !home.isEmpty else {
            throw InputError(
                "--simulator needs HOME to find the Simulator's device sets, and HOME is not set: give --device-set DIR"
            )
        }
        return defaultSets(home: home)
    }

    /// The devices of `set`, sorted by name then UDID. A folder without a readable
    /// `device.plist` naming a UDID is not a device; a set that is missing holds none; a set
    /// that cannot be listed is an error (the device wanted may be there). The set is opened
    /// once (a symlink to it followed: the user named it); each device folder is opened from
    /// it without following a symlink, and its `device.plist` read through that descriptor.
    static func devices(in set: String) throws -> [SimulatorDevice] {
        var unreadable: [String] = []
        return try devices(in: set, unreadable: &unreadable)
    }

    /// `devices(in:)`, and in `unreadable` the device folders and `device.plist` files there
    /// that could not be read, each with why: the device wanted may be one of them.
    static func devices(in set: String, unreadable: inout [String]) throws -> [SimulatorDevice] {
        var cannot: [String] = []
        let listed = try folders(in: set) { name, folder, listing -> SimulatorDevice? in
            let plist = set + "/" + name + "/" + deviceInfo
            guard let info = Container.readPlist(deviceInfo, in: folder) else {
                switch Result(catching: { () throws(SystemError) in
                    try folder.descriptor.readFile(deviceInfo.utf8, limit: 1)
                }) {
                case .failure(let e) where e.code != ENOENT:
                    cannot.append("\(TerminalText.escaped(plist)) (\(errorText(e.code).lowercased()))")
                case .success:
                    cannot.append(
                        "\(TerminalText.escaped(plist)) (not a property list dictionary within "
                            + "\(Container.maximumIdentityPlistSize) bytes)"
                    )
                default: break
                }
                return nil
            }
            guard let udid = info["UDID"] as? String else {
                cannot.append("\(TerminalText.escaped(plist)) (no UDID)")
                return nil
            }
            let state = (info["state"] as? Int) ?? (info["state"] as? NSNumber)?.intValue ?? -1
            return SimulatorDevice(
                folder: set + "/" + name, udid: udid, name: (info["name"] as? String) ?? "",
                runtime: (info["runtime"] as? String) ?? "",
                state: state, deviceSet: set, listing: listing)
        }
        unreadable += cannot + (listed?.unreadable ?? [])
        return (listed?.values ?? []).sorted { ($0.name, $0.udid, $0.deviceSet) < ($1.name, $1.udid, $1.deviceSet) }
    }

    /// The one device `spec` names (`booted`, a UDID, or a device name) in `sets`. Throws an
    /// `InputError` listing the candidates when several match, and the devices there are
    /// when none does.
    static func find(_ spec: String, in sets: [String]) throws -> SimulatorDevice {
        var unreadable: [String] = []
        let all = try sets.flatMap { try devices(in: $0, unreadable: &unreadable) }
        let unread = unreadable.isEmpty ? "" : "; these could not be read: " + unreadable.joined(separator: ", ")
        let matches: [SimulatorDevice]
        let what: String
        if spec.lowercased() == "booted" {
            matches = all.filter { $0.state == SimulatorDevice.booted }
            what = "booted Simulator devices"
        } else if case let byUDID = all.filter({ $0.udid.caseInsensitiveCompare(spec) == .orderedSame }),
            !byUDID.isEmpty
        {
            matches = byUDID
            what = "Simulator devices with the UDID \(TerminalText.escaped(spec))"
        } else {
            matches = all.filter { $0.name == spec }
            what = "Simulator devices named \(TerminalText.escaped(spec))"
        }
        if matches.count == 1 { return matches[0] }
        let setsShown = sets.map(TerminalText.escaped).joined(separator: " and ")
        guard matches.isEmpty else {
            throw InputError(
                "\(matches.count) \(what): choose one with --simulator UDID\n"
                    + matches.map { "  " + $0.line }.joined(separator: "\n"))
        }
        let none =
            spec.lowercased() == "booted"
            ? "no Simulator device is booted"
            : "no Simulator device is named or has the UDID \(TerminalText.escaped(spec))"
        guard !all.isEmpty else {
            throw InputError(
                "\(none): there is no device in \(setsShown) that can be read (boot one with xcrun simctl boot, or "
                    + "give the set with --device-set DIR)\(unread)"
            )
        }
        throw InputError(
            "\(none) in \(setsShown)\(unread); the devices there are:\n"
                + all.map { "  " + $0.line }.joined(separator: "\n"))
    }

    /// The folders of a folder held open, each read by the body that made its value, in
    /// name-byte order, and the names of the symlinks found there (never followed).
    struct Listed<T> {
        var values: [T]
        var symlinks: [String]
        /// The folders that could not be opened, each with why.
        var unreadable: [String] = []
    }

    /// The folder at `path` (a symlink to it followed: the user named it), opened once, and
    /// `body` of each folder in it, as `folders(of:)`. Nil when `path` does not exist; throws
    /// `InputError` when it cannot be listed.
    static func folders<T>(in path: String, _ body: (String, HeldDescriptor, DeviceListing) -> T?) throws -> Listed<T>?
    {
        let held: HeldDescriptor
        switch Result(catching: { () throws(Errno) in
            try FileDescriptor.currentDirectory.open(path.utf8, .namedDirectory, keepAccessTime: true)
        }) {
        case .success(let opened): held = HeldDescriptor(opened)
        case .failure(let e) where e.code == ENOENT: return nil
        case .failure(let e):
            throw InputError("cannot read \(TerminalText.escaped(path)): \(errorText(e.code).lowercased())")
        }
        return try folders(of: held, path: path, body)
    }

    /// `body` of each folder in the folder `held` (at `path`, for messages), in name-byte
    /// order: each opened from `held` without following a symlink (one at a time: one
    /// descriptor more at most), with its identity kept (`DeviceListing`) so that it can be
    /// opened again, and only as the folder it was. A name that is not UTF-8 is no UUID: no
    /// device or container has it. Symlinks are named, never followed.
    static func folders<T>(of held: HeldDescriptor, path: String, _ body: (String, HeldDescriptor, DeviceListing) -> T?)
        throws -> Listed<T>
    {
        let fd = held.descriptor
        var names: [[UInt8]] = []
        var symlinks: [String] = []
        let failure = fd.forEachName { cName, name in
            switch (try? fd.status(ofCString: cName))?.kind {
            case .directory: names.append(Array(name))
            case .symlink: symlinks.append(String(decoding: name, as: UTF8.self))
            default: break
            }
        }
        if let failure {
            throw InputError("cannot read \(TerminalText.escaped(path)): \(errorText(failure.code).lowercased())")
        }
        var unreadable: [String] = []
        let values: [T] = names.sorted { $0.lexicographicallyPrecedes($1) }.compactMap { name in
            guard let text = String(bytes: name, encoding: .utf8) else { return nil }
            let child: FileDescriptor
            switch Result(catching: { () throws(Errno) in try fd.openDirectory(name) }) {
            case .success(let opened): child = opened
            case .failure(let e):
                if e.code != ENOENT {
                    unreadable.append("\(TerminalText.escaped(path + "/" + text)) (\(errorText(e.code).lowercased()))")
                }
                return nil
            }
            let entry = HeldDescriptor(child)
            guard let st = try? child.status(), st.kind == .directory else { return nil }
            return body(text, entry, DeviceListing(parent: held, name: name, device: st.device, inode: st.inode))
        }
        return Listed(values: values, symlinks: symlinks.sorted(), unreadable: unreadable)
    }
}
