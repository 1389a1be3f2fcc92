/// The storage APIs that write files the app names by a call rather than by a path: the file
/// each writes by default, as Apple documents it, recorded at the call.
extension Evaluation {
    /// `Library/Application Support`, where Core Data and SwiftData keep their stores.
    static let applicationSupport = ["Library", "Application Support"]

    /// A storage initializer called by name; true when it was one.
    mutating func storageCall(_ n: String, _ c: Call) -> Bool {
        switch n {
        case "NSPersistentContainer", "NSPersistentCloudKitContainer": persistentContainer(c)
        case "ModelContainer": modelContainer(c)
        case "ModelConfiguration": modelConfiguration(c)
        case "UserDefaults", "NSUserDefaults": suite(c)
        case "NSPersistentStoreDescription": database(at: c.value("url"))
        default: return false
        }
        return true
    }

    /// A storage call on a value; true when it was one.
    mutating func storageMemberCall(_ n: String, _ c: Call) -> Bool {
        switch (n, c.firstLabel) {
        // SwiftUI's `.modelContainer(for: Item.self)`: the default configuration.
        case ("modelContainer", "for"): defaultStore(.home, name: "default", c.site)
        case ("addPersistentStore", _): database(at: c.value("at"))
        default: return false
        }
        return true
    }

    /// Core Data's container named `X` keeps its store at `Library/Application Support/X.sqlite`
    /// (SQLite's `-wal` and `-shm` beside it): Apple, "defaultDirectoryURL()",
    /// https://developer.apple.com/documentation/coredata/nspersistentcontainer/defaultdirectoryurl(),
    /// and "init(name:)", https://developer.apple.com/documentation/coredata/nspersistentcontainer/init(name:).
    /// `NSPersistentCloudKitContainer` is a subclass, with the same default.
    private mutating func persistentContainer(_ c: Call) {
        guard let name = c.value("name")?.textPattern, PatternText.hasLiteral(name) else { return }
        sqliteFiles(PathValue(.home, Self.applicationSupport + [name + ".sqlite"]), c.site)
    }

    /// SwiftData's `ModelContainer(for:)` with no configuration makes the default one:
    /// `Library/Application Support/default.store`. Apple, "ModelContainer", configurations: "If you
    /// don't specify any at initialization, the framework creates an instance of ModelConfiguration
    /// for you", https://developer.apple.com/documentation/swiftdata/modelcontainer/configurations.
    /// An app with an App Group entitlement may see that store in the group's container instead
    /// (the default `groupContainer` is `.automatic`); the index records the app's own container.
    private mutating func modelContainer(_ c: Call) {
        guard c.expression("configurations") == nil else { return }
        defaultStore(.home, name: "default", c.site)
    }

    /// `ModelConfiguration(url:)` stores at that URL; `ModelConfiguration("Name")` at `Name.store`
    /// and `ModelConfiguration()` at `default.store`, in `Library/Application Support` (of the
    /// App Group `groupContainer: .identifier("group.x")` names), none in memory only:
    /// Apple, "ModelConfiguration", https://developer.apple.com/documentation/swiftdata/modelconfiguration.
    private mutating func modelConfiguration(_ c: Call) {
        if c.expression("url") != nil {
            database(at: c.value("url"))
            return
        }
        if case .string("true") = c.expression("isStoredInMemoryOnly") { return }
        var base = SourceBase.home
        if case .groupContainer(let id) = c.value("groupContainer") { base = .appGroup(id) }
        let name = c.value(nil)?.textPattern ?? "default"
        guard PatternText.hasLiteral(name) else { return }
        defaultStore(base, name: name, c.site)
    }

    private mutating func defaultStore(_ base: SourceBase, name: String, _ site: Site) {
        sqliteFiles(PathValue(base, Self.applicationSupport + [name + ".store"]), site)
    }

    /// A database at a URL the app built (`NSPersistentStoreDescription(url:)`,
    /// `addPersistentStore(…at:…)`): its `-wal` and `-shm` beside it, named where the URL was.
    private mutating func database(at url: Value?) {
        guard case .path(let p) = url, let site = p.site else { return }
        sqliteFiles(p, site)
    }

    /// A SQLite database and the write-ahead log and shared-memory files SQLite keeps beside it
    /// (SQLite, "Write-Ahead Logging", https://www.sqlite.org/wal.html).
    private mutating func sqliteFiles(_ p: PathValue, _ site: Site) {
        guard let last = p.components.last else { return }
        for suffix in ["", "-wal", "-shm"] {
            var file = p
            file.components[file.components.count - 1] = last + suffix
            file.site = site
            file.folder = false
            record(file)
        }
    }

    /// `UserDefaults(suiteName: X)` writes `Library/Preferences/X.plist`: in the App Group's
    /// container when `X` is an App Group's identifier (`group.` and the rest), else in the app's
    /// own. Apple, "init(suiteName:)",
    /// https://developer.apple.com/documentation/foundation/userdefaults/init(suitename:), and
    /// "Configuring App Groups", https://developer.apple.com/documentation/xcode/configuring-app-groups.
    /// `UserDefaults.standard` names no line: the system writes it.
    private mutating func suite(_ c: Call) {
        guard let id = c.value("suiteName")?.textPattern, PatternText.hasLiteral(id) else { return }
        let isGroup = id.hasPrefix("group.")
        guard !isGroup || !id.contains(wildcard) else { return }
        var file = PathValue(isGroup ? .appGroup(id) : .home, ["Library", "Preferences", id + ".plist"])
        file.site = c.site
        file.folder = false
        record(file)
    }
}
