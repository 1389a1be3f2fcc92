import SandboxAuditCore
import SandboxAuditSystem

/// More of the iOS ecosystem: messaging and engagement, paywalls, localisation, location and
/// fraud SDKs, a chat SDK's store, and stores of React Native and Flutter packages, each by the
/// exact name its source builds.
extension OwnerCatalogue {
    static let ecosystem: [OwnerEntry] = [
        OwnerEntry(
            "Matrix SDK", [.path("Library/Caches/MXFileStore"), .path("MXFileStore")],
            holds:
                "the Matrix SDK's file store per user (rooms, state, messages); at the root of the App Group "
                + "container when one is set",
            exclusion: .excluded, note: "set on the store's folders as they are created",
            source: (
                "matrix-org/matrix-ios-sdk", "MatrixSDK/Data/Store/MXFileStore/MXFileStore.m", "34, 412-414, 1110-1123"
            ),
            advice: "Nothing to do: excluded by the SDK",
            examples: [
                "Library/Caches/MXFileStore/@alice:example.org/rooms/room1/messages",
                "MXFileStore/@alice:example.org/MXFileStore",
            ]),
        OwnerEntry(
            "Superwall",
            [
                .path("Library/Caches/com.superwall.cache.Store"),
                .path("Library/Application Support/com.superwall.document.userSpecific.Store"),
                .path("Library/Application Support/com.superwall.document.appSpecific.Store"),
            ],
            holds: "Superwall's paywall cache (Caches) and its user and app stores (Application Support)",
            exclusion: .partly,
            note: "the cache is in Caches; no exclusion in the SDK's sources for the two stores",
            source: ("superwall/Superwall-iOS", "Sources/SuperwallKit/Storage/Cache/Cache.swift", "13-15, 37-48"),
            advice: "The stores are small; report growth upstream",
            examples: [
                "Library/Caches/com.superwall.cache.Store/paywall.json",
                "Library/Application Support/com.superwall.document.userSpecific.Store/user.json",
                "Library/Application Support/com.superwall.document.appSpecific.Store/app.json",
            ]),
        OwnerEntry(
            "Adapty", [.path("Library/Application Support/adapty.sdk")],
            holds: "Adapty's persisted profile, paywalls and events (one file)", exclusion: .excluded,
            note: "set after every atomic write",
            source: ("adaptyteam/AdaptySDK-iOS", "Sources/Storage/AppDirectory.swift", "18-20, 35-50"),
            advice: "Nothing to do: excluded by the SDK",
            examples: ["Library/Application Support/adapty.sdk"]),
        OwnerEntry(
            "Crowdin", [.path("Library/Application Support/*.Crowdin"), .path("Library/Caches/*.Crowdin")],
            holds: "Crowdin SDK's over-the-air localizations and screenshots (<bundle ID>.Crowdin)",
            exclusion: .notExcluded,
            note: "Application Support, or Caches when it is not available; no exclusion in the SDK's sources",
            source: ("crowdin/mobile-sdk-ios", "Sources/CrowdinSDK/CrowdinFileSystem/CrowdinFolder.swift", "25-32"),
            advice: "Localizations can be downloaded again: exclude the folder",
            examples: ["Library/Application Support/com.example.app.Crowdin/Screenshots/1.png"]),
        OwnerEntry(
            "Transifex", [.path("Library/Caches/txnative"), .path("txnative")],
            holds: "Transifex Native's downloaded translations (Caches, or the App Group container's root)",
            exclusion: .notNeeded,
            source: ("transifex/transifex-swift", "Sources/Transifex/Cache.swift", "509, 528-545"),
            advice: "Not backed up in Caches",
            examples: ["Library/Caches/txnative/txstrings.json"]),
        OwnerEntry(
            "Instana", [.path("Library/Caches/*.instana_queue.json")],
            holds: "the Instana agent's queue of beacons waiting to be sent", exclusion: .notNeeded,
            source: ("instana/iOSAgent", "Sources/InstanaAgent/Utils/InstanaPersistableQueue.swift", "11-18"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/beacons.instana_queue.json"]),
        OwnerEntry(
            "Radar", [.path("Library/Application Support/RadarSDK")],
            holds: "Radar's log buffer and state files", exclusion: .excluded,
            note: "set on each file as it is created",
            source: ("radarlabs/radar-sdk-ios", "RadarSDK/RadarFileStorage.swift", "15-36"),
            advice: "Nothing to do: excluded by the SDK",
            examples: ["Library/Application Support/RadarSDK/logs.json"]),
        OwnerEntry(
            "Sift", [.path("Library/Caches/sift-v0_0_1")],
            holds: "Sift's queues of device and event data waiting to be sent", exclusion: .notNeeded,
            source: ("SiftScience/sift-ios", "Sift/Sift.m", "22, 52"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/sift-v0_0_1/queues/default"]),
        OwnerEntry(
            "mParticle", [.path("Library/Application Support/mParticle")],
            holds: "mParticle's event database (mParticle<version>.db)", exclusion: .excluded,
            note: "set on the folder",
            source: (
                "mParticle/mparticle-apple-sdk", "mParticle-Apple-SDK/Persistence/MPPersistenceController.m", "314-337"
            ),
            advice: "Nothing to do: excluded by the SDK",
            examples: ["Library/Application Support/mParticle/mParticle30.db"]),
        OwnerEntry(
            "Swrve", [.path("Library/Application Support/swrve")],
            holds: "Swrve's event queue, install date, campaigns and user resources (swrve_events.txt …)",
            exclusion: .notExcluded,
            note: "no exclusion in the SDK's sources",
            source: ("Swrve/swrve-ios-sdk", "SwrveSDKCommon/Common/SwrveLocalStorage.m", "4-7, 380-396"),
            advice: "Events are sent and emptied; campaigns can be downloaded again: report growth upstream",
            examples: [
                "Library/Application Support/swrve/swrve_events.txt",
                "Library/Application Support/swrve/swrve_install.txt",
            ]),
        OwnerEntry(
            "Emarsys", sqlite("Documents/MEDB.db"),
            holds: "the Emarsys SDK's request and shard database", exclusion: .notExcluded,
            note: "in Documents: visible in the Files app when file sharing is on",
            source: ("emartech/ios-emarsys-sdk", "Sources/EmarsysSDK/DI/EMSDependencyContainer.m", "98"),
            advice: "A queue in Documents: exclude it after the SDK opens it, and ask upstream to move it",
            examples: ["Documents/MEDB.db", "Documents/MEDB.db-wal"]),
        OwnerEntry(
            "Kumulos", sqlite("Documents/KAnalyticsDb.sqlite") + sqlite("Documents/KSMessagesDb.sqlite"),
            holds: "Kumulos' analytics event store and in-app message store (Core Data)", exclusion: .notExcluded,
            note: "in Documents: visible in the Files app when file sharing is on",
            source: ("Kumulos/KumulosSdkSwift", "Sources/Shared/AnalyticsHelper.swift", "61-62"),
            advice: "Events are sent and deleted: ask upstream to move the stores out of Documents",
            examples: ["Documents/KAnalyticsDb.sqlite", "Documents/KSMessagesDb.sqlite-wal"]),
        OwnerEntry(
            "Blueshift", sqlite("Documents/BlueShift-iOS-SDK.sqlite") + sqlite("Library/BlueShift-iOS-SDK.sqlite"),
            holds:
                "Blueshift's Core Data store (events and in-app messages), in Documents or, when "
                + "sdkCoreDataFilesLocation says so, Library",
            exclusion: .notExcluded, note: "no exclusion in the SDK's sources",
            source: (
                "blueshift-labs/Blueshift-iOS-SDK", "BlueShift-iOS-SDK/BlueShiftAppDelegate.m", "753-759, 800-815"
            ),
            advice: "Set sdkCoreDataFilesLocation to the Library directory, so it leaves Documents",
            examples: ["Documents/BlueShift-iOS-SDK.sqlite", "Library/BlueShift-iOS-SDK.sqlite-wal"]),
        OwnerEntry(
            "IAB TCF (consent)", [.keyPrefix("IABTCF_")],
            holds:
                "IAB TCF consent strings that consent-management SDKs (Sourcepoint and others) write into the app's "
                + "own preferences plist",
            exclusion: .notExcluded,
            source: (
                "SourcePointUSA/ios-cmp-app", "ConsentViewController/Classes/LocalStorage/SPUserDefaults.swift", "11-14"
            ),
            advice: "Small and meant to survive; nothing to do",
            examples: ["IABTCF_TCString", "IABTCF_gdprApplies"]),
        OwnerEntry(
            "React Native Blob Util", [.path("Documents/ReactNativeBlobUtil_tmp")],
            holds: "react-native-blob-util's downloads to temporary files (fileCache), in Documents",
            exclusion: .notExcluded,
            note:
                "in Documents: visible in the Files app when file sharing is on; the plugin offers "
                + "excludeFromBackupKey to apps",
            source: ("RonRadtke/react-native-blob-util", "ios/ReactNativeBlobUtilFS.mm", "128-134"),
            advice: "Delete each temporary file once read (its flush()), or download with a path under Caches",
            examples: ["Documents/ReactNativeBlobUtil_tmp/ReactNativeBlobUtilTmp_1a2b.jpg"]),
        OwnerEntry(
            "Flutter cache manager",
            [.path("Library/Caches/libCachedImageData")] + sqlite("Library/Application Support/libCachedImageData.db"),
            holds:
                "flutter_cache_manager's default cache (cached_network_image's images) in Caches, and its index "
                + "database in Application Support",
            exclusion: .partly, note: "the files are in Caches; the index database is backed up",
            source: (
                "Baseflow/flutter_cache_manager",
                "flutter_cache_manager/lib/src/storage/cache_info_repositories/cache_object_provider.dart", "191-200"
            ),
            advice: "The index is small; bound the cache with Config(maxNrOfCacheObjects:)",
            examples: [
                "Library/Caches/libCachedImageData/abc.jpg", "Library/Application Support/libCachedImageData.db",
            ]),
    ]
}
