import Foundation

/// The backup domains of one app in a backup folder, as containers with their inventories:
/// `AppDomain-ID`, every `AppDomainPlugin-ID.*`, and `AppDomainGroup-GID` for each App Group
/// the selection names. The inventories are what the backup holds.
public enum BackupContainers {
    /// The inventories, the app's domain first, and what the user should know about the choice.
    public struct Read: Sendable {
        public let inventories: [Inventory]
        public let notes: [String]
    }

    /// Reads `input`, a backup folder. Throws `InputError` for an encrypted backup without a
    /// cipher, an unreadable Manifest.db, no `--app` or an app or group the backup does not hold
    /// (listing what it holds).
    public static func read(_ input: String, _ selection: ContainerSelection) throws -> Read {
        let folder = try BackupFolder.open(input)
        let cipher = try folder.cipher(password: selection.password)
        let database = try ManifestDatabase(folder, cipher: cipher)
        let domains = try database.domains()
        let apps = folder.apps(domains: domains)
        let holds = apps.isEmpty ? "it holds no app domain" : "it holds " + apps.joined(separator: ", ")
        guard let app = selection.app else {
            throw InputError("\(input) is a backup folder: name the app with --app BUNDLE_ID; \(holds)")
        }
        let appDomain = ContainerRole.app.domain(app)
        guard domains.contains(appDomain) else {
            throw InputError("no \(appDomain) domain in the backup \(input): \(holds)")
        }
        let groupPrefix = ContainerRole.group.domainPrefix
        let groupIDs = domains.filter { $0.hasPrefix(groupPrefix) }.map { String($0.dropFirst(groupPrefix.count)) }
        var chosen: [(role: ContainerRole, id: String)] = [(.app, app)]
        let pluginPrefix = ContainerRole.extension.domainPrefix + app + "."
        for d in domains where d.hasPrefix(pluginPrefix) {
            chosen.append((.extension, String(d.dropFirst(ContainerRole.extension.domainPrefix.count))))
        }
        for id in Array(Set(selection.appGroups)).sorted() {
            guard groupIDs.contains(id) else {
                throw InputError("no \(ContainerRole.group.domain(id)) domain in the backup \(input): "
                    + (groupIDs.isEmpty ? "it holds no App Group domain" : "its App Group domains are " + groupIDs.map { groupPrefix + $0 }.joined(separator: ", ")))
            }
            chosen.append((.group, id))
        }
        // One pass over the rows, each decoded as it is read: the blobs are never all held.
        var walks: [String: BackupWalk] = [:]
        for (role, id) in chosen { walks[role.domain(id)] = BackupWalk(domain: role.domain(id), folder: folder, cipher: cipher) }
        try database.forEachRow(domains: chosen.map { $0.role.domain($0.id) }) { row in walks[row.domain]?.add(row) }
        let inventories = chosen.map { role, id in
            let domain = role.domain(id)
            let (walk, source) = walks[domain]?.finish() ?? BackupWalk(domain: domain, folder: folder, cipher: cipher).finish()
            let container = Container(input: input, dataRoot: folder.path, kind: .backup, role: role, roleSource: "domain",
                                      bundleIdentifier: id, version: nil, identitySource: BackupFolder.manifestDatabase, backup: source)
            return Inventory(container: container, walk: walk)
        }
        var notes: [String] = []
        let unnamed = AppContainers.unnamedGroups(groupIDs, app: app, named: selection.appGroups)
        if !unnamed.isEmpty {
            notes.append("App Group domains in the backup not audited (add --app-group ID or appGroups: in the policy file if the app uses them): "
                + unnamed.map { groupPrefix + $0 }.joined(separator: ", "))
        }
        return Read(inventories: inventories, notes: notes)
    }
}
