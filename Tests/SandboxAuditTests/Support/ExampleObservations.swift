import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The rule examples that need a second observation of the container: a baseline written
/// before (`RuleExample.before`) or a real backup beside it (`RuleExample.backup`).
enum ExampleObservations {
    /// The bundle identifier the examples' backups are made for.
    static let app = "com.example.app"

    /// Writes `before`, records a baseline from a real scan of it (through its JSON file, as
    /// `--write-baseline` and `--baseline` do), changes the container in place into `items`,
    /// and scans it with that baseline.
    static func auditWithBaseline(_ example: RuleExample, before: [RuleExample.Item], at dir: String, policy: Policy)
        throws -> AuditResult
    {
        let root = dir + "/container"
        try Fixture.materialize(RuleExample("before", before, role: example.role), at: root)
        let selection = ContainerSelection(role: example.role)
        let first = try Audit.run(root, selection: selection, policy: policy)
        try AtomicFile.write(Array((Baseline(first).json.pretty + "\n").utf8), to: dir + "/baseline.json")
        let baseline = try Baseline.load(dir + "/baseline.json")
        try change(root, from: before, to: example.items, recreated: Set(example.recreated))
        return try Audit.run(root, selection: selection, policy: policy, baseline: baseline)
    }

    /// Turns the container at `root` (holding `before`) into `after`, in place: items gone are
    /// removed, new ones created; a kept file keeps its inode (resized, its native exclude
    /// attribute removed with removexattr); a re-created one is written beside and renamed
    /// over (a new inode without attributes), as an atomic write does. Then `after`'s marks.
    static func change(
        _ root: String, from before: [RuleExample.Item], to after: [RuleExample.Item], recreated: Set<String>
    ) throws {
        let afterPaths = Set(after.map(\.path))
        for item in before where !afterPaths.contains(item.path) {
            try FileManager.default.removeItem(atPath: root + "/" + item.path)
        }
        let beforePaths = Set(before.map(\.path))
        for item in after {
            let path = root + "/" + item.path
            guard beforePaths.contains(item.path) else {
                try Fixture.materialize(RuleExample("added", [item]), at: root)
                continue
            }
            if case .file(let size) = item.kind {
                if recreated.contains(item.path) {
                    let beside =
                        (path as NSString).deletingLastPathComponent + "/.new-" + (path as NSString).lastPathComponent
                    try Fixture.file(beside, size: size)
                    guard rename(beside, path) == 0 else { throw SystemError(operation: "rename", path: beside) }
                } else {
                    guard truncate(path, off_t(size)) == 0 else { throw SystemError(operation: "truncate", path: path) }
                }
            }
            if !recreated.contains(item.path) {
                for attribute in BackupAttribute.allCases {
                    _ = try XAttr.remove(path: Array(path.utf8), name: attribute.nativeName)
                }
            }
            for mark in item.marks {
                try BackupMarker.set(
                    mark.attribute, value: mark.value, on: path, carrier: mark.carrier == .native ? .native : .sidecar)
            }
        }
    }

    /// Writes the example's container and a real backup folder (BackupBuilder: Manifest.db, MBFile
    /// blobs, XX/FILEID bytes) whose app domain holds `backup`, then audits the container
    /// against it through the backup reader, as `scan --against-backup DIR --app ID` does.
    static func auditAgainstBackup(_ example: RuleExample, backup: [RuleExample.Item], at dir: String, policy: Policy)
        throws -> AuditResult
    {
        let root = dir + "/container"
        try Fixture.materialize(example, at: root)
        try builder(backup).write(to: dir + "/backup")
        return try Audit.run(
            root, selection: ContainerSelection(role: example.role, app: app), policy: policy,
            againstBackup: dir + "/backup")
    }

    /// A backup whose `AppDomain-APP` holds `items` (and the folders on their way).
    static func builder(_ items: [RuleExample.Item], domain: String = ContainerRole.app.domain(app)) -> BackupBuilder {
        var b = BackupBuilder()
        b.installedApplications = [app]
        for item in items {
            switch item.kind {
            case .directory: b.directory(domain, item.path)
            case .file(let size): b.file(domain, item.path, size: size)
            case .symlink(let target): b.symlink(domain, item.path, to: target)
            default: XCTFail("a backup holds files, folders and symlinks: \(item.path)")
            }
        }
        return b
    }

    /// A folder holding exactly `items`, scanned and re-labelled as the app's backup domain.
    static func backupSide(
        _ items: [RuleExample.Item], at folder: String, app: String = app, role: ContainerRole = .app
    ) throws -> Inventory {
        try Fixture.mkdirs(folder)
        for item in items {
            switch item.kind {
            case .directory: try Fixture.mkdirs(folder + "/" + item.path)
            case .file(let size): try Fixture.file(folder + "/" + item.path, size: size)
            case .symlink(let target):
                try FileManager.default.createSymbolicLink(
                    atPath: folder + "/" + item.path, withDestinationPath: target)
            default: XCTFail("a backup holds files, folders and symlinks: \(item.path)")
            }
        }
        return try relabelled(folder, app: app, role: role)
    }

    /// A real folder, scanned, as the inventory of a backup domain of `app`.
    static func relabelled(_ folder: String, app: String, role: ContainerRole = .app) throws -> Inventory {
        let container = Container(
            input: folder, dataRoot: folder, kind: .backup, role: role, roleSource: "backup",
            bundleIdentifier: app, version: nil, identitySource: nil)
        return Inventory(container: container, walk: try FolderWalk.read(container))
    }
}
