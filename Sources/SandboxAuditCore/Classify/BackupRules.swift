import SandboxAuditSystem

extension ContainerRole {
    /// The path sets iOS's backup applies to containers of this role.
    package var pathSets: BackupPathSets { self == .group ? .group : .appData }
}

/// What iOS's backup (MobileBackup) does with a container, as path sets relative to its root.
/// The one table every verdict comes from: inventory, rules, simulations, reports and the
/// archive reading alike.
///
/// Source: MobileBackup's path sets for app, plugin and group domains (`MBApp`, `MBAppPlugin`,
/// `MBAppGroup`), as public decompilations of iOS 18.0 and 26.1 restore images show them
/// (github.com/EthanArbuckle/iPhone18-3_26.1_23B85_Restore,
/// github.com/EthanArbuckle/iPad_10.2_18.0_22A3354_Restore), confirmed by the paths a real
/// device backup's Manifest.db holds. docs/what-ios-backs-up.md says the same for users.
package struct BackupPathSets: Sendable {
    /// Backup walks only these (the empty path: the whole container).
    let backedUpRoots: [ContainerPath]
    /// Inside those, never backed up.
    let notBackedUp: [ContainerPath]
    /// Backed up, but not put back by a restore.
    let notRestored: [ContainerPath]
    /// An app update keeps these (the empty path: everything).
    let keptOnUpdate: [ContainerPath]

    static let systemSkips = ["SystemData/com.apple.AuthenticationServices", "SystemData/com.apple.chrono"]
    static let libraryNotBackedUp = [
        "Library/Caches", "Library/SyncedPreferences", "Library/Saved Application State", "Library/SplashBoard",
    ]

    /// App and app extension data containers.
    static let appData = BackupPathSets(
        backedUpRoots: paths(["Documents", "Library", "GeoJSON"]),
        notBackedUp: paths(libraryNotBackedUp + systemSkips),
        notRestored: paths(
            ["NewsstandArtwork", "Library/Saved Application State", "Library/SplashBoard"] + systemSkips),
        keptOnUpdate: paths(["Documents", "Library"]))

    /// App Group containers: the whole container, less the app's skips and the metadata plist.
    static let group = BackupPathSets(
        backedUpRoots: [.root],
        notBackedUp: paths(libraryNotBackedUp + systemSkips + [Container.simulatorMetadata]),
        notRestored: paths(
            ["NewsstandArtwork", "Library/Saved Application State", "Library/SplashBoard"] + systemSkips),
        keptOnUpdate: [.root])

    static func paths(_ list: [String]) -> [ContainerPath] { list.map { ContainerPath($0) } }

    /// The verdicts of a path by place alone (exclusion comes on top).
    func placement(of path: ContainerPath) -> Placement {
        let inRoots = backedUpRoots.contains { BackupPathSets.covers($0, path) }
        let skipped = notBackedUp.contains { BackupPathSets.covers($0, path) }
        let backedUp = inRoots && !skipped
        return Placement(
            backedUp: backedUp,
            restored: backedUp && !notRestored.contains { BackupPathSets.covers($0, path) },
            keptOnUpdate: keptOnUpdate.contains { BackupPathSets.covers($0, path) })
    }

    /// Which of the sets decided whether backup takes `path` (exclusion comes on top): the
    /// skip that covers it, else the backed-up root it lies in, else none of the roots.
    package func decision(for path: ContainerPath) -> PathDecision {
        if let skip = notBackedUp.first(where: { BackupPathSets.covers($0, path) }),
            backedUpRoots.contains(where: { BackupPathSets.covers($0, path) })
        {
            return .skipped(skip)
        }
        if let root = backedUpRoots.first(where: { BackupPathSets.covers($0, path) }) { return .inRoot(root) }
        return .outsideRoots(backedUpRoots)
    }

    /// `prefix` is `path` or one of its ancestors (the empty prefix covers everything).
    static func covers(_ prefix: ContainerPath, _ path: ContainerPath) -> Bool {
        let p = prefix.bytes
        let b = path.bytes
        guard b.count >= p.count else { return false }
        guard b.count == p.count || p.isEmpty || b[p.count] == UInt8(ascii: "/") else { return false }
        return p.isEmpty || b.starts(with: p)
    }
}

/// What backup, restore and update do with a path because of where it is.
@usableFromInline package struct Placement: Sendable, Equatable {
    @usableFromInline package let backedUp: Bool
    @usableFromInline let restored: Bool
    @usableFromInline let keptOnUpdate: Bool
}

/// The set of `BackupPathSets` that decided a path's fate, in words a user understands.
package enum PathDecision: Sendable, Equatable {
    /// Backed up: the path lies in this root (the empty path: the whole container).
    case inRoot(ContainerPath)
    /// Never backed up: this skip covers the path.
    case skipped(ContainerPath)
    /// Not backed up: the path lies in none of these roots.
    case outsideRoots([ContainerPath])

    package var backedUp: Bool { if case .inRoot = self { return true } else { return false } }

    /// "Library/Caches is never backed up", "Documents is backed up", "tmp is not backed up:
    /// backup takes only Documents, Library and GeoJSON".
    package func text(for path: ContainerPath) -> String {
        switch self {
        case .inRoot(let root):
            return root.isRoot ? "an App Group container is backed up whole" : "\(root.display) is backed up"
        case .skipped(let skip):
            return "\(skip.display) is never backed up"
        case .outsideRoots(let roots):
            let top = path.leadingComponents(1).first.map { ByteText.display(Array($0)) } ?? path.display
            let names = roots.map(\.display)
            let list =
                names.count > 1 ? names.dropLast().joined(separator: ", ") + " and " + names.last! : names.joined()
            return "\(top) is not backed up: backup takes only \(list)"
        }
    }
}
