import Foundation
import SandboxAuditSystem

/// A device's `Containers` folder inside an archive (a zipped file-system extraction, a copy of
/// a Simulator device): an archive is read as one container, so the run names what it holds
/// and how to read it, rather than finding no container.
struct DeviceContainersInArchive: CustomStringConvertible {
    /// Where the first `Containers` folder is, and how many containers of each kind it holds.
    let folder: String
    let data: Int, groups: Int, plugins: Int

    init?(_ members: [ArchiveReader.Member]) {
        let kinds: [(inner: [[UInt8]], index: Int)] = [
            (["Data", "Application"].map { Array($0.utf8) }, 0),
            (["Shared", "AppGroup"].map { Array($0.utf8) }, 1),
            (["Data", "PluginKitPlugin"].map { Array($0.utf8) }, 2),
        ]
        let containers = Array("Containers".utf8)
        var found: [Set<[UInt8]>] = [[], [], []]
        var folder: [UInt8]?
        for m in members {
            let parts = m.path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
            guard parts.count >= 4 else { continue }
            for k in 0..<(parts.count - 3) where parts[k].elementsEqual(containers) {
                guard
                    let kind = kinds.first(where: {
                        parts[k + 1].elementsEqual($0.inner[0]) && parts[k + 2].elementsEqual($0.inner[1])
                    })
                else { continue }
                let top = Array(parts[0...k].joined(separator: [UInt8(ascii: "/")]))
                if folder == nil { folder = top }
                guard top == folder else { continue }
                found[kind.index].insert(Array(parts[k + 3]))
            }
        }
        guard let folder, found.contains(where: { !$0.isEmpty }) else { return nil }
        self.folder = ByteText.display(folder)
        (data, groups, plugins) = (found[0].count, found[1].count, found[2].count)
    }

    var description: String {
        func count(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
        return
            "holds a device's Containers folder (\(folder): \(count(data, "app data container")), "
            + "\(count(groups, "App Group container")), "
            + "\(count(plugins, "extension container"))), and an archive is read as one container: unpack it, "
            + "keeping extended attributes, "
            + "and give the folder (sandbox-audit apps FOLDER lists its apps; scan FOLDER --app ID audits one)"
    }
}
