import Foundation
import SandboxAuditSources
import XCTest

/// sample-containers/MisbehavingApp, the code of the app whose data sample-containers/MisbehavingDevice
/// holds: for every file of its three containers, the line that names it, and none for what
/// the system and Apple's frameworks write there.
final class SampleAppSourcesTests: XCTestCase {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("sample-containers").path
    static let containers = samples + "/MisbehavingDevice/data/Containers"
    static let app = containers + "/Data/Application/2F6A9D14-7B3C-4E58-A1D2-6C0B8E4F3A97"
    static let plugin = containers + "/Data/PluginKitPlugin/7C3E5B21-9A4D-4F60-8E1B-2D3C4B5A6F70"
    static let group = containers + "/Shared/AppGroup/9B8A7C6D-5E4F-4A3B-2C1D-0E9F8A7B6C5D"
    static let metadata = ".com.apple.mobile_container_manager.metadata.plist"

    /// Every file of the app's data container and the best candidate (nil: no line of the app).
    static let appFiles: [String: String?] = [
        metadata: nil,
        "Documents/Drafts/Shopping list.md": "Drafts/DraftStore.swift:8",
        "Documents/Drafts/Untitled 3.md": "Drafts/DraftStore.swift:8",
        "Documents/Projects/Garden/plan.md": "Projects/ProjectStore.swift:6",
        "Documents/Recipes.pdf": "Projects/ProjectStore.swift:10",
        "Documents/VideoCache/index.json": "Feed/VideoStore.swift:8",
        "Documents/VideoCache/trailer-1080p.mp4": "Feed/VideoStore.swift:11",
        "Downloads/episode-012.mp3": "Podcasts/Downloads.swift:10",
        "Downloads/episode-013.mp3": "Podcasts/Downloads.swift:10",
        "Library/Application Support/Models/Segmenter.mlmodelc/analytics/coremldata.bin": "ML/Segmenter.swift:8",
        "Library/Application Support/Models/Segmenter.mlmodelc/coremldata.bin": "ML/Segmenter.swift:8",
        "Library/Application Support/Models/Segmenter.mlmodelc/metadata.json": "ML/Segmenter.swift:8",
        "Library/Application Support/Models/Segmenter.mlmodelc/model.mil": "ML/Segmenter.swift:8",
        "Library/Application Support/Models/Segmenter.mlmodelc/weights/weight.bin": "ML/Segmenter.swift:8",
        "Library/Application Support/OfflineMaps/tiles-z12.mbtiles": "Maps/OfflineMaps.swift:12",
        "Library/Application Support/Store.sqlite": "Persistence/Store.swift:10",
        "Library/Application Support/Store.sqlite-wal": "Persistence/Store.swift:10",
        "Library/Application Support/search-index.sqlite": "Search/SearchIndex.swift:5",
        "Library/Caches/ImageCache/avatar-42.jpg": "Legacy/LegacyImageCache.m:15",
        // URLCache's own database.
        "Library/Caches/com.example.misbehaving/Cache.db": nil,
        "Library/Caches/feed.sqlite": "Feed/FeedCache.swift:5",
        "Library/Preferences/com.example.misbehaving.feedcache.plist": "Feed/FeedCache.swift:6",
        // UserDefaults.standard: the system writes it.
        "Library/Preferences/com.example.misbehaving.plist": nil,
        "Library/SplashBoard/Snapshots/sceneID:com.example.misbehaving-default/downscaled/3F2A@2x.ktx": nil,
        "SystemData/com.apple.SafariViewService/Library/Preferences/com.apple.SafariViewService.plist": nil,
        "tmp/upload-queue/batch-0001.json": "Sync/UploadQueue.swift:12",
    ]

    static let pluginFiles: [String: String?] = [
        metadata: nil,
        "Library/Application Support/delivered.log": "NotificationService/Delivery.swift:7",
    ]

    static let groupFiles: [String: String?] = [
        metadata: nil,
        "ChatStorage.sqlite": "Shared/GroupStore.swift:8",
        "Library/Caches/Thumbnails/chat-0001.jpg": "Shared/GroupStore.swift:17",
        "Library/Preferences/group.com.example.misbehaving.plist": "Shared/GroupStore.swift:6",
    ]

    static let folders: [(String, SourceBase, String?)] = [
        ("Documents", .home, nil),
        ("Documents/VideoCache", .home, "Feed/VideoStore.swift:6"),
        ("Documents/Drafts", .home, "Drafts/DraftStore.swift:5"),
        ("Documents/Projects/Garden", .home, "Projects/ProjectStore.swift:6"),
        ("Library/Application Support/OfflineMaps", .home, "Maps/OfflineMaps.swift:6"),
        ("Library/Caches", .home, nil),
        ("Library/Caches/com.example.misbehaving", .home, nil),
        ("Library/SplashBoard", .home, nil),
        ("tmp/upload-queue", .home, "Sync/UploadQueue.swift:7"),
        // At the container's root (misplaced-at-root): the line that builds it names it.
        ("Downloads", .home, "Podcasts/Downloads.swift:6"),
        ("Library/Caches/Thumbnails", .appGroup("group.com.example.misbehaving"), "Shared/GroupStore.swift:11"),
    ]

    func testEveryFileOfTheSampleHasItsLine() throws {
        let index = try SourceIndex.build(root: Self.samples + "/MisbehavingApp")
        XCTAssertEqual(index.filesIndexed, 16)
        XCTAssertEqual(index.skipped, [])
        let group = SourceBase.appGroup("group.com.example.misbehaving")
        for (root, table, base) in [
            (Self.app, Self.appFiles, SourceBase.home), (Self.plugin, Self.pluginFiles, .home),
            (Self.group, Self.groupFiles, group),
        ] {
            XCTAssertEqual(Set(try Self.files(root)), Set(table.keys), "the table lists every file of \(root)")
            for (path, expected) in table {
                XCTAssertEqual(index.best(path, base), expected, path)
            }
        }
        for (path, base, expected) in Self.folders {
            XCTAssertEqual(index.best(path, base, isDirectory: true), expected, path)
        }
    }

    /// The files below `root`, without the AppleDouble sidecars that carry their attributes.
    static func files(_ root: String) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: root).filter { path in
            var isDirectory: ObjCBool = false
            return !(path as NSString).lastPathComponent.hasPrefix("._")
                && FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
    }
}
