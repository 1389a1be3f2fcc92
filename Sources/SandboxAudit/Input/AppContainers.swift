import Foundation

/// Which containers to audit, from the command line and the policy file.
public struct ContainerSelection: Sendable {
    /// `--kind`: the role of a container given alone (overrides its metadata and folder).
    var role: ContainerRole?
    /// `--app BUNDLE_ID`: the app whose containers a Simulator device folder holds.
    var app: String?
    /// `--app-group ID` (repeatable) and the policy's `appGroups:`.
    var appGroups: [String] = []
    /// The password of an encrypted backup folder (`--password-file`,
    /// `SANDBOX_AUDIT_BACKUP_PASSWORD`); without it, such a backup is refused.
    var password: String?

    public init(role: ContainerRole? = nil, app: String? = nil, appGroups: [String] = [], password: String? = nil) {
        self.role = role
        self.app = app
        self.appGroups = appGroups
        self.password = password
    }
}

/// An app's containers: its data container, its extensions' and its App Groups', each a
/// backup domain of its own. Found in a Simulator device folder by their container-manager
/// metadata; other apps' containers are identified by that file alone and never read.
enum AppContainers {
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

    /// The containers under `Containers/FOLDER/*` with their metadata identifiers, by path.
    static func list(_ containers: String, _ folder: String) -> [Found] {
        let base = containers + "/" + folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return [] }
        return names.sorted().compactMap { name in
            let path = base + "/" + name
            guard Container.isDirectory(path), let meta = Container.readPlist(path + "/" + Container.simulatorMetadata),
                  let id = Container.metadataIdentity(meta) else { return nil }
            return Found(path: path, identifier: id)
        }
    }

    /// The containers to audit for `input`: the app's containers when `input` is a Simulator
    /// device folder and `selection.app` names the app; else the one container `input` is.
    /// Throws `InputError` when the app or a named group is not there (listing what is).
    static func locate(_ input: String, _ selection: ContainerSelection) throws -> [Container] {
        guard let app = selection.app else {
            if AppContainers.containersFolder(input) != nil, !Container.isDirectory(input + "/Documents") {
                throw InputError("\(input) is a Simulator device folder: name the app with --app BUNDLE_ID")
            }
            return [try Container.locate(input, role: selection.role)]
        }
        guard let containers = containersFolder(input) else {
            // A single container: it must be the app's.
            let one = try Container.locate(input, role: selection.role)
            if let id = one.bundleIdentifier, id != app, one.role != .group {
                throw InputError("\(input) belongs to \(id), not \(app)")
            }
            return [one]
        }
        let apps = list(containers, "Data/Application")
        guard let data = apps.first(where: { $0.identifier == app }) else {
            let known = apps.map(\.identifier).sorted()
            throw InputError("no data container of \(app) in \(containers)"
                + (known.isEmpty ? "" : ": it holds \(known.joined(separator: ", "))"))
        }
        var result = [try Container.locate(data.path, role: .app)]
        for plugin in list(containers, "Data/PluginKitPlugin") where plugin.identifier.hasPrefix(app + ".") {
            result.append(try Container.locate(plugin.path, role: .extension))
        }
        let groups = list(containers, "Shared/AppGroup")
        for id in Array(Set(selection.appGroups)).sorted() {
            guard let g = groups.first(where: { $0.identifier == id }) else {
                let known = groups.map(\.identifier).sorted()
                throw InputError("no App Group container \(id) in \(containers)"
                    + (known.isEmpty ? "" : ": it holds \(known.joined(separator: ", "))"))
            }
            result.append(try Container.locate(g.path, role: .group))
        }
        return result
    }

    /// App Group containers in the device folder that the selection did not name but whose
    /// identifier shares the app's prefix (`group.com.example…` for `com.example.app`): what
    /// the user may have meant to add with --app-group.
    static func unnamedGroups(_ input: String, _ selection: ContainerSelection) -> [String] {
        guard let app = selection.app, let containers = containersFolder(input) else { return [] }
        return unnamedGroups(list(containers, "Shared/AppGroup").map(\.identifier), app: app, named: selection.appGroups)
    }

    /// Of `groups`, those not `named` whose identifier shares `app`'s prefix
    /// (`group.com.example…` for `com.example.app`), sorted.
    static func unnamedGroups(_ groups: [String], app: String, named: [String]) -> [String] {
        let parts = app.split(separator: ".")
        let stem = parts.count > 2 ? parts.dropLast().joined(separator: ".") : app
        return groups.filter { !named.contains($0) && $0.hasPrefix("group." + stem) }.sorted()
    }
}
