import Foundation
import SandboxAuditSources
import XCTest

/// How `candidates` ranks and refuses: exact paths, patterns, the nearest folder the code builds,
/// and nothing for what frameworks write in the standard folders.
final class SourceMatchingTests: XCTestCase {
    static let app = """
        import Foundation
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
        let docs = URL.documentsDirectory
        let group = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.x")!
        let images = caches.appendingPathComponent("ImageCache")
        func image(_ key: String) -> URL { images.appendingPathComponent(key + ".jpg") }
        let exact = images.appendingPathComponent("placeholder.jpg")
        let projects = docs.appendingPathComponent("Projects")
        func project(_ name: String) -> URL { projects.appendingPathComponent(name, isDirectory: true) }
        let anything = caches.appendingPathComponent(UUID().uuidString)
        let tmpFile = URL.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        let groupFile = group.appendingPathComponent(UUID().uuidString)
        let groupCaches = group.appending(path: "Library/Caches")
        """

    func testTiersExactThenPatternThenNearestFolder() throws {
        let index = try indexOne(Self.app)
        XCTAssertEqual(
            index.lines("Library/Caches/ImageCache/placeholder.jpg"), ["App.swift:7", "App.swift:6", "App.swift:5"])
        XCTAssertEqual(index.lines("Library/Caches/ImageCache/avatar-42.jpg"), ["App.swift:6", "App.swift:5"])
        XCTAssertEqual(index.lines("Library/Caches/ImageCache/avatar-42.png"), ["App.swift:5"], "the folder only")
        XCTAssertEqual(index.lines("Library/Caches/ImageCache/sub/deep/x.bin"), ["App.swift:5"])
        XCTAssertEqual(index.lines("Library/Caches/ImageCache", isDirectory: true), ["App.swift:5"])
        XCTAssertEqual(index.lines("Documents/Projects/Garden", isDirectory: true), ["App.swift:8"])
        XCTAssertEqual(index.lines("Documents/Projects/Garden/plan.md"), ["App.swift:8"])
        XCTAssertEqual(index.lines("/Library/Caches/ImageCache/x.jpg/"), ["App.swift:6", "App.swift:5"], "slashes")
    }

    func testStandardFoldersAndFrameworkFilesHaveNoCandidate() throws {
        let index = try indexOne(Self.app)
        for path in [
            "Library/Caches/com.example.app/Cache.db", "Library/Caches/com.example.app", "Library/Caches",
            "Library/Cookies/Cookies.binarycookies", "Library/SplashBoard/Snapshots/main/a.ktx",
            "Library/Preferences/com.example.app.plist", "Documents", "Documents/Inbox/mail.eml", "tmp/a", "tmp",
            "SystemData/com.apple.SafariViewService/Library/Preferences/com.apple.SafariViewService.plist",
            ".com.apple.mobile_container_manager.metadata.plist", "Library/Caches/f3a1",
        ] {
            XCTAssertEqual(index.lines(path), [], path)
            XCTAssertEqual(index.lines(path, isDirectory: true), [], path)
        }
        for path in ["Library/Caches/Thumbs/a.jpg", "8C1D", "Library/Caches", ""] {
            XCTAssertEqual(index.lines(path, .appGroup("group.x")), [], path)
        }
        XCTAssertEqual(index.lines("Library/Caches/ImageCache/a.jpg", .appGroup("group.x")), [], "another container")
        XCTAssertTrue(index.paths.contains { $0.pattern == "Library/Caches/*" }, "built, but matches nothing")
    }

    func testTestsAndOtherPlatformsComeLast() throws {
        let line = "import Foundation\nlet db = URL.libraryDirectory.appendingPathComponent(\"store.db\")\n"
        let tree = try SourceTreeFixture([
            "App/Store.swift": line, "AppTests/StoreTests.swift": line, "Apps/watchOS/Store.swift": line,
            "Mac/Store.swift": line,
        ])
        let index = try tree.index()
        XCTAssertEqual(index.best("Library/store.db"), "App/Store.swift:2", index.patterns)
        XCTAssertEqual(index.lines("Library/store.db").count, 4)
    }

    func testWriteAheadLogsFollowTheirDatabase() throws {
        let index = try indexOne("let db = URL.applicationSupportDirectory.appendingPathComponent(\"search.sqlite\")\n")
        for suffix in ["", "-wal", "-shm", "-journal"] {
            XCTAssertEqual(index.best("Library/Application Support/search.sqlite" + suffix), "App.swift:1", suffix)
        }
        XCTAssertNil(index.best("Library/Application Support/search.sqlite-backup"))
    }

    /// A million entries are looked up in a scan: 100,000 lookups over a tree of 200 files' paths,
    /// most of them names the code does not build.
    func testOneHundredThousandLookups() throws {
        let tree = try SourceTreeFixture()
        for f in 0..<200 {
            try tree.write(
                "Module\(f % 10)/File\(f).swift",
                """
                import Foundation
                let folder\(f) = URL.documentsDirectory.appendingPathComponent("Folder\(f)")
                func item\(f)(_ id: String) -> URL { folder\(f).appendingPathComponent("item-\\(id).json") }
                let cache\(f) = URL.cachesDirectory.appending(path: "Cache\(f)/\\(UUID().uuidString).bin")
                """)
        }
        let index = try tree.index()
        XCTAssertEqual(index.filesIndexed, 200)
        var hits = 0
        let start = Date()
        for i in 0..<100_000 {
            let path: String
            switch i % 4 {
            case 0: path = "Documents/Folder\(i % 200)/item-\(i).json"
            case 1: path = "Library/Caches/Cache\(i % 200)/\(i).bin"
            case 2: path = "Library/Caches/com.example/fsCachedData/\(i)"
            default: path = "Documents/Other/\(i)/deep/file.txt"
            }
            hits += index.candidates(for: path, base: .home, isDirectory: false).isEmpty ? 0 : 1
        }
        print("100,000 lookups: \(String(format: "%.2f", Date().timeIntervalSince(start))) s")
        XCTAssertEqual(hits, 50_000)
    }
}
