import Foundation
import SandboxAuditSystem

/// Which containers to audit, from the command line and the policy file.
public struct ContainerSelection: Sendable {
    /// `--kind`: the role of a container given alone (overrides its metadata and folder).
    package var role: ContainerRole?
    /// `--app BUNDLE_ID`: the app whose containers a Simulator device folder holds.
    package var app: String?
    /// `--app-group ID` (repeatable) and the policy's `appGroups:`.
    package var appGroups: [String] = []
    /// The password of an encrypted backup folder (`--password-file`,
    /// `SANDBOX_AUDIT_BACKUP_PASSWORD`); without it, such a backup is refused.
    var password: String?
    /// `--simulator DEVICE`: `booted`, a UDID or a device name, found in `deviceSets`.
    var simulator: String?
    /// `--device-set DIR` (repeatable); empty: the default sets under `$HOME`.
    var deviceSets: [String] = []
    /// `--app-info PATH`: the app's `Info.plist`, or its `.app` folder (`AppInfo`).
    public var appInfo: String?

    public init(role: ContainerRole? = nil, app: String? = nil, appGroups: [String] = [], password: String? = nil,
                simulator: String? = nil, deviceSets: [String] = []) {
        self.role = role
        self.app = app
        self.appGroups = appGroups
        self.password = password
        self.simulator = simulator
        self.deviceSets = deviceSets
    }
}

/// An app's containers: its data container, its extensions' and its App Groups', each a
/// backup domain of its own. Found in a Simulator device folder by their container-manager
/// metadata; other apps' containers are identified by that file alone and never read.
package enum AppContainers {
    /// The Containers folder of a Simulator device: `DEVICE/data/Containers`, given the
    /// device folder, its `data`, or that folder itself. Nil when `path` is none of these.
    static func containersFolder(_ path: String) -> String? {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        for candidate in [trimmed, trimmed + "/Containers", trimmed + "/data/Containers"] {
            if Container.isDirectory(candidate + "/Data/Application") || Container.isDirectory(candidate + "/Shared/AppGroup") {
                return candidate
            }
        }
        return nil
    }

    /// One container of a device folder: where it is and what its metadata says.
    struct Found {
        let path: String
        let identifier: String
    }

    /// The containers under `Containers/FOLDER/*` with their metadata identifiers, by path
    /// (the folder listed once through a descriptor, as `SimulatorDevices.subfolders` does).
    static func list(_ containers: String, _ folder: String) throws -> [Found] {
        let base = containers + "/" + folder
        return try SimulatorDevices.subfolders(of: base).compactMap { name in
            let path = base + "/" + name
            guard let meta = Container.readPlist(path + "/" + Container.simulatorMetadata),
                  let id = Container.metadataIdentity(meta) else { return nil }
            return Found(path: path, identifier: id)
        }
    }

    /// The containers to audit and what finding them had to say.
    struct Located {
        var containers: [Container]
        var notes: [String] = []
    }

    /// The app's containers on the Simulator device `spec` names (`--simulator`): its data
    /// container, its extensions' and the App Groups named. Throws `InputError` when the device,
    /// the app or a named group is not there (listing what is). The notes: the device audited,
    /// a parallel-testing clone, App Groups the app uses that were not named.
    static func onSimulator(_ spec: String, _ selection: ContainerSelection) throws -> Located {
        guard let app = selection.app else {
            throw InputError("--simulator needs --app BUNDLE_ID: the app whose containers to audit on the device")
        }
        let device = try SimulatorDevices.find(spec, in: try SimulatorDevices.sets(selection.deviceSets))
        let place = "Simulator device \(TerminalText.escaped(device.name)) (\(device.udid))"
        guard let containers = containersFolder(device.folder) else {
            throw InputError("\(place) holds no app containers (no data/Containers/Data/Application in \(device.folder)): install and run the app on it first")
        }
        var found = try appContainers(containers, app: app, groups: selection.appGroups, place: place,
                                      uses: SimulatorApps.groups(of: app, on: device))
        found.notes.insert("Simulator device audited: \(device.line)", at: 0)
        if device.isClone {
            found.notes.insert("\(place) is a parallel-testing clone: xcodebuild deletes it when the test run ends (audit inside the test job, or test with -parallel-testing-enabled NO)", at: 1)
        }
        return found
    }

    /// The containers to audit for `input`: the app's containers when `input` is a Simulator
    /// device folder and `selection.app` names the app; else the one container `input` is,
    /// with the named App Groups found in the device folder above it. Throws `InputError` when
    /// the app or a named group is not there (listing what is). The notes: App Groups the app
    /// may use that were not named.
    static func resolve(_ input: String, _ selection: ContainerSelection) throws -> Located {
        guard let app = selection.app else {
            if AppContainers.containersFolder(input) != nil, !Container.isDirectory(input + "/Documents") {
                throw InputError("\(input) is a Simulator device folder: name the app with --app BUNDLE_ID")
            }
            return try lone(input, selection)
        }
        guard let containers = containersFolder(input) else { return try lone(input, selection) }
        return try appContainers(containers, app: app, groups: selection.appGroups, place: containers)
    }

    /// A container given alone: it must be the app's. App Groups named with it are found in
    /// the Simulator device folder above it (`…/data/Containers/Data/Application/UUID`, as
    /// `simctl get_app_container DEVICE ID data` prints it), or the run fails.
    static func lone(_ input: String, _ selection: ContainerSelection) throws -> Located {
        let one = try Container.locate(input, role: selection.role)
        if let app = selection.app, let id = one.bundleIdentifier, id != app, one.role != .group {
            throw InputError("\(input) belongs to \(id), not \(app)")
        }
        let groups = Array(Set(selection.appGroups)).sorted().filter { !(one.role == .group && $0 == one.bundleIdentifier) }
        guard !groups.isEmpty else { return Located(containers: [one]) }
        guard let containers = containersAbove(one.dataRoot) else { throw loneGroupError(groups, input) }
        var result = [one]
        result += try named(groups, in: try list(containers, "Shared/AppGroup"), place: containers)
        return Located(containers: result)
    }

    /// The error for App Groups named with a container given alone (or an archive of one),
    /// with no Simulator device folder above it to find them in.
    static func loneGroupError(_ groups: [String], _ input: String) -> InputError {
        let names = Array(Set(groups)).sorted().joined(separator: ", ")
        return InputError("App Group \(names) cannot be found from a lone container (\(input) is not inside a Simulator device folder): "
            + "give --simulator DEVICE --app BUNDLE_ID, the device folder with --app BUNDLE_ID, or the group container itself as PATH")
    }

    /// The Simulator `Containers` folder holding the container at `root`
    /// (`Containers/Data/Application/UUID`, `Data/PluginKitPlugin/UUID` or `Shared/AppGroup/UUID`).
    package static func containersAbove(_ root: String) -> String? {
        guard Container.folderRole(root) != nil else { return nil }
        var parts = root.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let candidate = parts.joined(separator: "/")
        return containersFolder(candidate) == candidate ? candidate : nil
    }

    /// The app's containers in a device's `Containers` folder: its data container, its
    /// extensions' and the `groups` named, each found by its metadata. `place` names the
    /// device in errors; `uses`, the groups `simctl listapps` says the app uses, when it said.
    static func appContainers(_ containers: String, app: String, groups: [String], place: String, uses: [String]? = nil) throws -> Located {
        let apps = try list(containers, "Data/Application")
        guard let data = apps.first(where: { $0.identifier == app }) else {
            let known = apps.map(\.identifier).sorted()
            throw InputError("no data container of \(app) in \(place)"
                + (known.isEmpty ? ": it holds no app data container" : ": it holds \(known.joined(separator: ", "))"))
        }
        var result = [try Container.locate(data.path, role: .app)]
        for plugin in try list(containers, "Data/PluginKitPlugin") where plugin.identifier.hasPrefix(app + ".") {
            result.append(try Container.locate(plugin.path, role: .extension))
        }
        // Only for the note when no group is named: a folder that cannot be listed fails the run
        // only when a named group may be in it.
        let present = groups.isEmpty ? ((try? list(containers, "Shared/AppGroup")) ?? []) : try list(containers, "Shared/AppGroup")
        result += try named(Array(Set(groups)).sorted(), in: present, place: place)
        var notes: [String] = []
        if let uses, case let unnamed = uses.filter({ !groups.contains($0) }), !unnamed.isEmpty {
            notes.append("App Groups the app uses (xcrun simctl listapps) not audited (add --app-group ID or appGroups: in the policy file): " + unnamed.joined(separator: ", "))
        } else if uses == nil, case let unnamed = unnamedGroups(present.map(\.identifier), app: app, named: groups), !unnamed.isEmpty {
            notes.append("App Group containers not audited (add --app-group ID or appGroups: in the policy file if the app uses them): " + unnamed.joined(separator: ", "))
        }
        return Located(containers: result, notes: notes)
    }

    /// The group containers `ids` names, found among `present`; throws naming the first
    /// missing one and listing what is there.
    static func named(_ ids: [String], in present: [Found], place: String) throws -> [Container] {
        try ids.map { id in
            guard let g = present.first(where: { $0.identifier == id }) else {
                let known = present.map(\.identifier).sorted()
                throw InputError("no App Group container \(id) in \(place)"
                    + (known.isEmpty ? ": it holds no App Group container" : ": it holds \(known.joined(separator: ", "))"))
            }
            return try Container.locate(g.path, role: .group)
        }
    }

    /// Of `groups`, those not `named` whose identifier shares `app`'s prefix
    /// (`group.com.example…` for `com.example.app`), sorted.
    static func unnamedGroups(_ groups: [String], app: String, named: [String]) -> [String] {
        let parts = app.split(separator: ".")
        let stem = parts.count > 2 ? parts.dropLast().joined(separator: ".") : app
        return groups.filter { !named.contains($0) && $0.hasPrefix("group." + stem) }.sorted()
    }
}
