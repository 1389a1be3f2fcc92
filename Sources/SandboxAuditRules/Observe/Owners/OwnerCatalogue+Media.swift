import SandboxAuditCore
import SandboxAuditSystem

/// Image caches, maps, Apple's frameworks and cross-platform runtimes (Cordova before
/// Capacitor: its snapshots inside Library/NoCloud are Capacitor's).
extension OwnerCatalogue {
    static let media: [OwnerEntry] = [
        OwnerEntry(
            "SDWebImage", [.path("Library/Caches/com.hackemist.SDImageCache")],
            holds: "SDWebImage's disk image cache (no size limit by default, one week old at most)",
            exclusion: .notNeeded,
            note: "also excluded (shouldDisableiCloud is on by default)",
            source: ("SDWebImage/SDWebImage", "SDWebImage/Core/SDImageCacheConfig.m", "14, 28, 35-36"),
            advice: "Not backed up (Caches); set SDImageCacheConfig.maxDiskSize to bound it",
            examples: ["Library/Caches/com.hackemist.SDImageCache/default/0123abcd.png"]),
        OwnerEntry(
            "Kingfisher", [.path("Library/Caches/com.onevcat.Kingfisher.ImageCache.*")],
            holds: "Kingfisher's disk image cache (no size limit by default, seven days)", exclusion: .notNeeded,
            source: ("onevcat/Kingfisher", "Sources/Cache/DiskStorage.swift", "530, 664-680"),
            advice: "Not backed up (Caches); set diskStorage.config.sizeLimit to bound it",
            examples: ["Library/Caches/com.onevcat.Kingfisher.ImageCache.default/ab12"]),
        OwnerEntry(
            "Nuke", [.path("Library/Caches/com.github.kean.Nuke.*")],
            holds: "Nuke's HTTP cache (150 MB) and data cache", exclusion: .notNeeded,
            source: ("kean/Nuke", "Sources/Nuke/Loading/DataLoader.swift", "70-92"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/com.github.kean.Nuke.Cache/Cache.db"]),
        OwnerEntry(
            "Mapbox", [.path("Library/Application Support/*/.mapbox")],
            holds: "Mapbox GL (legacy) / MapLibre's tile cache and offline packs (one database)", exclusion: .excluded,
            note: "not excluded when MGLOfflineStorageDatabasePath moves it",
            source: ("mapbox/mapbox-gl-native-ios", "platform/darwin/src/MGLOfflineStorage.mm", "240-270"),
            advice: "Excluded by the SDK; if Info.plist sets MGLOfflineStorageDatabasePath, exclude that file",
            examples: ["Library/Application Support/com.example.app/.mapbox/cache.db"]),
        OwnerEntry(
            "Mapbox", [.path("Library/Application Support/.mapbox")],
            holds: "Mapbox Maps v10+'s ambient cache and tile store (offline regions can reach gigabytes)",
            exclusion: .unknown,
            source: ("mapbox/mapbox-maps-android", "CHANGELOG.md", "10.0.0-beta.21"), evidence: .observed,
            advice:
                "Closed-source core: check whether the tile store is excluded; exclude it if offline regions can be "
                + "downloaded again",
            examples: [
                "Library/Application Support/.mapbox/maps/ambient_cache.db",
                "Library/Application Support/.mapbox/maps/tile-store/1.db",
            ]),
    ]

    /// Files iOS writes in the app's container on the app's behalf: the app controls them only
    /// through the framework's API, which each entry's advice names, from Apple's documentation.
    /// Their findings never fail a build by default (`Audit`: at most warnings).
    static let frameworks: [OwnerEntry] = [
        OwnerEntry(
            "CFNetwork", [.path("Library/Cookies")], kind: .framework,
            holds:
                "HTTPCookieStorage's persistent cookies (Cookies.binarycookies), written by URLSession and WKWebView "
                + "on the app's behalf",
            exclusion: .notExcluded,
            docs: ("HTTPCookieStorage", "https://developer.apple.com/documentation/foundation/httpcookiestorage"),
            advice:
                "Written by the system: to keep cookies out of the backup, use an ephemeral URLSessionConfiguration "
                + "(httpCookieStorage nil or in memory) or delete them with "
                + "HTTPCookieStorage.removeCookies(since:)",
            examples: ["Library/Cookies/Cookies.binarycookies"]),
        OwnerEntry(
            "CFNetwork", [.path("Library/HTTPStorages")], kind: .framework,
            holds:
                "URLSession's per-app HTTP state (HSTS, alternative services and cookies: httpstorages.sqlite), "
                + "written on the app's behalf",
            exclusion: .notExcluded,
            docs: (
                "URLSessionConfiguration.ephemeral",
                "https://developer.apple.com/documentation/foundation/urlsessionconfiguration/ephemeral"
            ),
            advice:
                "Written by the system for default sessions: an ephemeral URLSessionConfiguration writes no such "
                + "state to disk",
            examples: [
                "Library/HTTPStorages/com.example.app/httpstorages.sqlite",
                "Library/HTTPStorages/com.example.app/httpstorages.sqlite-wal",
            ]),
        OwnerEntry(
            "UIKit", [.path("Library/Saved Application State")], kind: .framework,
            holds:
                "UIKit's state restoration archives (one .savedState folder per app), which iOS neither backs up nor "
                + "restores",
            exclusion: .notNeeded,
            docs: (
                "Preserving your app's UI across launches",
                "https://developer.apple.com/documentation/uikit/preserving-your-app-s-ui-across-launches"
            ),
            advice:
                "Not backed up: written when the app opts in to state preservation "
                + "(application(_:shouldSaveSecureApplicationState:))",
            examples: ["Library/Saved Application State/com.example.app.savedState/data.data"]),
        OwnerEntry(
            "UIKit", [.path("Library/SplashBoard"), .path("Library/Caches/Snapshots")], kind: .framework,
            holds:
                "the launch and app-switcher snapshots the system takes of the app's windows, which iOS does not "
                + "back up",
            exclusion: .notNeeded,
            docs: (
                "UIApplication.ignoreSnapshotOnNextApplicationLaunch()",
                "https://developer.apple.com/documentation/uikit/uiapplication/ignoresnapshotonnextapplicationlaunch()"
            ),
            advice:
                "Not backed up: the system takes them when the app moves to the background "
                + "(ignoreSnapshotOnNextApplicationLaunch() skips the next one)",
            examples: [
                "Library/SplashBoard/Snapshots/sceneID:com.example.app-default/downscaled/1.ktx",
                "Library/Caches/Snapshots/com.example.app/1.ktx",
            ]),
        OwnerEntry(
            "Foundation", [.path("Library/SyncedPreferences")], kind: .framework,
            holds:
                "the local copy of the iCloud key-value store (NSUbiquitousKeyValueStore), synced through iCloud and "
                + "not backed up",
            exclusion: .notNeeded,
            docs: (
                "NSUbiquitousKeyValueStore",
                "https://developer.apple.com/documentation/foundation/nsubiquitouskeyvaluestore"
            ),
            advice: "Not backed up: iCloud syncs it again (at most 1 MB per app)",
            examples: ["Library/SyncedPreferences/com.example.app.plist"]),
        OwnerEntry(
            "WebKit", [.path("Library/WebKit"), .path("Library/Caches/WebKit"), .path("tmp/WebKit")], kind: .framework,
            holds:
                "WKWebView's website data (local storage, IndexedDB, cookies, service workers, content rule lists) "
                + "and caches",
            exclusion: .partly, note: "Library/WebKit is backed up; its caches are in Caches and tmp",
            source: (
                "WebKit/WebKit", "Source/WebKit/UIProcess/WebsiteData/Cocoa/WebsiteDataStoreCocoa.mm",
                "defaultWebsiteDataStoreRootDirectory"
            ),
            advice:
                "Remove website data the app does not need (WKWebsiteDataStore.removeData), or give transient web "
                + "views WKWebsiteDataStore.nonPersistent()",
            examples: [
                "Library/WebKit/WebsiteData/LocalStorage/https_example.com_0.localstorage",
                "Library/WebKit/WebsiteDataStore/5B1C/IndexedDB/db.sqlite3",
                "Library/Caches/WebKit/NetworkCache/Version 16/Records/abc", "tmp/WebKit/MediaCache/x",
            ]),
        OwnerEntry(
            "CFNetwork", (sqlite("Library/Caches/*/Cache.db") + [.path("Library/Caches/*/fsCachedData")]),
            kind: .framework,
            holds: "URLCache.shared's HTTP response cache (URLSession, Alamofire)", exclusion: .notNeeded,
            source: ("OWASP/mastg", "pull request 1831", nil), evidence: .observed,
            advice: "Not backed up (Caches); set URLCache.shared's diskCapacity to bound it",
            examples: [
                "Library/Caches/com.example.app/Cache.db", "Library/Caches/com.example.app/Cache.db-wal",
                "Library/Caches/com.example.app/fsCachedData/0A1B",
            ]),
    ]

    static let crossPlatform: [OwnerEntry] = [
        OwnerEntry(
            "Flutter shared_preferences", [.keyPrefix("flutter.")],
            holds: "Flutter's shared_preferences values, in the app's own preferences plist", exclusion: .notExcluded,
            source: (
                "flutter/packages",
                "packages/shared_preferences/shared_preferences_foundation/darwin/shared_preferences_foundation/"
                    + "Sources/shared_preferences_foundation/SharedPreferencesPlugin.swift",
                "33-49, 91-104"
            ),
            advice:
                "Keep large values out of shared_preferences: write them to files (path_provider's "
                + "getApplicationSupportDirectory)",
            examples: ["flutter.cachedFeed", "flutter.onboardingDone"]),
        OwnerEntry(
            "Capacitor Preferences", [.keyPrefix("CapacitorStorage.")],
            holds: "Capacitor Preferences' values, in the app's own preferences plist", exclusion: .notExcluded,
            source: (
                "ionic-team/capacitor-plugins", "preferences/ios/Sources/PreferencesPlugin/Preferences.swift", "10-31"
            ),
            advice: "Keep large values out of Preferences: write them with the Filesystem plugin (Directory.Library)",
            examples: ["CapacitorStorage.session", "CapacitorStorage.cart"]),
        OwnerEntry(
            "Cordova", [.path("Library/NoCloud"), .path("Documents/NoCloud")],
            holds: "cordova-plugin-file's dataDirectory and documents-nosync (files the plugin excludes)",
            exclusion: .excluded,
            note: "Documents/NoCloud is excluded but visible in the Files app when file sharing is on",
            source: ("apache/cordova-plugin-file", "src/ios/CDVFile.m", "255-301, 488-513"),
            advice:
                "Excluded by the plugin: what must survive a restore belongs in syncedDataDirectory (Library/Cloud)",
            examples: ["Library/NoCloud/data.json", "Documents/NoCloud/export.csv"]),
        OwnerEntry(
            "Cordova", [.path("Library/Cloud")],
            holds: "cordova-plugin-file's syncedDataDirectory (backed up on purpose)", exclusion: .notExcluded,
            source: ("apache/cordova-plugin-file", "src/ios/CDVFile.m", "255-301"),
            advice:
                "Backed up on purpose; keep re-creatable files in dataDirectory (Library/NoCloud) or cacheDirectory",
            examples: ["Library/Cloud/notes.json"],
            // "Cloud" is a name an app may choose: cordova-plugin-file's beside its NoCloud folders.
            confirmedBy: ["Library/NoCloud", "Documents/NoCloud"]),
        OwnerEntry(
            "Capacitor", [.path("Library/kvstore"), .path("Library/NoCloud/ionic_built_snapshots")],
            holds: "Capacitor's key-value store and live-update web bundle snapshots", exclusion: .partly,
            note:
                "the key-value store is backed up; the core sets no exclusion on the snapshots (whether the "
                + "live-update plugin does is unverified)",
            source: ("ionic-team/capacitor", "ios/Capacitor/Capacitor/KeyValueStore.swift", "228-246"),
            advice: "Snapshots can be downloaded again: exclude Library/NoCloud",
            examples: ["Library/kvstore/capacitor/config", "Library/NoCloud/ionic_built_snapshots/abc/index.html"]),
    ]
}
