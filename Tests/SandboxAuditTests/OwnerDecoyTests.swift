import Foundation
import XCTest

@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// Owners only on names an SDK owns (issue 46): generic names an app gives its own files get no
/// owner, and a name an app may choose is an SDK's only beside a path only that SDK writes.
final class OwnerDecoyTests: XCTestCase {
    /// Names apps give their own files and folders. Each was tried against the catalogue: before,
    /// `Documents/app_log.txt` was Branch's, `Documents/db.sqlite3` SQLite.swift's, `tmp/models`
    /// and `tmp/instrument` the Facebook SDK's, `Library/Caches/al` AppLovin's, `Library/Cloud`
    /// Cordova's and `*/segment/…` Segment's.
    static let decoys = """
        Documents/app_log.txt Documents/log.txt Documents/logs/app.log Documents/debug.log Documents/db.sqlite3
        Documents/db.sqlite Documents/database.sqlite Documents/app.db Documents/data.db Documents/cache.db
        Documents/data.json Documents/config.json Documents/settings.json Documents/state.json \
        Documents/images/photo.jpg
        Documents/Images/1.png Documents/downloads/file.zip Documents/Downloads/book.epub Documents/models/model.mlmodel
        Documents/Models/weights.bin Documents/cache/blob Documents/Cache/blob Documents/tmp/x Documents/segment/data
        Documents/storage/kv.json Documents/backup/a.zip Documents/export/out.csv Documents/attachments/a.pdf
        Documents/media/v.mp4 Documents/audio/a.m4a Documents/thumbnails/t.jpg Documents/queue/1.json \
        Documents/events/1.json
        Documents/analytics/x.json Documents/Cloud/x Library/Application\\ Support/db.sqlite3
        Library/Application\\ Support/app.sqlite Library/Application\\ Support/models/m.bin Library/Application\\ \
        Support/logs/a.log
        Library/Application\\ Support/data.json Library/Application\\ Support/images/a.png Library/Application\\ \
        Support/downloads/d.bin
        Library/Application\\ Support/cache.db Library/Application\\ Support/store/x Library/Application\\ \
        Support/Database/x.sqlite
        Library/Application\\ Support/segment/x Library/Application\\ Support/queue.plist Library/Application\\ \
        Support/events.sqlite
        Library/Cloud/x Library/Caches/al/x Library/Caches/images/x.jpg Library/Caches/models/x \
        Library/Caches/logs/x.log
        Library/Caches/downloads/x Library/Caches/data.json Library/Caches/cache.db tmp/models/x tmp/instrument/x \
        tmp/al/x
        tmp/downloads/x tmp/images/x tmp/upload/x tmp/logs/x.log tmp/cache.db Library/logs/a.log Library/Logs/a.log
        Library/data.json Library/db.sqlite3
        """.replacingOccurrences(of: "\\ ", with: "\u{0}").split(whereSeparator: \.isWhitespace).map {
            $0.replacingOccurrences(of: "\u{0}", with: " ")
        }

    func testGenericAppNamesHaveNoOwner() throws {
        XCTAssertGreaterThanOrEqual(Self.decoys.count, 50)
        let dir = try TempDir("decoys")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        for name in Self.decoys { try Fixture.file(root + "/" + name, size: 10) }
        let inventory = try CLI.inventory(root)
        XCTAssertEqual(inventory.result.status, 0, inventory.result.stderr)
        let owned = inventory.entries.filter { ($0.value["owner"] as? String) != nil }.map {
            "\($0.key) → \($0.value["owner"]!)"
        }.sorted()
        XCTAssertEqual(owned, [], "generic names attributed to an SDK")
    }

    /// The same names beside the SDK's own files are the SDK's: Branch's log beside its folder,
    /// the Facebook SDK's tmp folders beside its Library files, Cordova's synced folder beside
    /// its NoCloud one.
    func testAChosenNameIsTheSDKsBesideItsOwnFiles() throws {
        let dir = try TempDir("confirmed")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        for name in [
            "Documents/app_log.txt", "Library/Application Support/io.branch/BNCPreferences", "tmp/models/MTML.weights",
            "Library/com-facebook-sdk-PersistedAnonymousID.json", "Library/Cloud/notes.json",
            "Library/NoCloud/data.json",
        ] {
            try Fixture.file(root + "/" + name, size: 10)
        }
        let entries = try CLI.inventory(root).entries
        XCTAssertEqual(entries["Documents/app_log.txt"]?["owner"] as? String, "Branch")
        XCTAssertEqual(entries["tmp/models/MTML.weights"]?["owner"] as? String, "Facebook SDK")
        XCTAssertEqual(entries["Library/Cloud/notes.json"]?["owner"] as? String, "Cordova")
    }

    /// Bytes iOS writes on the app's behalf are the frameworks': cookies, HTTP storages, WebKit
    /// data, saved state, snapshots, each with advice naming the API, citing Apple's page; a
    /// finding about them is never an error by default (a 60 MB WebKit store was one).
    func testSystemWrittenBytesAreTheFrameworksAndNeverFailABuild() throws {
        let dir = try TempDir("systemwritten")
        let root = dir.sub("app")
        try Fixture.container(at: root)
        let files = [
            "Library/Cookies/Cookies.binarycookies": "CFNetwork",
            "Library/HTTPStorages/com.example.app/httpstorages.sqlite": "CFNetwork",
            "Library/WebKit/WebsiteData/IndexedDB/v1/db.sqlite3": "WebKit",
            "Library/Saved Application State/com.example.app.savedState/data.data": "UIKit",
            "Library/SplashBoard/Snapshots/sceneID/1.ktx": "UIKit",
            "Library/SyncedPreferences/com.example.app.plist": "Foundation",
        ]
        for f in files.keys { try Fixture.file(root + "/" + f, size: 100) }
        try Fixture.file(root + "/Library/WebKit/WebsiteData/LocalStorage/big.localstorage", size: 60_000_000)
        let entries = try CLI.inventory(root).entries
        for (f, owner) in files { XCTAssertEqual(entries[f]?["owner"] as? String, owner, f) }
        let (json, r) = try CLI.scanJSON([root])
        XCTAssertEqual(r.status, 0, "a framework's bytes fail no build by default: \(r.stdout)")
        let big = (json["findings"] as! [[String: Any]]).first {
            ($0["path"] as? String)?.hasSuffix("big.localstorage") == true
        }
        XCTAssertEqual(big?["severity"] as? String, "warning")
        let text = try CLI.run(["scan", root]).stdout
        XCTAssertTrue(text.contains("WKWebsiteDataStore"), text)
        let cookies = try XCTUnwrap(
            OwnerMatcher().attribution(of: ContainerPath("Library/Cookies/Cookies.binarycookies"))?.entry)
        XCTAssertEqual(cookies.kind, OwnerEntry.Kind.framework)
        XCTAssertEqual(cookies.source.url, "https://developer.apple.com/documentation/foundation/httpcookiestorage")
        XCTAssertTrue(cookies.advice.contains("URLSessionConfiguration"))
        // The policy's own severity still holds.
        try Fixture.bytes(dir.sub("policy.yml"), Array("rules:\n  oversized-backed-up-file: error\n".utf8))
        XCTAssertEqual(try CLI.run(["scan", root, "--config", dir.sub("policy.yml")]).status, 1)
    }
}
