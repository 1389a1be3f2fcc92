import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

extension ExampleObservations {
    /// The domain a `backupInput` example's items are written to, and the App Groups to name.
    static func backupDomain(_ role: ContainerRole) -> (domain: String, groups: [String]) {
        switch role {
        case .app: return (ContainerRole.app.domain(app), [])
        case .extension: return (ContainerRole.extension.domain(app + ".widget"), [])
        case .group: return (ContainerRole.group.domain("group." + app), ["group." + app])
        }
    }

    /// Writes a `backupInput` example as a real backup folder (BackupBuilder: Manifest.db, MBFile
    /// blobs carrying each item's protection class, XX/FILEID bytes), the items in the domain of
    /// the example's role beside the app's own domain, and scans the backup as the input, as
    /// `scan BACKUP --app ID [--app-group ID]` does. Folders record no class (0), as in a real
    /// backup; files without one the default, completeUntilFirstUserAuthentication (3).
    static func auditBackupInput(_ example: RuleExample, at dir: String, policy: Policy) throws -> AuditResult {
        let (domain, groups) = backupDomain(example.role)
        var b = BackupBuilder()
        b.installedApplications = [app]
        for d in Set([ContainerRole.app.domain(app), domain]) {
            b.items.append(
                BackupBuilder.Item(
                    domain: d, relativePath: "", flags: BackupBuilder.Flags.directory.rawValue, mode: 0o40755))
        }
        for item in example.items {
            switch item.kind {
            case .directory: b.directory(domain, item.path)
            case .file(let size): b.file(domain, item.path, size: size)
            case .bytes(let bytes): b.file(domain, item.path, bytes)
            case .symlink(let target): b.symlink(domain, item.path, to: target)
            default: XCTFail("a backup holds files, folders and symlinks: \(item.path)")
            }
        }
        let byPath = Dictionary(example.items.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        for i in b.items.indices {
            let isFolder = b.items[i].flags == BackupBuilder.Flags.directory.rawValue
            guard b.items[i].domain == domain, let item = byPath[b.items[i].relativePath] else {
                b.items[i].protectionClass = isFolder ? 0 : 3
                continue
            }
            b.items[i].protectionClass = item.protection?.number ?? (isFolder ? 0 : 3)
            // A backup records the item's native attributes, whatever carrier the example names.
            if !item.marks.isEmpty {
                b.items[i].extendedAttributes = Dictionary(
                    item.marks.map { ($0.attribute.macName, $0.value) }, uniquingKeysWith: { a, _ in a })
            }
        }
        try b.write(to: dir + "/backup")
        return try Audit.run(
            dir + "/backup", selection: ContainerSelection(app: app, appGroups: groups), policy: policy)
    }
}

extension ExampleObservations {
    /// Writes the example's container and, beside it, the app's Info.plist setting `keys` to
    /// true, and scans the container with `--app-info`.
    static func auditWithAppInfo(_ example: RuleExample, keys: [String], at dir: String, policy: Policy) throws
        -> AuditResult
    {
        let root = dir + "/container"
        try Fixture.materialize(example, at: root)
        var plist: [String: Any] = ["CFBundleIdentifier": app]
        for k in keys { plist[k] = true }
        try BackupBuilder.plist(plist, to: dir + "/Info.plist")
        var selection = ContainerSelection(role: example.role)
        selection.appInfo = dir + "/Info.plist"
        return try Audit.run(root, selection: selection, policy: policy)
    }
}
