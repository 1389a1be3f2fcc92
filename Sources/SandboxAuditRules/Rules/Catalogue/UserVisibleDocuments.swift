import SandboxAuditCore
import SandboxAuditSystem

/// `user-visible-documents`: the app's own files in a `Documents` folder its Info.plist shows
/// in the Files app.
struct UserVisibleDocuments: Rule {
    init() {}

    /// Names of files that are the app's, not the user's (compared case-insensitively), besides
    /// databases recognised by their header and their companions.
    static let fileSuffixes = [".sqlite", ".sqlite3", ".db", ".realm", ".plist", ".log", ".lock"]
    static let fileSuffixBytes = fileSuffixes.map { Array($0.utf8) }

    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the

    /// audit reports the rule "not checked" there.

    let needs: [RuleNeed] = [
        .requires(.appInfo), .reads(.fileHeaders, without: "tells a database from another file by its name alone"),
    ]

    let description = RuleDescription(
        id: "user-visible-documents",
        name: "App data in a user-visible Documents",
        summary:
            "A database (recognised by its header or its -wal/-shm/-journal), its companions, or a *.sqlite, *.db, "
            + "*.realm, *.plist, *.log or *.lock file in Documents, when the app's Info.plist sets "
            + "UIFileSharingEnabled or LSSupportsOpeningDocumentsInPlace (needs the app's Info.plist: "
            + "--app-info, or the bundle on a Simulator device).",
        rationale: """
            UIFileSharingEnabled and LSSupportsOpeningDocumentsInPlace make the app's Documents folder \
            visible in the Files app and to the computer (Apple, Information Property List: \
            https://developer.apple.com/documentation/bundleresources/information-property-list). What is \
            there is then the user's to see, rename, move and delete: a database, its -wal file or a \
            preferences plist in it can be deleted or replaced under the running app, and the user sees \
            files that mean nothing to them. Documents is for what the user created; the app's own data \
            belongs in Library/Application Support (\(References.fileSystemBasics)). Hidden files (a name \
            starting with a dot) are not shown and not reported. The finding names the key that made \
            Documents visible.
            """,
        fix:
            "Move the app's own files to Library/Application Support (migrating them on first launch); keep "
            + "Documents for what the user creates.",
        defaultSeverity: .warning,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A SQLite store with file sharing on",
                [
                    .sqlite("Documents/app.data"), .file("Documents/app.data-wal", size: 4096),
                    .file("Documents/Report.pdf"),
                ],
                expect: ["Documents/app.data", "Documents/app.data-wal"], appInfoKeys: ["UIFileSharingEnabled"]),
            RuleExample(
                "A log and a plist with open-in-place on",
                [.file("Documents/Logs/today.log"), .file("Documents/settings.plist")],
                expect: ["Documents/Logs/today.log", "Documents/settings.plist"],
                appInfoKeys: ["LSSupportsOpeningDocumentsInPlace"]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "The same store, Documents not shown",
                [.sqlite("Documents/app.data"), .file("Documents/settings.plist")], appInfoKeys: []),
            RuleExample(
                "User documents and a hidden file", [.file("Documents/Report.pdf"), .file("Documents/.index.db")],
                appInfoKeys: ["UIFileSharingEnabled"]),
            RuleExample(
                "A store in Application Support", [.sqlite("Library/Application Support/app.sqlite")],
                appInfoKeys: ["UIFileSharingEnabled"]),
        ])

    var roles: Set<ContainerRole> { [.app] }

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        guard let info = context.appInfo, !info.documentsVisibleKeys.isEmpty else { return [] }
        let keys = info.documentsVisibleKeys.joined(separator: " and ")
        return inventory.entries.compactMap { e in
            guard e.zone == .documents, e.entry.kind == .file, e.path.name.first != UInt8(ascii: "."),
                let what = kind(e, context)
            else { return nil }
            return finding(
                e.path,
                "\(what) in Documents, which the Files app shows to the user (Info.plist \(keys)): the user can see, "
                    + "move or delete it",
                size: e.entry.size)
        }
    }

    /// What makes `e` the app's own file, or nil when it may be the user's.
    func kind(_ e: InventoryEntry, _ context: RuleContext) -> String? {
        if let (_, isRealm) = SplitStoreBackup.mainPath(of: e) {
            return "a \(isRealm ? "Realm" : "SQLite") database's companion file"
        }
        if StoreSignature.mayBeDatabase(size: e.entry.size),
            let header = e.entry.header
                ?? context.content?.read(
                    e.path, limit: StoreSignature.headerLength, for: id, what: "the first bytes",
                    consequence: "\(id) not checked"),
            let kind = StoreSignature.databaseKind(header)
        {
            return "a \(kind) database"
        }
        let name = e.path.name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return Self.fileSuffixBytes.firstIndex { name.count > $0.count && name.ends(with: $0) }.map {
            "a *\(Self.fileSuffixes[$0]) file"
        }
    }
}
