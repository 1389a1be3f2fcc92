import Foundation
import SandboxAuditSources
import XCTest

/// Each Swift construct the index resolves, in a file of its own, and the line it names.
final class SwiftSourceTests: XCTestCase {
    func testFileManagerURLsAndTheirFirstElement() throws {
        let index = try indexOne(
            """
            import Foundation
            let a = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
                .appendingPathComponent("A.json")
            let b = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first!
                .appendingPathComponent("B.db")
            let c = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first?
                .appendingPathComponent("C", isDirectory: true)
            let d = try FileManager.default.url(
                for: .libraryDirectory, in: .userDomainMask, appropriateFor: nil, create: true
            ).appendingPathComponent("D.plist")
            let e = FileManager.default.urls(for: .downloadsDirectory, in: .userDomainMask)
                .first!.appendingPathComponent("E")
            """)
        XCTAssertEqual(index.best("Documents/A.json"), "App.swift:3", index.patterns)
        XCTAssertEqual(index.best("Library/Caches/B.db"), "App.swift:5")
        XCTAssertEqual(index.best("Library/Application Support/C", isDirectory: true), "App.swift:7")
        XCTAssertNil(index.best("Library/Application Support/C"), "built as a folder: a file there is not it")
        XCTAssertEqual(index.best("Library/D.plist"), "App.swift:10")
        XCTAssertEqual(index.best("Downloads/E"), "App.swift:12")
        XCTAssertEqual(index.filesIndexed, 1)
        XCTAssertEqual(index.candidates(for: "Documents/A.json", base: .home, isDirectory: false).first?.column, 6)
    }

    func testURLStaticFoldersAndTheirJoins() throws {
        let index = try indexOne(
            """
            let a = URL.documentsDirectory.appending(path: "Notes/today.md")
            let b = URL.cachesDirectory.appending(component: "thumbs")
            let c = URL.applicationSupportDirectory.appending(components: "db", "main.sqlite")
            let d = URL.libraryDirectory.appendingPathComponent("x").appendingPathExtension("json")
            let e = URL.temporaryDirectory.appending(path: "upload.tmp")
            let f = URL.homeDirectory.appending(path: "Library/Sounds/ding.caf")
            let g = FileManager.default.temporaryDirectory.appendingPathComponent("g.bin")
            """)
        XCTAssertEqual(index.best("Documents/Notes/today.md"), "App.swift:1")
        XCTAssertEqual(index.best("Documents/Notes", isDirectory: true), "App.swift:1", "a folder on the way")
        XCTAssertEqual(index.best("Library/Caches/thumbs", isDirectory: true), "App.swift:2")
        XCTAssertEqual(index.best("Library/Application Support/db/main.sqlite"), "App.swift:3")
        XCTAssertEqual(index.best("Library/x.json"), "App.swift:4")
        XCTAssertEqual(index.best("tmp/upload.tmp"), "App.swift:5")
        XCTAssertEqual(index.best("Library/Sounds/ding.caf"), "App.swift:6")
        XCTAssertEqual(index.best("tmp/g.bin"), "App.swift:7")
    }

    func testFoundationFunctionsAndStringPaths() throws {
        let index = try indexOne(
            """
            let a = NSTemporaryDirectory() + "export.zip"
            let b = NSHomeDirectory() + "/Documents/b.txt"
            let c = "\\(NSHomeDirectory())/Library/Caches/c.bin"
            let docs = NSSearchPathForDirectoriesInDomains(.documentDirectory, .userDomainMask, true)[0]
            let d = (docs as NSString).appendingPathComponent("d.db")
            let e = NSSearchPathForDirectoriesInDomains(.cachesDirectory, .userDomainMask, true).first! + "/e.log"
            let f = URL(fileURLWithPath: "f.json", relativeTo: URL.documentsDirectory)
            let g = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("g")
            """)
        XCTAssertEqual(index.best("tmp/export.zip"), "App.swift:1", index.patterns)
        XCTAssertEqual(index.best("Documents/b.txt"), "App.swift:2")
        XCTAssertEqual(index.best("Library/Caches/c.bin"), "App.swift:3")
        XCTAssertEqual(index.best("Documents/d.db"), "App.swift:5")
        XCTAssertEqual(index.best("Library/Caches/e.log"), "App.swift:6")
        XCTAssertEqual(index.best("Documents/f.json"), "App.swift:7")
        XCTAssertEqual(index.best("tmp/g"), "App.swift:8")
    }

    func testAppGroupContainerWithAConstantFromAnotherFile() throws {
        let tree = try SourceTreeFixture([
            "Shared/AppGroup.swift": """
            enum AppGroup {
                static let id = "group.com.example.app"
            }
            """,
            "Shared/Store.swift": """
            import Foundation
            struct Store {
                let root = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: AppGroup.id)!
                var database: URL { root.appendingPathComponent("Chat.sqlite") }
                let literal = FileManager.default.containerURL(
                    forSecurityApplicationGroupIdentifier: "group.other")?.appending(path: "Other/x.db")
            }
            """,
        ])
        let index = try tree.index()
        XCTAssertEqual(
            index.best("Chat.sqlite", .appGroup("group.com.example.app")), "Shared/Store.swift:4", index.patterns)
        XCTAssertEqual(index.best("Chat.sqlite-wal", .appGroup("group.com.example.app")), "Shared/Store.swift:4")
        XCTAssertNil(index.best("Chat.sqlite"), "not in the app's own container")
        XCTAssertEqual(index.best("Other/x.db", .appGroup("group.other")), "Shared/Store.swift:6")
        XCTAssertEqual(index.lines("", .appGroup("group.other"), isDirectory: true), [])
    }

    func testNamesAcrossFilesAndTypes() throws {
        let tree = try SourceTreeFixture([
            "Constants.swift": """
            enum Constants {
                static let cacheFolder = "VideoCache"
                static let indexName = "index" + ".json"
            }
            let sharedFolderName = "Shared"
            """,
            "Paths.swift": """
            import Foundation
            struct Paths {
                static let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask)[0]
                static var videos: URL { documents.appendingPathComponent(Constants.cacheFolder) }
                static func video(_ id: String) -> URL {
                    let folder = Self.videos
                    return folder.appendingPathComponent("\\(id).mp4")
                }
                let shared = Paths.documents.appendingPathComponent(sharedFolderName)
            }
            """,
            "Use.swift": """
            let index = Paths.videos.appendingPathComponent(Constants.indexName)
            """,
        ])
        let index = try tree.index()
        XCTAssertEqual(index.best("Documents/VideoCache", isDirectory: true), "Paths.swift:4", index.patterns)
        XCTAssertEqual(index.best("Documents/VideoCache/index.json"), "Use.swift:1")
        XCTAssertEqual(index.best("Documents/VideoCache/trailer.mp4"), "Paths.swift:7")
        XCTAssertEqual(index.best("Documents/Shared", isDirectory: true), "Paths.swift:9")
    }

    func testLocalsOptionalBindingsAndClosures() throws {
        let index = try indexOne(
            """
            import Foundation
            func save() throws {
                guard let docs = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first
                else { return }
                let drafts = docs.appendingPathComponent("Drafts")
                var name = "draft.md"
                try Data().write(to: drafts.appendingPathComponent(name))
                DispatchQueue.main.async {
                    let inner = drafts.appendingPathComponent("inner.txt")
                    _ = inner
                }
                if let lib = FileManager.default.urls(for: .libraryDirectory, in: .userDomainMask).first {
                    _ = lib.appendingPathComponent("state.plist")
                }
            }
            let lazyValue: URL = {
                let base = URL.cachesDirectory
                return base.appendingPathComponent("lazy.bin")
            }()
            let derived = lazyValue.deletingLastPathComponent().appendingPathComponent("sibling.bin")
            """)
        XCTAssertEqual(index.best("Documents/Drafts/draft.md"), "App.swift:7", index.patterns)
        XCTAssertEqual(index.best("Documents/Drafts/inner.txt"), "App.swift:9")
        XCTAssertEqual(index.best("Library/state.plist"), "App.swift:13")
        XCTAssertEqual(index.best("Library/Caches/lazy.bin"), "App.swift:18")
        XCTAssertEqual(index.best("Library/Caches/sibling.bin"), "App.swift:20")
    }

    func testInterpolationsAndParametersAreWildcards() throws {
        let index = try indexOne(
            """
            import Foundation
            struct Library {
                let root = URL.documentsDirectory.appendingPathComponent("Books")
                func book(_ id: String) -> URL { root.appendingPathComponent("\\(id).zim") }
                func cover(id: Int) -> URL { root.appendingPathComponent("covers/cover-\\(id)-large.jpg") }
                func any(_ name: String) -> URL { root.appendingPathComponent(name) }
            }
            """)
        // `*.zim` first (more literal text), then `*`, named where "Books" is: the line that adds
        // the last literal component.
        XCTAssertEqual(index.lines("Documents/Books/wikipedia.zim"), ["App.swift:4", "App.swift:3"], index.patterns)
        XCTAssertEqual(index.best("Documents/Books/covers/cover-12-large.jpg"), "App.swift:5")
        XCTAssertEqual(index.best("Documents/Books/notes.txt"), "App.swift:3")
        XCTAssertTrue(index.paths.contains { $0.pattern == "Documents/Books/*.zim" }, index.patterns)
    }

    func testConditionalCompilationTakesTheIOSBranch() throws {
        let index = try indexOne(
            """
            import Foundation
            #if os(macOS)
            let a = URL.documentsDirectory.appendingPathComponent("mac.db")
            #elseif os(iOS)
            let a = URL.documentsDirectory.appendingPathComponent("ios.db")
            #else
            let a = URL.documentsDirectory.appendingPathComponent("other.db")
            #endif
            #if canImport(UIKit) && !os(watchOS)
            let b = URL.cachesDirectory.appendingPathComponent("uikit.db")
            #endif
            #if targetEnvironment(simulator)
            let c = URL.cachesDirectory.appendingPathComponent("simulator.db")
            #else
            let c = URL.cachesDirectory.appendingPathComponent("device.db")
            #endif
            struct S {
                #if DEBUG
                static let name = "debug.log"
                #endif
                static let log = URL.cachesDirectory.appendingPathComponent(name)
            }
            """)
        XCTAssertNil(index.best("Documents/mac.db"))
        XCTAssertEqual(index.best("Documents/ios.db"), "App.swift:5")
        XCTAssertNil(index.best("Documents/other.db"))
        XCTAssertEqual(index.best("Library/Caches/uikit.db"), "App.swift:10")
        XCTAssertEqual(index.best("Library/Caches/simulator.db"), "App.swift:13", "undecidable: both")
        XCTAssertEqual(index.best("Library/Caches/device.db"), "App.swift:15")
        XCTAssertEqual(index.best("Library/Caches/debug.log"), "App.swift:21")
    }

    func testSeveralLinesBuildingOnePathAreAllCandidates() throws {
        let tree = try SourceTreeFixture([
            "A.swift": "let a = URL.documentsDirectory.appendingPathComponent(\"same.json\")\n",
            "B.swift": "\n\nlet b = URL.documentsDirectory.appending(path: \"same.json\")\n",
        ])
        let index = try tree.index()
        XCTAssertEqual(index.lines("Documents/same.json"), ["A.swift:1", "B.swift:3"])
    }
}
