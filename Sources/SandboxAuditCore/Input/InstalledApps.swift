import Foundation
import SandboxAuditSystem

/// The apps a backup folder or a Simulator device holds, each with its extensions and the App
/// Groups named after it: what `sandbox-audit apps` lists, so that `--app` and `--app-group`
/// can be chosen without reading an error. Nothing is read but the listing: a backup's
/// `Manifest.db` (its domains and their rows counted), a device's container folders and their
/// metadata plists.
public struct InstalledApps: Sendable {
    /// One container (a device folder) or backup domain.
    package struct Member: Sendable, Equatable {
        /// Its bundle or App Group identifier.
        package let identifier: String
        /// Its backup domain (`AppDomain-ID` …), or nil for an app a backup lists without one.
        package let domain: String?
        /// Its folder on the device; nil in a backup.
        package let path: String?
        /// The rows `Manifest.db` holds for the domain (files, folders and links); nil on a device.
        package let items: Int?
        /// The bytes of the domain's files as their `MBFile` records give them: what the backup
        /// carries of it; nil on a device. `unsized` files had no size to read (no blob, or one
        /// not decoded), so `bytes` leaves them out.
        package var bytes: Int64? = nil
        package var unsized: Int = 0
        /// On a device without metadata plists: how its identifier was found (the files that
        /// name it, `ContainerEvidence`); nil where the metadata plist or the backup names it.
        package var evidence: String? = nil
    }

    /// An app: its data container or domain, the extensions whose identifier extends it most
    /// closely, and the App Groups named after it.
    package struct App: Sendable {
        package let app: Member
        package let extensions: [Member]
        /// The groups whose identifier is `group.APP` or `group.APP.…`: neither a backup nor a
        /// device folder records which app uses which group.
        package let groups: [Member]
    }

    /// What was listed: the backup's identity or the device's line.
    package let source: String
    /// `backup` or `simulator`.
    package let kind: String
    package let apps: [App]
    /// Every App Group container or domain, whoever uses it.
    package let groups: [Member]
    /// Extensions that extend no listed app.
    package let unattributedExtensions: [Member]
    /// What the listing skipped and why (symbolic links in a device folder).
    package let notes: [String]

    /// The apps of `input`, a backup folder or a Simulator device folder, or of the device
    /// `selection.simulator` names (then `input` is not read). Throws `InputError` when `input`
    /// is neither, or cannot be read (an encrypted backup without its password included).
    public static func list(_ input: String, _ selection: ContainerSelection) throws -> InstalledApps {
        if let spec = selection.simulator {
            let device = try SimulatorDevices.find(spec, in: try SimulatorDevices.sets(selection.deviceSets))
            let place = "Simulator device \(TerminalText.escaped(device.name)) (\(TerminalText.escaped(device.udid)))"
            guard let listing = device.listing else { throw InputError("\(place) cannot be read again") }
            let folder = try listing.open(device.folder)
            let containers = try AppContainers.containersFolder(
                in: folder, path: device.folder, candidates: ["data/Containers"])
            return try onDevice(containers, source: "Simulator device " + device.line)
        }
        if BackupFolder.isBackup(input) { return try inBackup(input, selection) }
        guard let containers = try AppContainers.containersFolder(input, search: true) else {
            throw InputError(
                "\(TerminalText.escaped(input)) is not a backup folder (no Manifest.db), a Simulator device folder "
                    + "(no data/Containers/Data/Application or Shared/AppGroup) nor a device extraction (no "
                    + "…/mobile/Containers within \(AppContainers.searchDepth) levels): give one of these, or "
                    + "--simulator DEVICE"
            )
        }
        return try onDevice(
            containers, source: containers.place, kind: containers.isDeviceExtraction ? "device" : "simulator")
    }

    /// The installed app that `id` (an extension's identifier) extends most closely: the one
    /// with the longest bundle identifier that `id` begins with, followed by a dot.
    static func owner(of id: String, among installed: InstalledIdentifiers) -> String? {
        installed.longest(extendedBy: id, longerThan: 0)
    }

    /// Whether the App Group `group` is named after `app` (`group.APP`, `group.APP.…`).
    static func named(_ group: String, after app: String) -> Bool {
        group == "group." + app || group.hasPrefix("group." + app + ".")
    }

    static func assemble(
        source: String, kind: String, apps: [Member], extensions: [Member], groups: [Member], notes: [String]
    ) -> InstalledApps {
        let installed = InstalledIdentifiers(apps.map(\.identifier))
        var byApp: [String: [Member]] = [:]
        var unattributed: [Member] = []
        for e in extensions {
            if let owner = owner(of: e.identifier, among: installed) {
                byApp[owner, default: []].append(e)
            } else {
                unattributed.append(e)
            }
        }
        let sortedGroups = groups.sorted { ($0.identifier, $0.path ?? "") < ($1.identifier, $1.path ?? "") }
        let listed = apps.sorted { ($0.identifier, $0.path ?? "") < ($1.identifier, $1.path ?? "") }.map { a in
            App(
                app: a,
                extensions: (byApp[a.identifier] ?? []).sorted {
                    ($0.identifier, $0.path ?? "") < ($1.identifier, $1.path ?? "")
                },
                groups: sortedGroups.filter { named($0.identifier, after: a.identifier) })
        }
        return InstalledApps(
            source: source, kind: kind, apps: listed, groups: sortedGroups,
            unattributedExtensions: unattributed.sorted { $0.identifier < $1.identifier }, notes: notes)
    }

    /// A backup folder: its `AppDomain-*`, `AppDomainPlugin-*` and `AppDomainGroup-*` domains
    /// with their rows counted, and the apps its Info.plist lists without a domain.
    static func inBackup(_ input: String, _ selection: ContainerSelection) throws -> InstalledApps {
        let folder = try BackupFolder.open(input)
        let database = try ManifestDatabase(folder, cipher: try folder.cipher(password: selection.password))
        let counts = try database.domainCounts()
        // Which app fills the backup: each listed domain's file bytes, from its rows' MBFile
        // blobs in one pass over them (as a scan of the backup reads them, without the walk).
        let listed = counts.map(\.domain).filter { d in
            [ContainerRole.app, .extension, .group].contains { d.hasPrefix($0.domainPrefix) }
        }
        var bytes = [Int64](repeating: 0, count: listed.count)
        var unsized = [Int](repeating: 0, count: listed.count)
        try database.forEachRow(
            domains: listed,
            prepare: { row, blob -> (domain: Int, size: Int64?) in
                guard row.flags == 1 else { return (row.domain, 0) }
                guard let blob, case .success(let mb) = MBFile.decode(blob), let size = mb.size else {
                    return (row.domain, nil)
                }
                return (row.domain, max(0, size))
            }
        ) { row in
            if let size = row.size {
                bytes[row.domain] = bytes[row.domain].addingSaturated(size)
            } else {
                unsized[row.domain] += 1
            }
        }
        let index = Dictionary(uniqueKeysWithValues: listed.enumerated().map { ($1, $0) })
        func members(_ role: ContainerRole) -> [Member] {
            counts.filter { $0.0.hasPrefix(role.domainPrefix) }.map {
                var m = Member(
                    identifier: String($0.0.dropFirst(role.domainPrefix.count)), domain: $0.0, path: nil, items: $0.1)
                if let i = index[$0.0] { (m.bytes, m.unsized) = (bytes[i], unsized[i]) }
                return m
            }
        }
        var apps = members(.app)
        let withDomain = Set(apps.map(\.identifier))
        for id in Set(folder.installedApplications) where !withDomain.contains(id) {
            apps.append(Member(identifier: id, domain: nil, path: nil, items: nil))
        }
        return assemble(
            source: folder.identity.summary + " (" + TerminalText.escaped(folder.path) + ")", kind: "backup",
            apps: apps, extensions: members(.extension), groups: members(.group), notes: database.notes)
    }

    /// A Simulator device's `Containers` folder (nil: the device has none yet): its data,
    /// extension and App Group containers, by their metadata identifiers.
    static func onDevice(_ containers: ContainersFolder?, source: String, kind: String = "simulator") throws
        -> InstalledApps
    {
        guard let containers else {
            return assemble(
                source: source, kind: kind, apps: [], extensions: [], groups: [],
                notes: [
                    "the device holds no app containers yet (no data/Containers/Data/Application): install and run "
                        + "an app on it"
                ])
        }
        var skipped: [String] = []
        func members(_ folder: String, _ role: ContainerRole) throws -> [Member] {
            try AppContainers.list(containers, folder, skipped: &skipped, unread: &unread).map {
                Member(
                    identifier: $0.identifier, domain: role.domain($0.identifier), path: $0.path, items: nil,
                    evidence: $0.evidence)
            }
        }
        var unread: [String] = []
        let apps = try members("Data/Application", .app)
        let extensions = try members("Data/PluginKitPlugin", .extension)
        let groups = try members("Shared/AppGroup", .group)
        var notes =
            skipped.isEmpty
            ? []
            : ["symbolic links skipped, never followed: " + skipped.map(TerminalText.escaped).joined(separator: ", ")]
        if !unread.isEmpty {
            notes.append(
                "\(unread.count) \(unread.count == 1 ? "container" : "containers") could not be told (no readable "
                    + "metadata plist, and no file names one app; scan it by its path): "
                    + unread.joined(separator: ", "))
        }
        return assemble(source: source, kind: kind, apps: apps, extensions: extensions, groups: groups, notes: notes)
    }
}

extension InstalledApps {
    /// `sandbox-audit apps ARGUMENTS`, each quoted for a POSIX shell when it needs it: what an
    /// error about a missing or unknown `--app` points to instead of listing every app.
    package static func command(_ arguments: [String]) -> String {
        let quoted = arguments.map { argument in
            let plain =
                !argument.isEmpty
                && argument.unicodeScalars.allSatisfy { c in
                    c.isASCII && (CharacterSet.alphanumerics.contains(c) || "/._-+:@%,=".unicodeScalars.contains(c))
                }
            return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        return TerminalText.escaped((["sandbox-audit", "apps"] + quoted).joined(separator: " "))
    }

    /// `it holds 3 apps; `sandbox-audit apps PATH` lists them`, or `it holds no app`.
    package static func pointer(_ count: Int, what: String, _ arguments: [String]) -> String {
        count == 0
            ? "it holds no \(what)"
            : "it holds \(count) \(what)\(count == 1 ? "" : "s"); `\(command(arguments))` lists them"
    }
}
