import Foundation
import SandboxAuditSystem

/// The backup domains of one app in a backup folder: `AppDomain-ID`, every
/// `AppDomainPlugin-ID.*`, and `AppDomainGroup-GID` for each App Group the selection names.
/// What they hold is read by `BackupWalk.read(_:)`.
enum BackupContainers {
    /// The domains chosen, the app's first, with the open database they are read from and what
    /// the user should know about the choice.
    struct Read {
        let input: String
        let folder: BackupFolder
        let database: ManifestDatabase
        let cipher: (any BackupCipher)?
        let domains: [(role: ContainerRole, id: String)]
        let notes: [String]
    }

    /// Opens `input`, a backup folder, and chooses the app's domains. Throws `InputError` for an encrypted backup
    /// without a
    /// cipher, an unreadable Manifest.db, no `--app` or an app or group the backup does not hold
    /// (listing what it holds).
    static func read(_ input: String, _ selection: ContainerSelection) throws -> Read {
        let folder = try BackupFolder.open(input)
        let cipher = try folder.cipher(password: selection.password)
        let database = try ManifestDatabase(folder, cipher: cipher)
        let domains = try database.domains()
        let apps = folder.apps(domains: domains)
        // A count and the command that lists them: a device's backup holds hundreds of apps.
        let holds = InstalledApps.pointer(apps.count, what: "app", [input])
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
        // An extension domain goes to the app in the backup with the longest bundle identifier
        // it extends: AppDomainPlugin-com.example.app.pro.widget to com.example.app.pro.
        let pluginPrefix = ContainerRole.extension.domainPrefix + app + "."
        let installed = InstalledIdentifiers(apps)
        var notes = database.notes
        for d in domains where d.hasPrefix(pluginPrefix) {
            let id = String(d.dropFirst(ContainerRole.extension.domainPrefix.count))
            if let owner = AppContainers.owner(of: id, app: app, installed: installed) {
                notes.append(
                    "\(TerminalText.escaped(d)) not audited with \(TerminalText.escaped(app)): it belongs to "
                        + "\(TerminalText.escaped(owner)), "
                        + "the app in the backup with the longest bundle identifier it extends")
                continue
            }
            chosen.append((.extension, id))
        }
        for id in Array(Set(selection.appGroups)).sorted() {
            guard groupIDs.contains(id) else {
                throw InputError(
                    "no \(ContainerRole.group.domain(id)) domain in the backup \(input): "
                        + (groupIDs.isEmpty
                            ? "it holds no App Group domain"
                            : "its App Group domains are " + groupIDs.map { groupPrefix + $0 }.joined(separator: ", ")))
            }
            chosen.append((.group, id))
        }
        let unnamed = AppContainers.unnamedGroups(
            groupIDs, app: app, named: selection.appGroups, shown: { groupPrefix + $0 })
        if !unnamed.isEmpty {
            notes.append(
                "App Group domains in the backup not audited (add --app-group ID or appGroups: in the policy file if "
                    + "the app uses them): "
                    + unnamed)
        }
        return Read(input: input, folder: folder, database: database, cipher: cipher, domains: chosen, notes: notes)
    }

}
