import Foundation
import SandboxAuditSystem

/// An app's containers: its data container, its extensions' and its App Groups', each a
/// backup domain of its own. Found in a Simulator device folder by their container-manager
/// metadata; other apps' containers are identified by that file alone and never read.
package enum AppContainers {

    /// The containers under `Containers/FOLDER/*` with their metadata identifiers: `FOLDER`
    /// opened from the held `Containers` folder without following a symlink, listed once, each
    /// container opened from that listing (never through a symlink) and its metadata read
    /// through it. Symlinks there are skipped, and named in `skipped`.
    static func list(_ containers: ContainersFolder, _ folder: String, skipped: inout [String]) throws -> [Found] {
        var unread: [String] = []
        return try list(containers, folder, skipped: &skipped, unread: &unread)
    }

    /// `list`, and in `unread` the containers that could not be told: a folder that cannot be
    /// opened, or whose metadata plist is there and cannot be read (a root-only plist read by
    /// another user), each with why.
    static func list(_ containers: ContainersFolder, _ folder: String, skipped: inout [String], unread: inout [String])
        throws -> [Found]
    {
        let base = containers.path + "/" + folder
        let held: HeldDescriptor
        switch Result(catching: { () throws(Errno) in try containers.held.descriptor.openDirectory(beneath: folder) }) {
        case .success(let fd): held = HeldDescriptor(fd)
        case .failure(let e) where e.code == ENOENT: return []
        case .failure(let e) where [ELOOP, EXDEV, ENOTDIR].contains(e.code):
            if let link = symlink(on: folder, in: containers.held) { throw refusal(containers.path + "/" + link) }
            throw InputError("cannot read \(TerminalText.escaped(base)): \(errorText(e.code).lowercased())")
        case .failure(let e):
            throw InputError("cannot read \(TerminalText.escaped(base)): \(errorText(e.code).lowercased())")
        }
        var metadataUnread: [String] = []
        let listed = try SimulatorDevices.folders(of: held, path: base) { name, container, listing -> Found? in
            guard let meta = Container.readPlist(Container.simulatorMetadata, in: container),
                let id = Container.metadataIdentity(meta)
            else {
                let opened = Result { () throws(Errno) in
                    try container.descriptor.open(Container.simulatorMetadata.utf8, .reading, keepAccessTime: true)
                }
                switch opened {
                case .success(let fd): fd.close()
                case .failure(let e) where e.code != ENOENT:
                    metadataUnread.append(
                        "\(TerminalText.escaped(base + "/" + name)) (its metadata plist: "
                            + "\(errorText(e.code).lowercased()))"
                    )
                    return nil
                case .failure: break
                }
                // No metadata plist (a device extraction often has none): the files that name
                // the app, labelled as evidence.
                guard let found = ContainerEvidence.identify(container) else {
                    metadataUnread.append(TerminalText.escaped(base + "/" + name))
                    return nil
                }
                return Found(
                    path: base + "/" + name, identifier: found.identifier, listing: listing, containers: containers,
                    evidence: found.how)
            }
            return Found(path: base + "/" + name, identifier: id, listing: listing, containers: containers)
        }
        skipped += listed.symlinks.map { base + "/" + $0 }
        unread += listed.unreadable + metadataUnread
        return listed.values
    }

    /// `list`, the symlinks skipped not named.
    static func list(_ containers: ContainersFolder, _ folder: String) throws -> [Found] {
        var skipped: [String] = []
        return try list(containers, folder, skipped: &skipped)
    }

    /// The containers to audit and what finding them had to say.
    struct Located {
        var containers: [Container]
        var notes: [String] = []
    }

    /// The app's containers on the Simulator device `spec` names (`--simulator`): its data
    /// container, its extensions' and the App Groups named. Throws `InputError` when the device,
    /// the app or a named group is not there (listing what is). The notes: the device audited,
    /// a parallel-testing clone, App Groups the app uses that were not named. The device folder
    /// is opened again through its set's listing (identity checked), and its `data/Containers`
    /// from it without following a symlink.
    static func onSimulator(_ spec: String, _ selection: ContainerSelection) throws -> Located {
        guard let app = selection.app else {
            throw InputError("--simulator needs --app BUNDLE_ID: the app whose containers to audit on the device")
        }
        let device = try SimulatorDevices.find(spec, in: try SimulatorDevices.sets(selection.deviceSets))
        let place = "Simulator device \(TerminalText.escaped(device.name)) (\(TerminalText.escaped(device.udid)))"
        guard let listing = device.listing else { throw InputError("\(place) cannot be read again: not audited") }
        let folder = try listing.open(device.folder)
        guard let containers = try containersFolder(in: folder, path: device.folder, candidates: ["data/Containers"])
        else {
            throw InputError(
                "\(place) holds no app containers (no data/Containers/Data/Application in "
                    + "\(TerminalText.escaped(device.folder))): install and run the app on it first"
            )
        }
        let answer = SimulatorApps.groups(of: app, on: device)
        var uses: [String]?
        if case .groups(let groups) = answer { uses = groups }
        var found = try appContainers(
            containers, app: app, groups: selection.appGroups, place: place, uses: uses, listing: ["--simulator", spec])
        if case .failed(let why) = answer {
            found.notes.append(
                "xcrun simctl listapps gave no list of the app's App Groups: \(why); the groups not audited are told "
                    + "by their names only"
            )
        }
        found.notes.insert("Simulator device audited: \(device.line)", at: 0)
        if device.isClone {
            found.notes.insert(
                "\(place) is a parallel-testing clone: xcodebuild deletes it when the test run ends (audit inside "
                    + "the test job, or test with -parallel-testing-enabled NO)",
                at: 1)
        }
        return found
    }

    /// The containers to audit for `input`: the app's containers when `input` is a Simulator
    /// device folder and `selection.app` names the app; else the one container `input` is,
    /// with the named App Groups found in the device folder above it. Throws `InputError` when
    /// the app or a named group is not there (listing what is). The notes: App Groups the app
    /// may use that were not named.
    static func resolve(_ input: String, _ selection: ContainerSelection) throws -> Located {
        // A container whose data root holds a symlink named `data` or `Containers` is still a
        // container: the refusal of a symlinked device folder is for what is no container.
        let isContainer = ["Documents", "Library", "tmp"].contains { Container.isDirectory(input + "/" + $0) }
        let found: ContainersFolder?
        do { found = try containersFolder(input, search: !isContainer) } catch  where isContainer { found = nil }
        guard let app = selection.app else {
            if found != nil, !Container.isDirectory(input + "/Documents") {
                throw InputError(
                    "\(TerminalText.escaped(input)) is a Simulator device folder: name the app with --app BUNDLE_ID "
                        + "(`\(InstalledApps.command([input]))` lists its apps)"
                )
            }
            return try lone(input, selection)
        }
        guard let containers = found else { return try lone(input, selection) }
        return try appContainers(
            containers, app: app, groups: selection.appGroups, place: containers.place, listing: [input])
    }

    /// A container given alone: it must be the app's. App Groups named with it are found in
    /// the Simulator device folder above it (`…/data/Containers/Data/Application/UUID`, as
    /// `simctl get_app_container DEVICE ID data` prints it), or the run fails.
    static func lone(_ input: String, _ selection: ContainerSelection) throws -> Located {
        let one = try Container.locate(input, role: selection.role)
        try checkBelongs(one, to: selection, input: input)
        let groups = Array(Set(selection.appGroups)).sorted().filter {
            !(one.role == .group && $0 == one.bundleIdentifier)
        }
        guard !groups.isEmpty else { return Located(containers: [one]) }
        guard let containers = try containersAbove(one.dataRoot) else { throw loneGroupError(groups, input) }
        var result = [one]
        result += try named(
            groups, in: try list(containers, "Shared/AppGroup"), place: TerminalText.escaped(containers.path))
        return Located(containers: result)
    }

    /// A container given alone (a folder, an archive, standard input) whose identity names
    /// another app than `--app`: refused, whatever the input kind (an App Group's container is
    /// named after its group, not the app).
    static func checkBelongs(_ one: Container, to selection: ContainerSelection, input: String) throws {
        if let app = selection.app, let id = one.bundleIdentifier, id != app, one.role != .group {
            throw InputError(
                "\(TerminalText.escaped(input)) belongs to \(TerminalText.escaped(id)), not "
                    + "\(TerminalText.escaped(app))"
            )
        }
    }

    /// The error for App Groups named with a container given alone (or an archive of one),
    /// with no Simulator device folder above it to find them in.
    static func loneGroupError(_ groups: [String], _ input: String) -> InputError {
        let names = Array(Set(groups)).sorted().map(TerminalText.escaped).joined(separator: ", ")
        return InputError(
            "App Group \(names) cannot be found from a lone container (\(TerminalText.escaped(input)) is not inside "
                + "a Simulator device folder): "
                + "give --simulator DEVICE --app BUNDLE_ID, the device folder with --app BUNDLE_ID, or the group "
                + "container itself as PATH"
        )
    }

    /// The Simulator `Containers` folder holding the container at `root`
    /// (`Containers/Data/Application/UUID`, `Data/PluginKitPlugin/UUID` or `Shared/AppGroup/UUID`).
    package static func containersAbove(_ root: String) throws -> ContainersFolder? {
        guard Container.folderRole(root) != nil else { return nil }
        var parts = root.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        let candidate = parts.joined(separator: "/")
        guard let top = try? FileDescriptor.currentDirectory.open(candidate.utf8, .namedDirectory, keepAccessTime: true)
        else { return nil }
        return try containersFolder(in: HeldDescriptor(top), path: candidate, candidates: [""])
    }

    /// The installed app other than `app` that owns the extension `id` (`app.…`): the one
    /// with the longest bundle identifier that `id` extends (`APP.NAME`, as iOS names an app's
    /// extensions), longer than `app`. Nil when `app` is that owner.
    static func owner(of id: String, app: String, installed: InstalledIdentifiers) -> String? {
        installed.longest(extendedBy: id, longerThan: app.utf8.count)
    }

    /// The app's containers in a device's `Containers` folder: its data container, its
    /// extensions' and the `groups` named, each found by its metadata. `place` names the
    /// device in errors; `uses`, the groups `simctl listapps` says the app uses, when it said.
    /// An extension goes to the installed app with the longest bundle identifier it extends
    /// (`com.example.app.pro.widget` to `com.example.app.pro`, not `com.example.app`), and a
    /// note names both when it is not the app audited. Two data containers naming the app are
    /// refused: which one iOS uses cannot be told from the device folder.
    /// `listing`: the argument of `sandbox-audit apps` that lists the device's apps, which an
    /// error for an app it does not hold points to.
    static func appContainers(
        _ containers: ContainersFolder, app: String, groups: [String], place: String, uses: [String]? = nil,
        listing: [String]? = nil
    ) throws -> Located {
        var skipped: [String] = []
        var unread: [String] = []
        let apps = try list(containers, "Data/Application", skipped: &skipped, unread: &unread)
        let mine = apps.filter { $0.identifier == app }
        guard let data = mine.first else {
            let holds =
                listing.map { InstalledApps.pointer(apps.count, what: "app data container", $0) }
                ?? (apps.isEmpty
                    ? "it holds no app data container"
                    : "it holds " + apps.map { TerminalText.escaped($0.identifier) }.sorted().joined(separator: ", "))
            throw InputError(
                "no data container of \(TerminalText.escaped(app)) in \(place): " + holds
                    + (unread.isEmpty
                        ? ""
                        : "; \(unread.count) \(unread.count == 1 ? "container" : "containers") could not be told, "
                            + "which may be the app's: \(unread.joined(separator: ", "))")
                    + (skipped.isEmpty
                        ? ""
                        : " (symbolic links skipped, never followed: "
                            + "\(skipped.map(TerminalText.escaped).joined(separator: ", ")))")
            )
        }
        guard mine.count == 1 else {
            throw InputError(
                "\(mine.count) data containers of \(TerminalText.escaped(app)) in \(place): "
                    + mine.map { TerminalText.escaped($0.path) }.joined(separator: ", ")
                    + ": which one the app uses cannot be told from the device folder; give that container as PATH "
                    + "(xcrun simctl get_app_container DEVICE \(TerminalText.escaped(app)) data prints it)"
            )
        }
        var result = [try Container.locate(listed: data, role: .app)]
        var notes: [String] = []
        let installed = InstalledIdentifiers(apps.map(\.identifier))
        for plugin in try list(containers, "Data/PluginKitPlugin", skipped: &skipped)
        where plugin.identifier.hasPrefix(app + ".") {
            if let owner = owner(of: plugin.identifier, app: app, installed: installed) {
                notes.append(
                    "extension \(TerminalText.escaped(plugin.identifier)) not audited with "
                        + "\(TerminalText.escaped(app)): it belongs to \(TerminalText.escaped(owner)), "
                        + "the installed app with the longest bundle identifier it extends")
                continue
            }
            result.append(try Container.locate(listed: plugin, role: .extension))
        }
        // Only for the note when no group is named: a folder that cannot be listed fails the run
        // only when a named group may be in it.
        let present =
            groups.isEmpty
            ? ((try? list(containers, "Shared/AppGroup", skipped: &skipped)) ?? [])
            : try list(containers, "Shared/AppGroup", skipped: &skipped)
        result += try named(Array(Set(groups)).sorted(), in: present, place: place)
        if let uses, case let unnamed = uses.filter({ !groups.contains($0) }), !unnamed.isEmpty {
            notes.append(
                "App Groups the app uses (xcrun simctl listapps) not audited (add --app-group ID or appGroups: in "
                    + "the policy file): "
                    + unnamed.map(TerminalText.escaped).joined(separator: ", "))
        } else if uses == nil, case let unnamed = unnamedGroups(present.map(\.identifier), app: app, named: groups),
            !unnamed.isEmpty
        {
            notes.append(
                "App Group containers not audited (add --app-group ID or appGroups: in the policy file if the app "
                    + "uses them): "
                    + unnamed)
        }
        if !skipped.isEmpty {
            notes.append(
                "symbolic links in \(place) skipped, never followed (a device's containers are read where they are): "
                    + skipped.map(TerminalText.escaped).joined(separator: ", "))
        }
        return Located(containers: result, notes: notes)
    }

    /// The group containers `ids` names, found among `present`; throws naming the first
    /// missing one and listing what is there.
    static func named(_ ids: [String], in present: [Found], place: String) throws -> [Container] {
        try ids.map { id in
            guard let g = present.first(where: { $0.identifier == id }) else {
                let known = present.map { TerminalText.escaped($0.identifier) }.sorted()
                throw InputError(
                    "no App Group container \(TerminalText.escaped(id)) in \(place)"
                        + (known.isEmpty
                            ? ": it holds no App Group container" : ": it holds \(known.joined(separator: ", "))"))
            }
            return try Container.locate(listed: g, role: .group)
        }
    }

    /// Of `groups`, those not `named` that may be the app's, as one list for the note: first
    /// those whose identifier holds the app's whole bundle identifier (`group.com.example.app`,
    /// `group.com.example.app.shared`), then, labelled as a guess, those that only share its
    /// prefix (`group.com.example…` for `com.example.app`). Empty when there are none.
    static func unnamedGroups(_ groups: [String], app: String, named: [String], shown: (String) -> String = { $0 })
        -> String
    {
        let candidates = Array(Set(groups.filter { !named.contains($0) })).sorted()
        let full = candidates.filter { $0 == "group." + app || $0.hasPrefix("group." + app + ".") }
        let parts = app.split(separator: ".")
        let stem = parts.count > 2 ? parts.dropLast().joined(separator: ".") : app
        let guessed = candidates.filter { !full.contains($0) && $0.hasPrefix("group." + stem) }
        var text: [String] = []
        if !full.isEmpty {
            text.append(full.map { TerminalText.escaped(shown($0)) }.joined(separator: ", ") + " (named after the app)")
        }
        if !guessed.isEmpty {
            text.append(
                guessed.map { TerminalText.escaped(shown($0)) }.joined(separator: ", ")
                    + " (guessed: only the prefix group.\(TerminalText.escaped(stem)) matches; which groups an app "
                    + "uses is in its entitlements)"
            )
        }
        return text.joined(separator: "; ")
    }
}
