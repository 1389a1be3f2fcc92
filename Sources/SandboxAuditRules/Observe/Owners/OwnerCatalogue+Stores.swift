import SandboxAuditCore
import SandboxAuditSystem

/// Image and response caches, offline stores and the stores of cross-platform runtimes, each by
/// the folder or file name its source builds.
extension OwnerCatalogue {
    static let caches: [OwnerEntry] = [
        OwnerEntry(
            "PINCache", [.path("Library/Caches/com.pinterest.PINDiskCache.*")],
            holds: "PINCache's disk cache, one folder per cache name (also PINRemoteImage and Texture's image cache)",
            exclusion: .notNeeded,
            source: ("pinterest/PINCache", "Source/PINDiskCache.m", "27, 125-128"),
            advice: "Not backed up (Caches); bound it with byteLimit and ageLimit",
            examples: ["Library/Caches/com.pinterest.PINDiskCache.PINRemoteImageManagerCache/abc"]),
        // A relative diskPath (iOS): under Caches, or under Caches/<bundle ID> (both matched).
        OwnerEntry(
            "AlamofireImage",
            [
                .path("Library/Caches/org.alamofire.imagedownloader"),
                .path("Library/Caches/*/org.alamofire.imagedownloader"),
            ],
            holds: "ImageDownloader's URLCache (150 MB on disk)", exclusion: .notNeeded,
            source: ("Alamofire/AlamofireImage", "Source/ImageDownloader.swift", "158-177"),
            advice: "Not backed up (Caches); pass a smaller URLCache to ImageDownloader to bound it",
            examples: [
                "Library/Caches/org.alamofire.imagedownloader/Cache.db",
                "Library/Caches/com.example.app/org.alamofire.imagedownloader/Cache.db-wal",
            ]),
        OwnerEntry(
            "AFNetworking", [.path("Library/Caches/com.alamofire.imagedownloader")],
            holds: "AFImageDownloader's URLCache (150 MB on disk)", exclusion: .notNeeded,
            source: ("AFNetworking/AFNetworking", "UIKit+AFNetworking/AFImageDownloader.m", "111-129"),
            advice: "Not backed up (Caches)",
            examples: [
                "Library/Caches/com.alamofire.imagedownloader/Cache.db",
                "Library/Caches/com.alamofire.imagedownloader/fsCachedData/1A2B",
            ]),
        OwnerEntry(
            "Haneke", [.path("Library/Caches/io.haneke")],
            holds: "HanekeSwift's disk caches, one folder per cache", exclusion: .notNeeded,
            source: ("Haneke/HanekeSwift", "Haneke/DiskCache.swift", "13-19"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/io.haneke/shared-images/original/abc"]),
        OwnerEntry(
            "YYWebImage", [.path("Library/Caches/com.ibireme.yykit")],
            holds: "YYImageCache's shared disk cache (com.ibireme.yykit/images)", exclusion: .notNeeded,
            source: ("ibireme/YYWebImage", "YYWebImage/YYImageCache.m", "81-85"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/com.ibireme.yykit/images/manifest.sqlite"]),
    ]

    static let stores: [OwnerEntry] = [
        OwnerEntry(
            "Couchbase Lite", [.path("Library/Application Support/CouchbaseLite")],
            holds: "Couchbase Lite's databases (<name>.cblite2 folders) in the default directory",
            exclusion: .notExcluded,
            note: "no exclusion in the Objective-C sources; tvOS uses Caches",
            source: ("couchbase/couchbase-lite-ios", "Objective-C/CBLDatabaseConfiguration.m", "88-102"),
            advice:
                "The user's data belongs in the backup; a database that only mirrors a server can be excluded (or "
                + "given a directory under Caches)",
            examples: ["Library/Application Support/CouchbaseLite/app.cblite2/db.sqlite3"]),
        OwnerEntry(
            "Parse", [.path("Library/Private Documents/Parse")],
            holds: "the Parse SDK's persisted objects, command cache and current user", exclusion: .excluded,
            note: "set on the folders it creates (PFFileManagerOptionSkipBackup)",
            source: (
                "parse-community/Parse-SDK-iOS-OSX", "Parse/Parse/Internal/Persistence/PFPersistenceController.m",
                "19, 104-123"
            ),
            advice: "Excluded by the SDK: what must survive a restore has to be on the server",
            examples: [
                "Library/Private Documents/Parse/currentUser",
                "Library/Private Documents/Parse/Command Cache/CachedCommand1",
            ]),
        OwnerEntry(
            "React Native SQLite Storage", [.path("Library/LocalDatabase")],
            holds:
                "react-native-sqlite-storage's databases opened with location 'default' (also "
                + "cordova-sqlite-storage's)",
            exclusion: .excluded,
            note: "set on the folder when the plugin creates it",
            source: ("andpor/react-native-sqlite-storage", "platforms/ios/SQLite.m", "92-112"),
            advice:
                "Excluded by the plugin: a database the user cannot re-create belongs in location 'Library' or "
                + "'Documents'",
            examples: ["Library/LocalDatabase/app.db", "Library/LocalDatabase/app.db-journal"]),
        OwnerEntry(
            "Expo SQLite", [.path("Documents/SQLite")],
            holds: "expo-sqlite's databases in its default directory", exclusion: .notExcluded,
            note: "in Documents: visible in the Files app when file sharing is on",
            source: ("expo/expo", "packages/expo-sqlite/ios/SQLiteModule.swift", "24-31"),
            advice: "Backed up: exclude databases that can be re-created, or open them in another directory",
            examples: ["Documents/SQLite/app.db", "Documents/SQLite/app.db-wal"]),
    ]
}
