import Foundation
import SandboxAuditSystem

/// One of an app's containers as given on the command line (its data container, an extension's
/// or an App Group's): where its data root is, which role it plays, and who it belongs to when
/// the metadata says.
public struct Container: Sendable {
    package enum Kind: String, Sendable {
        /// A Simulator data container (it has the container-manager metadata plist).
        case simulator
        /// An `.xcappdata` package downloaded from a device; the data root is `AppData/`.
        case xcappdata
        /// Any other copy of a data container.
        case directory
        /// One backup domain of a Finder or iTunes backup folder (`Manifest.db`): its entries
        /// are what the backup holds, so every one of them is backed up by definition.
        case backup
    }

    /// The path as the user gave it.
    package let input: String
    /// The data root: the directory holding Documents, Library and tmp.
    package let dataRoot: String
    /// A folder container's data root as opened once when it was located: the walk, the
    /// content rules and `simulate --into` read through it, never through `dataRoot` again.
    /// Nil for an archive (its file is held by the walk: `Inventory.archive`) and a backup domain.
    package let root: HeldDescriptor?
    package let kind: Kind
    /// App, extension or group container: decides the backup rules that apply.
    public let role: ContainerRole
    /// How the role was decided: `option` (--kind), `metadata` (MCMMetadataContentClass),
    /// `folder` (the folder it sits in), `identifier` (a `group.` identifier) or `default`.
    package let roleSource: String
    /// The bundle identifier (app, extension) or the App Group identifier (group).
    public let bundleIdentifier: String?
    package let version: String?
    /// The file the identity came from, relative to the input.
    package let identitySource: String?
    /// A backup domain (`kind` `.backup`): the backup folder, and where the domain's files'
    /// bytes are. Nil for every other kind.
    package let backup: BackupSource?
    /// The kind of input it was found in: what it lets the scan observe, and how its contents
    /// are read back.
    package let source: any InputKind.Type
    /// The Simulator device's `Containers` folder a container was listed in (`AppContainers`):
    /// what else is read of the device (the app's bundle) is reached through it, and nothing
    /// beside the data root is read by its path (no sidecar or `__MACOSX` mirror outside it).
    /// Nil for a container given by its path.
    package let listedIn: ContainersFolder?
    /// What its input kind observes and this container cannot give, with why (an archive that
    /// carries no attribute at all: `.attributesOnDisk`, "it holds no …"). The audit takes
    /// these from the kind's observations; the rules that need them are not checked here.
    package var lost: [Observation: String] = [:]

    /// What the scan observes of this container: its kind's observations less what it lost.
    package var observes: Set<Observation> { source.capabilities.observes.subtracting(lost.keys) }

    static let simulatorMetadata = ".com.apple.mobile_container_manager.metadata.plist"
    /// The kinds of archive a container may come in, as messages name them.
    static let archiveKinds = "tar, tar.gz/tgz, tar.xz/txz, tar.bz2, tar.zst or zip"
    package static let appDataInfo = "AppDataInfo.plist"
    /// What messages and reports call an archive read from standard input (its `input`).
    package static let standardInputLocation = "standard input"

    init(
        input: String, dataRoot: String, kind: Kind, role: ContainerRole = .app, roleSource: String = "default",
        bundleIdentifier: String?, version: String?, identitySource: String?, backup: BackupSource? = nil,
        root: HeldDescriptor? = nil,
        source: (any InputKind.Type)? = nil, listedIn: ContainersFolder? = nil
    ) {
        // Without a kind named, what the container holds tells: a backup domain's source, or a folder.
        self.source = source ?? (backup == nil ? FolderInput.self : BackupInput.self)
        self.input = input
        self.dataRoot = dataRoot
        self.root = root
        self.kind = kind
        self.role = role
        self.roleSource = roleSource
        self.bundleIdentifier = bundleIdentifier
        self.version = version
        self.identitySource = identitySource
        self.backup = backup
        self.listedIn = listedIn
    }

    /// What the reports say the input is: the kind, or for a backup domain "backup of DEVICE,
    /// iOS VERSION, DATE" as far as the backup's plists tell.
    package var kindDescription: String { backup?.folder.identity.summary ?? kind.rawValue }

    /// The backup domain this container is (`AppDomain-ID`, `AppDomainPlugin-ID`, `AppDomainGroup-ID`).
    public var domain: String { role.domain(bundleIdentifier) }

    /// The same container seen in another role (`--kind`).
    func with(role: ContainerRole, source roleSource: String) -> Container {
        Container(
            input: input, dataRoot: dataRoot, kind: kind, role: role, roleSource: roleSource,
            bundleIdentifier: bundleIdentifier, version: version, identitySource: identitySource, backup: backup,
            root: root, source: source, listedIn: listedIn)
    }

    /// The same container, found in an input of the kind `source`.
    func found(in source: any InputKind.Type) -> Container {
        Container(
            input: input, dataRoot: dataRoot, kind: kind, role: role, roleSource: roleSource,
            bundleIdentifier: bundleIdentifier, version: version, identitySource: identitySource, backup: backup,
            root: root, source: source, listedIn: listedIn)
    }

    /// The role the container-manager metadata gives: `MCMMetadataContentClass` 2 is an app's
    /// data container and 7 an App Group container (the values are not documented by Apple;
    /// docs/what-ios-backs-up.md says where they are seen). Other values, or none, say nothing.
    static func metadataRole(_ meta: [String: Any]) -> ContainerRole? {
        let value =
            (meta["MCMMetadataContentClass"] as? Int) ?? (meta["MCMMetadataContentClass"] as? NSNumber)?.intValue
        switch value {
        case 2: return .app
        case 7: return .group
        default:
            return (meta["MCMMetadataIdentifier"] as? String)?.hasPrefix("group.") == true ? .group : nil
        }
    }

    /// The role the folder holding a container gives, on a device or in a Simulator:
    /// `Data/Application/UUID`, `Data/PluginKitPlugin/UUID`, `Shared/AppGroup/UUID`.
    static func folderRole(_ root: String) -> ContainerRole? {
        let parts = root.split(separator: "/")
        guard parts.count >= 3 else { return nil }
        switch (parts[parts.count - 3], parts[parts.count - 2]) {
        case ("Data", "Application"): return .app
        case ("Data", "PluginKitPlugin"): return .extension
        case ("Shared", "AppGroup"): return .group
        default: return nil
        }
    }

    /// Resolves `input` to a container, or throws an `InputError` saying what is wrong.
    /// `role` (from `--kind`) overrides what the metadata and the folder say.
    static func locate(_ input: String, role: ContainerRole? = nil) throws -> Container {
        let cwd = FileDescriptor.currentDirectory
        var st: FileStatus
        switch Result(catching: { () throws(Errno) in try cwd.status(of: input.utf8) }) {
        case .success(let s): st = s
        case .failure(let e):
            let reason = e.code == ENOENT ? "no such file or directory" : errorText(e.code)
            throw InputError("cannot read \(TerminalText.escaped(input)): \(reason)")
        }
        // The input may itself be a symlink to a container (a Simulator path alias): follow that one.
        if st.kind == .symlink {
            guard let target = try? cwd.status(following: input.utf8) else {
                throw InputError("cannot read \(TerminalText.escaped(input)): it is a broken symbolic link")
            }
            st = target
        }
        guard st.kind == .directory else {
            if st.kind == .regular {
                // A file that is not an archive (by name or by its first bytes): say which.
                if case .failure(let e) = Result(catching: { () throws(SystemError) in
                    try FileDescriptor.currentDirectory.readFile(input.utf8, limit: 1)
                }) {
                    throw InputError("cannot read \(TerminalText.escaped(input)): \(e.reason.lowercased())")
                }
                throw InputError(
                    "\(TerminalText.escaped(input)) is not a directory, and not an archive "
                        + "(\(Container.archiveKinds)) by its name or its first bytes: give an app data container, "
                        + "an .xcappdata package or an archive of one"
                )
            }
            throw InputError(
                "\(TerminalText.escaped(input)) is not a directory: give an app data container, an .xcappdata "
                    + "package or an archive of one"
            )
        }
        // Work on the real path: the walk never follows a symlink, and a symlink's absolute
        // target is compared with it.
        var trimmed = input.count > 1 && input.hasSuffix("/") ? String(input.dropLast()) : input
        if let real = Paths.real(trimmed.utf8) { trimmed = String(decoding: real, as: UTF8.self) }

        // A folder this user cannot list is not "not a container": say what stops the read.
        try requireReadable(trimmed, input: input)
        // Opened once, here: everything below is read through this descriptor.
        let top = try open(trimmed, input: input)
        if trimmed.hasSuffix(".xcappdata")
            || (isDirectory(Container.appDataFolder, in: top) && fileExists(appDataInfo, in: top))
        {
            let appData = trimmed + "/" + Container.appDataFolder
            let root: HeldDescriptor
            do { root = try HeldDescriptor.directory(Container.appDataFolder.utf8, in: top) } catch {
                if [ENOENT, ENOTDIR, ELOOP].contains(error.code) {
                    throw InputError(
                        "\(TerminalText.escaped(input)) is an .xcappdata package without an AppData folder")
                }
                throw InputError("cannot read \(TerminalText.escaped(input)): \(errorText(error.code).lowercased())")
            }
            if role != .group { try requireContainerLayout(root, appData, input: input) }
            let info = readPlist(appDataInfo, in: top)
            return Container(
                input: input, dataRoot: appData, kind: .xcappdata, role: role ?? .app,
                roleSource: role == nil ? "default" : "option",
                bundleIdentifier: info.flatMap(appDataInfoIdentity)?.bundle,
                version: info.flatMap(appDataInfoIdentity)?.version,
                identitySource: info == nil ? nil : appDataInfo, root: root)
        }
        let meta = readPlist(simulatorMetadata, in: top)
        var found: (ContainerRole, String)? = role.map { ($0, "option") }
        if found == nil, let meta, let r = metadataRole(meta) {
            found = (r, (meta["MCMMetadataContentClass"] != nil) ? "metadata" : "identifier")
        }
        if found == nil, let r = folderRole(trimmed) { found = (r, "folder") }
        let (chosen, source) = found ?? (.app, "default")
        if chosen != .group {
            try requireContainerLayout(top, trimmed, input: input, hint: found == nil)
        }
        if let meta {
            return Container(
                input: input, dataRoot: trimmed, kind: .simulator, role: chosen, roleSource: source,
                bundleIdentifier: metadataIdentity(meta), version: nil,
                identitySource: simulatorMetadata, root: top)
        }
        return Container(
            input: input, dataRoot: trimmed, kind: .directory, role: chosen, roleSource: source,
            bundleIdentifier: nil, version: nil, identitySource: nil, root: top)
    }

    static let appDataFolder = "AppData"

    /// The container a device folder's listing found (`AppContainers.list`), opened again
    /// through that listing's descriptor, never through a symlink, and only when it is still
    /// the folder listed (device and inode) and its metadata still names the identifier read
    /// then. `role` is the one its place on the device gives.
    static func locate(listed found: AppContainers.Found, role: ContainerRole) throws -> Container {
        let held = try found.listing.open(found.path)
        let shown = TerminalText.escaped(found.path)
        let stillNamed =
            found.evidence == nil
            ? readPlist(simulatorMetadata, in: held).flatMap(metadataIdentity) == found.identifier
            : ContainerEvidence.identify(held)?.identifier == found.identifier
        guard stillNamed else {
            throw InputError(
                "\(shown) changed while it was read (it no longer names \(TerminalText.escaped(found.identifier))): "
                    + "not audited"
            )
        }
        if case .failure(let e) = Result(catching: { () throws(Errno) in
            _ = try held.descriptor.names()
            _ = try held.descriptor.status(of: ".".utf8)
        }) {
            throw InputError("cannot read \(shown): \(errorText(e.code).lowercased())")
        }
        if role != .group, !["Documents", "Library", "tmp"].contains(where: { isDirectory($0, in: held) }) {
            throw InputError("\(shown) is not an app data container: no Documents, Library or tmp folder in it")
        }
        return Container(
            input: found.path, dataRoot: found.path, kind: .simulator, role: role, roleSource: "option",
            bundleIdentifier: found.identifier, version: nil, identitySource: found.evidence ?? simulatorMetadata,
            root: held,
            listedIn: found.containers)
    }

    /// The folder at the real path `path`, opened and held; a failure says what stops the read.
    private static func open(_ path: String, input: String) throws -> HeldDescriptor {
        do { return try HeldDescriptor.directory(path.utf8) } catch {
            throw InputError("cannot read \(TerminalText.escaped(input)): \(errorText(error.code).lowercased())")
        }
    }

    /// Bundle id and version from an `.xcappdata`'s AppDataInfo.plist (schema undocumented:
    /// read what is there).
    static func appDataInfoIdentity(_ info: [String: Any]) -> (bundle: String?, version: String?) {
        (
            info["CFBundleIdentifier"] as? String,
            (info["XCExecutableVersion"] as? String) ?? (info["CFBundleShortVersionString"] as? String)
                ?? (info["CFBundleVersion"] as? String)
        )
    }

    /// Bundle id from a Simulator container's metadata plist.
    static func metadataIdentity(_ meta: [String: Any]) -> String? { meta["MCMMetadataIdentifier"] as? String }

    /// Throws "cannot read INPUT: permission denied" (or the error there is) when `root` cannot be
    /// listed or entered by this user.
    private static func requireReadable(_ root: String, input: String) throws {
        if let e = Paths.cannotList(root) {
            throw InputError("cannot read \(TerminalText.escaped(input)): \(errorText(e.code).lowercased())")
        }
    }

    private static func requireContainerLayout(
        _ root: HeldDescriptor, _ path: String, input: String, hint: Bool = false
    ) throws {
        try requireReadable(path, input: input)
        let known = ["Documents", "Library", "tmp"]
        guard known.contains(where: { isDirectory($0, in: root) }) else {
            let more = hint ? " (for an App Group container, add --kind group)" : ""
            throw InputError(
                "\(TerminalText.escaped(input)) is not an app data container: no Documents, Library or tmp folder in "
                    + "\(TerminalText.escaped(path))\(more)"
            )
        }
    }

    package static func isDirectory(_ path: String) -> Bool {
        (try? FileDescriptor.currentDirectory.status(of: path.utf8).kind) == .directory
    }

    static func fileExists(_ path: String) -> Bool {
        (try? FileDescriptor.currentDirectory.status(of: path.utf8).kind) == .regular
    }

    /// Whether `name` in the held folder is a folder (not through a symlink).
    static func isDirectory(_ name: String, in folder: HeldDescriptor) -> Bool {
        (try? folder.descriptor.status(of: name.utf8).kind) == .directory
    }

    /// Whether `name` in the held folder is a regular file (not through a symlink).
    static func fileExists(_ name: String, in folder: HeldDescriptor) -> Bool {
        (try? folder.descriptor.status(of: name.utf8).kind) == .regular
    }

    /// Identity plists larger than this are not read (a real one is well under 4 KiB).
    static let maximumIdentityPlistSize = 1 << 20

    /// Reads a binary or XML plist dictionary by its path (finding containers by their
    /// identity); nil when missing, unreadable or refused, as `readPlist(_:in:)`.
    static func readPlist(_ path: String) -> [String: Any]? {
        guard fileExists(path),
            let bytes = try? BoundedRead.file(Array(path.utf8), limit: maximumIdentityPlistSize, followSymlink: false)
        else { return nil }
        return BoundedPlist.dictionary(bytes, maximumSize: maximumIdentityPlistSize)
    }

    /// Reads a binary or XML plist dictionary, `name` in the held folder; nil when missing,
    /// unreadable, over `maximumIdentityPlistSize` or refused by `BoundedPlist` (its schema is
    /// undocumented: read what is there, tolerate what is not). Opened without following a
    /// symlink, without blocking on a FIFO and without updating its access time where permitted.
    static func readPlist(_ name: String, in folder: HeldDescriptor) -> [String: Any]? {
        guard let bytes = try? folder.descriptor.readFile(name.utf8, limit: maximumIdentityPlistSize + 1),
            bytes.count <= maximumIdentityPlistSize
        else { return nil }
        return BoundedPlist.dictionary(bytes, maximumSize: maximumIdentityPlistSize)
    }

    /// The `__MACOSX` mirror trees that may describe this data root: one inside it, and one
    /// beside it or beside the package holding it (what unzipping a Finder archive leaves).
    /// A mirror outside the data root is listed when its folder exists or when the data root's
    /// own sidecar sits beside that folder (`__MACOSX/._NAME`, all a mirror holds when only the
    /// data root carries attributes).
    var mirrorRoots: [String] {
        var candidates: [String] = []
        var base = dataRoot
        var relative: [String] = []
        for _ in 0..<3 {
            candidates.append(([base, AppleDouble.mirrorFolder] + relative).joined(separator: "/"))
            let url = URL(fileURLWithPath: base)
            let parent = url.deletingLastPathComponent().path
            if parent == base || parent.isEmpty { break }
            relative.insert(url.lastPathComponent, at: 0)
            base = parent
        }
        return candidates.enumerated().filter { index, candidate in
            if index > 0, listedIn != nil { return false }
            if index == 0, let root { return Container.isDirectory(AppleDouble.mirrorFolder, in: root) }
            if Container.isDirectory(candidate) { return true }
            guard index > 0, let slash = candidate.lastIndex(of: "/") else { return false }
            return Container.fileExists(candidate[..<slash] + "/._" + candidate[candidate.index(after: slash)...])
        }.map(\.element)
    }
}
