import SandboxAuditCore
import SandboxAuditSystem

/// `misplaced-at-root`: an item the app wrote at the data root outside Documents, Library, tmp
/// and GeoJSON.
struct MisplacedAtRoot: Rule {
    init() {}
    /// A device backup holds none of what this rule is about (`Observation.itemsNotBackedUp`).
    let needs: [RuleNeed] = [.requires(.itemsNotBackedUp)]
    let description = RuleDescription(
        id: "misplaced-at-root",
        name: "Misplaced at the data root",
        summary:
            "An item at the data root outside Documents, Library and tmp: backup does not carry it, so a restore "
            + "loses it, and an app update may not keep it.",
        rationale: """
            iOS's backup carries only Documents, Library and GeoJSON of an app's data container: an item \
            beside them is never backed up, so a restore onto a new device loses it. An update carries over \
            Documents and Library only; "files in other directories may be moved, but do not rely on them" \
            (Apple, App Programming Guide for iOS, Files Saved During App Updates: \
            https://developer.apple.com/library/archive/documentation/iPhone/Conceptual/iPhoneOSProgrammingGuide/\
            StrategiesforImplementingYourApp/StrategiesforImplementingYourApp.html; \
            where each folder is backed up: \
            https://developer.apple.com/library/archive/documentation/FileManagement/Conceptual/\
            FileSystemProgrammingGuide/FileSystemOverview/FileSystemOverview.html). \
            Items the app did not write are left out: Finder's .DS_Store, and the StoreKit receipt folder \
            the system writes when an iOS app runs on a Mac. Not checked in App Group containers, which are \
            backed up from their root.
            """,
        fix: "Move it under Documents/ (user data) or Library/Application Support/ (app data).",
        defaultSeverity: .error,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A downloads folder beside Documents",
                [.directory("Downloads"), .file("Downloads/episode.mp3", size: 2048)], expect: ["Downloads"]),
            RuleExample("A database written at the root", [.file("store.sqlite")], expect: ["store.sqlite"]),
        ],
        nonTriggeringExamples: [
            RuleExample("User data in Documents", [.file("Documents/notes.txt")]),
            RuleExample(
                "The Simulator's system items",
                [
                    .file(".com.apple.mobile_container_manager.metadata.plist"), .directory("SystemData"),
                    .file("SystemData/state"),
                ]),
            RuleExample("A routing app's GeoJSON coverage file", [.file("GeoJSON")]),
            RuleExample(
                "Finder's .DS_Store and the system's StoreKit receipt folder",
                [.file(".DS_Store"), .directory("StoreKit"), .file("StoreKit/receipt")]),
            RuleExample(
                "A shared store at an App Group container's root",
                [.file("ChatStorage.sqlite"), .directory("Library")], role: .group),
        ])

    var roles: Set<ContainerRole> { [.app, .extension] }

    /// Root items the app did not write: Finder's folder settings, and the receipt folder the
    /// system writes when an iOS app runs on a Mac.
    static let notTheApps: [[UInt8]] = [".DS_Store", "StoreKit", "GeoJSON"].map { Array($0.utf8) }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let entries = inventory.entries
        let top = entries.indices.filter { i in entries.zone(i) == .root && entries.folder(i) == 0 }.map { entries[$0] }
            .filter { e in
                e.zone == .root && e.path.depth == 1 && !MisplacedAtRoot.notTheApps.contains { e.path.bytes == $0 }
            }
        guard !top.isEmpty else { return [] }
        let sizes = inventory.topLevelSizes()
        return top.map { e in
            let size = sizes[e.path] ?? 0
            let what = e.entry.kind == .directory ? "folder" : e.entry.kind.rawValue
            return finding(
                e.path,
                "\(what) at the data root, outside Documents, Library and tmp: not backed up, so a restore loses it, "
                    + "and an app update may not keep it (\(ByteSize.format(size)))",
                size: size)
        }
    }
}
