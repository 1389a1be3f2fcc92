import SandboxAuditCore
import SandboxAuditSystem

/// `symlink-escapes-container`: a symlink that points outside the data root.
struct SymlinkEscapesContainer: Rule {
    init() {}
    let description = RuleDescription(
        id: "symlink-escapes-container",
        name: "Symlink escapes container",
        summary:
            "A symlink whose target resolves outside the data root (resolved by its text, without following other "
            + "links).",
        rationale: """
            Backup and restore carry the link, not what it points to, and the container moves on update and \
            differs per device (\(References.filesSavedDuringUpdates)): a link out of the container is broken \
            after restore or on another device. The scan never follows links; it resolves the target's text. \
            An absolute link into a container's own path (`/var/mobile/Containers/Data/Application/UUID/…`, \
            common in Library/WebKit and seen in real backups) is named as such: for app domains MobileBackup \
            restores relative links, and nothing in its decompiled sources says it restores absolute ones \
            (\(References.whatIOSBacksUp)); whether it does is open, and either way the link dangles on a new \
            device, where the container has another UUID. A note, not a verdict: the link counts as backed up.
            """,
        fix: "Store a path relative to the container and resolve it at run time (e.g. from FileManager.urls(for:in:)).",
        defaultSeverity: .note,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "An absolute link to the old container",
                [.symlink("Documents/current", to: "/var/mobile/Containers/Data/Application/0000/Documents/a")],
                expect: ["Documents/current"]),
            RuleExample(
                "A relative link climbing out", [.symlink("Library/link", to: "../../outside")],
                expect: ["Library/link"]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "A link within the container",
                [.file("Documents/a.txt"), .symlink("Library/latest", to: "../Documents/a.txt")])
        ])

    /// The folders of container paths on a device or Simulator (`…/Containers/Data/Application/UUID`).
    static let containerMarkers = [
        "/Containers/Data/Application/", "/Containers/Data/PluginKitPlugin/", "/Containers/Shared/AppGroup/",
    ]

    /// Where `target` of the link at `path` lands, relative to the data root, or nil when it
    /// leaves it. `dataRoot` is the absolute data root, for absolute targets.
    static func resolve(_ target: [UInt8], at path: ContainerPath, dataRoot: String) -> [ArraySlice<UInt8>]? {
        var parts: [ArraySlice<UInt8>]
        var rest = target[...]
        if target.first == UInt8(ascii: "/") {
            let root = Array(dataRoot.utf8)
            guard target.starts(with: root), target.count == root.count || target[root.count] == UInt8(ascii: "/")
            else { return nil }
            rest = target[root.count...]
            parts = []
        } else {
            parts = Array(path.parent?.components ?? [])
        }
        for c in rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if c.elementsEqual([0x2E]) { continue }
            if c.elementsEqual([0x2E, 0x2E]) {
                if parts.isEmpty { return nil }
                parts.removeLast()
            } else {
                parts.append(c)
            }
        }
        return parts
    }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.entries.findings(where: { c, i in c.kind(i) == .symlink }) { e in
            guard e.entry.kind == .symlink, let target = e.entry.symlinkTarget else { return nil }
            guard SymlinkEscapesContainer.resolve(target, at: e.path, dataRoot: inventory.container.dataRoot) == nil
            else { return nil }
            if target.first == UInt8(ascii: "/"),
                Self.containerMarkers.contains(where: { ByteText.display(target).contains($0) })
            {
                let backed = e.backedUp == true ? "backed up: " : ""
                return finding(
                    e.path,
                    "absolute symlink to \(ByteText.display(target)), a container path of the device it was made on: "
                        + "\(backed)whether iOS restores absolute links is open, and either way it dangles on a new "
                        + "device, where the container has another UUID"
                )
            }
            return finding(e.path, "symlink to \(ByteText.display(target)) points outside the container")
        }
    }
}
