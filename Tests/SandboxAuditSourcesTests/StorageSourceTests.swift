import Foundation
import SandboxAuditSources
import XCTest

/// The files storage APIs write where Apple documents them, named at the call.
final class StorageSourceTests: XCTestCase {
    func testCoreDataContainersNameTheirStores() throws {
        let index = try indexOne(
            """
            import CoreData
            final class Persistence {
                lazy var container: NSPersistentContainer = {
                    let container = NSPersistentContainer(name: "Model")
                    container.loadPersistentStores { _, _ in }
                    return container
                }()
                let cloud = NSPersistentCloudKitContainer(name: Names.cloud)
            }
            enum Names { static let cloud = "Cloud" }
            """)
        let support = "Library/Application Support/"
        XCTAssertEqual(index.best(support + "Model.sqlite"), "App.swift:4", index.patterns)
        XCTAssertEqual(index.best(support + "Model.sqlite-wal"), "App.swift:4")
        XCTAssertEqual(index.best(support + "Model.sqlite-shm"), "App.swift:4")
        XCTAssertEqual(index.best(support + "Cloud.sqlite"), "App.swift:8")
        XCTAssertNil(index.best(support + "Other.sqlite"))
    }

    func testCoreDataStoreDescriptionsAtAURL() throws {
        let index = try indexOne(
            """
            import CoreData
            let url = URL.applicationSupportDirectory.appendingPathComponent("Custom.sqlite")
            let description = NSPersistentStoreDescription(url: url)
            """)
        XCTAssertEqual(index.best("Library/Application Support/Custom.sqlite"), "App.swift:2")
        XCTAssertEqual(index.best("Library/Application Support/Custom.sqlite-wal"), "App.swift:2")
    }

    func testSwiftDataDefaultNamedAndURLConfigurations() throws {
        let tree = try SourceTreeFixture([
            "Default.swift": """
            import SwiftData
            let container = try ModelContainer(for: Item.self)
            """,
            "Named.swift": """
            import SwiftData
            let config = ModelConfiguration("Journal", schema: Schema([Entry.self]))
            let container = try ModelContainer(for: Entry.self, configurations: config)
            let memory = ModelConfiguration(isStoredInMemoryOnly: true)
            let shared = ModelConfiguration("Shared", groupContainer: .identifier("group.example"))
            """,
            "URL.swift": """
            import SwiftData
            let config = ModelConfiguration(url: URL.documentsDirectory.appending(path: "Notes.store"))
            """,
        ])
        let index = try tree.index()
        let support = "Library/Application Support/"
        XCTAssertEqual(index.best(support + "default.store"), "Default.swift:2", index.patterns)
        XCTAssertEqual(index.best(support + "default.store-shm"), "Default.swift:2")
        XCTAssertEqual(index.best(support + "Journal.store"), "Named.swift:2")
        XCTAssertEqual(index.best(support + "Shared.store", .appGroup("group.example")), "Named.swift:5")
        XCTAssertEqual(index.best("Documents/Notes.store"), "URL.swift:2")
        XCTAssertEqual(index.best("Documents/Notes.store-wal"), "URL.swift:2")
        XCTAssertEqual(index.lines(support + "default.store").count, 1, "the memory-only one names no file")
    }

    func testUserDefaultsSuitesButNotTheStandardOne() throws {
        let index = try indexOne(
            """
            import Foundation
            let group = UserDefaults(suiteName: "group.com.example.app")
            let own = UserDefaults(suiteName: "com.example.app.feedcache")
            let standard = UserDefaults.standard
            standard.set(1, forKey: "launches")
            """)
        XCTAssertEqual(
            index.best("Library/Preferences/group.com.example.app.plist", .appGroup("group.com.example.app")),
            "App.swift:2", index.patterns)
        XCTAssertNil(index.best("Library/Preferences/group.com.example.app.plist"))
        XCTAssertEqual(index.best("Library/Preferences/com.example.app.feedcache.plist"), "App.swift:3")
        XCTAssertNil(index.best("Library/Preferences/com.example.app.plist"), "UserDefaults.standard: the system's")
    }
}
