import SandboxAuditCore
import SandboxAuditSystem

/// The owner catalogue: where SDKs and Apple's frameworks write in an app's containers, read
/// from their own public source (repository, file and lines at the commits docs/owners.md
/// names) or, where marked `observed`, only seen in public listings and issues. One array of
/// declarative entries; `OwnerMatcher` attributes paths with it, the policy file's `owners:`
/// first. Every entry's examples are built as a real container and attributed by the tests
/// (`OwnerCatalogueTests`); docs/owners.md lists the catalogue and is checked against it.
package enum OwnerCatalogue {
    /// In order of precedence, lowest first: where several entries cover a path (match it or a
    /// folder above it), the last one owns it, as in a CODEOWNERS file. General entries (Apple's
    /// frameworks, stores found anywhere) come first, so an SDK's own folder wins over them.
    package static let all: [OwnerEntry] =
        frameworks + storage + firebase + analytics + media + crossPlatform
        + diagnostics + caches + stores + engagement + ecosystem

    static let firebaseRepo = "firebase/firebase-ios-sdk"

    /// A SQLite database and its companions (`-wal`, `-shm`, `-journal`), by their exact names:
    /// `NAME-notes.txt` beside it is not the database's.
    static func sqlite(_ glob: String) -> [OwnerEntry.Match] {
        ["", "-wal", "-shm", "-journal"].map { .path(glob + $0) }
    }

    /// The commits the sources were read at: the line numbers are theirs.
    static let commits = [
        "firebase/firebase-ios-sdk": "eed63a3", "google/GoogleDataTransport": "ba3358d", "realm/realm-swift": "c22f930",
        "getsentry/sentry-cocoa": "c34c99b", "bugsnag/bugsnag-cocoa": "84fb011", "DataDog/dd-sdk-ios": "2b6a3fb",
        "amplitude/Amplitude-Swift": "17ca168", "mixpanel/mixpanel-swift": "8399b37",
        "segmentio/analytics-swift": "c9a0d63",
        "adjust/ios_sdk": "0a8ccca", "BranchMetrics/ios-branch-deep-linking-attribution": "e8518a8",
        "SDWebImage/SDWebImage": "36e79ba",
        "onevcat/Kingfisher": "410984b", "kean/Nuke": "c4fc70a", "RevenueCat/purchases-ios": "ff486da",
        "react-native-async-storage/async-storage": "a11a8db", "microsoft/react-native-code-push": "50a7ed5",
        "facebook/facebook-ios-sdk": "c00e9e0", "flutter/packages": "6bb3423", "apache/cordova-plugin-file": "02a090e",
        "ionic-team/capacitor": "1834b97", "ionic-team/capacitor-plugins": "5b65292",
        "mapbox/mapbox-gl-native-ios": "6220095",
        // Read for issue 39 (crash reporters, loggers, caches, stores, engagement SDKs).
        "microsoft/plcrashreporter": "0254f94", "kstenerud/KSCrash": "62039fc", "rollbar/rollbar-apple": "91127b9",
        "MindscapeHQ/raygun4apple": "2068d47", "embrace-io/embrace-apple-sdk": "70c13f9",
        "bugsnag/bugsnag-cocoa-performance": "e0c1e47",
        "microsoft/appcenter-sdk-apple": "307caac", "bitdriftlabs/capture-sdk": "b3cbde4",
        "CocoaLumberjack/CocoaLumberjack": "44f4f26",
        "SwiftyBeaver/SwiftyBeaver": "0b2a008", "kean/Pulse": "00ea2b0", "pinterest/PINCache": "2fb8594",
        "Alamofire/AlamofireImage": "490f713", "AFNetworking/AFNetworking": "d9f589c", "Haneke/HanekeSwift": "a2e8e5b",
        "ibireme/YYWebImage": "093193c", "couchbase/couchbase-lite-ios": "878aeeb",
        "parse-community/Parse-SDK-iOS-OSX": "5a81221",
        "andpor/react-native-sqlite-storage": "b6aeac4", "expo/expo": "718b6d7",
        "launchdarkly/ios-client-sdk": "9fc3e15",
        "optimizely/swift-sdk": "68eeee5", "statsig-io/statsig-kit": "ffe36d6", "PostHog/posthog-ios": "64c7dd0",
        "snowplow/snowplow-ios-tracker": "900e069", "Countly/countly-sdk-ios": "7b29bb6",
        "rudderlabs/rudder-sdk-ios": "dcf152d",
        "segmentio/analytics-ios": "4b09689", "amplitude/Amplitude-iOS": "f1cfd38",
        "customerio/customerio-ios": "8b9ee36",
        "klaviyo/klaviyo-swift-sdk": "67a8b4c", "CleverTap/clevertap-ios-sdk": "3af43fc",
        "Leanplum/Leanplum-iOS-SDK": "0a1f214",
        "Iterable/iterable-swift-sdk": "25cd00e", "appcues/appcues-ios-sdk": "0d12d4d",
        "TelemetryDeck/SwiftSDK": "ad4a03e",
        "apptentive/apptentive-ios": "25b8e8f", "urbanairship/ios-library": "b735fa2", "Tencent/MMKV": "ad7657e",
        "matrix-org/matrix-ios-sdk": "2529e7f", "superwall/Superwall-iOS": "0f2cae7",
        "adaptyteam/AdaptySDK-iOS": "cef5c13",
        "crowdin/mobile-sdk-ios": "30455af", "transifex/transifex-swift": "c274ae2", "instana/iOSAgent": "b526a6a",
        "radarlabs/radar-sdk-ios": "aa6def6", "SiftScience/sift-ios": "85d8b9a",
        "mParticle/mparticle-apple-sdk": "86fa647",
        "Swrve/swrve-ios-sdk": "7cba8ab", "emartech/ios-emarsys-sdk": "a993222", "Kumulos/KumulosSdkSwift": "74c54ac",
        "blueshift-labs/Blueshift-iOS-SDK": "1fb7344", "SourcePointUSA/ios-cmp-app": "6e45fd8",
        "RonRadtke/react-native-blob-util": "8ff7286", "Baseflow/flutter_cache_manager": "515cc9e",
    ]

    static let firebase: [OwnerEntry] = [
        OwnerEntry(
            "Firebase", [.path("Library/Application Support/firestore")], legacy: [.path("Documents/firestore")],
            holds: "Cloud Firestore's offline cache and pending writes (LevelDB; LRU cache of 100 MB by default)",
            exclusion: .excluded, history: "older releases kept it in Documents/firestore and migrate it",
            source: (firebaseRepo, "Firestore/core/src/util/filesystem_apple.mm", "32-67"),
            advice: "Firestore excludes its folder; if it is large, lower Firestore's cache size (cacheSizeBytes)",
            examples: [
                "Library/Application Support/firestore/__FIRAPP_DEFAULT/demo/main/000003.log",
                "Documents/firestore/__FIRAPP_DEFAULT/old.ldb",
            ]),
        OwnerEntry(
            "Firebase", [.path("Documents/firebase")],
            holds: "Realtime Database's offline cache (LevelDB)", exclusion: .excluded,
            note: "excluded, but in Documents: visible in the Files app when file sharing is on",
            source: (firebaseRepo, "FirebaseDatabase/Sources/Persistence/FLevelDBStorageEngine.m", "99-106, 979-1027"),
            advice: "Excluded by the SDK; keep UIFileSharingEnabled off, or it shows in the Files app",
            examples: ["Documents/firebase/default/000005.ldb"]),
        OwnerEntry(
            "Firebase", [.path("Library/Application Support/Google/RemoteConfig")],
            legacy: [.path("Documents/RemoteConfig.sqlite3")],
            holds: "Remote Config's fetched configuration (SQLite)", exclusion: .excluded,
            history: "older releases wrote Documents/RemoteConfig.sqlite3",
            source: (firebaseRepo, "FirebaseRemoteConfig/Sources/RCNConfigDBManager.m", "37-76"),
            advice: "Nothing to do: small, and excluded by the SDK",
            examples: [
                "Library/Application Support/Google/RemoteConfig/RemoteConfig.sqlite3",
                "Documents/RemoteConfig.sqlite3",
            ]),
        OwnerEntry(
            "Firebase", [.path("Library/Application Support/Google/FirebaseMessaging")],
            holds: "Cloud Messaging's outgoing message queue (rmq2.sqlite)", exclusion: .notExcluded,
            source: (firebaseRepo, "FirebaseMessaging/Sources/FIRMessagingRmqManager.m", "443-448"),
            advice:
                "Small; if it grows, exclude the folder (URLResourceValues.isExcludedFromBackup) after the SDK "
                + "creates it",
            examples: ["Library/Application Support/Google/FirebaseMessaging/rmq2.sqlite"]),
        OwnerEntry(
            "Firebase", [.path("Library/Application Support/Google/FirebaseInstanceID")],
            holds: "Cloud Messaging's device check-in (g-checkin.plist)", exclusion: .excluded,
            source: (firebaseRepo, "FirebaseMessaging/Sources/Token/FIRMessagingBackupExcludedPlist.m", "56-62"),
            advice: "Nothing to do: excluded by the SDK",
            examples: ["Library/Application Support/Google/FirebaseInstanceID/g-checkin.plist"]),
        OwnerEntry(
            "Firebase", [.path("Library/Caches/com.crashlytics.data")],
            holds: "Crashlytics' crash reports and logs", exclusion: .notNeeded,
            source: (firebaseRepo, "Crashlytics/Crashlytics/Models/FIRCLSFileManager.m", "22, 43-48"),
            advice: "Not backed up (Caches); bounded by the SDK",
            examples: ["Library/Caches/com.crashlytics.data/com.example.app/v5/reports/active/report.clsrecord"]),
        OwnerEntry(
            "Firebase", [.path("Library/Application Support/com.crashlytics")],
            holds: "Crashlytics' own user defaults (CLSUserDefaults.plist)", exclusion: .notExcluded,
            source: (firebaseRepo, "Crashlytics/Crashlytics/FIRCLSUserDefaults/FIRCLSUserDefaults.m", "32, 102-127"),
            advice: "Small (keys and settings); nothing to do unless it grows",
            examples: ["Library/Application Support/com.crashlytics/CLSUserDefaults.plist"]),
        OwnerEntry(
            "Firebase",
            [.path("Library/Application Support/google-heartbeat-storage"), .suite("com.google.heartbeat.storage")],
            holds: "Firebase core's usage heartbeats (a UserDefaults suite on tvOS)", exclusion: .notExcluded,
            source: (firebaseRepo, "FirebaseCore/Internal/Sources/HeartbeatLogging/StorageFactory.swift", "19, 33-43"),
            advice: "Bytes only; nothing to do",
            examples: [
                "Library/Application Support/google-heartbeat-storage/heartbeats-1:123:ios:abc",
                "Library/Preferences/com.google.heartbeat.storage.plist",
            ]),
        OwnerEntry(
            "Firebase", [.path("Library/Caches/google-sdks-events")],
            holds: "GoogleDataTransport's queued telemetry (Crashlytics, Performance, Sessions, Messaging)",
            exclusion: .notNeeded,
            source: ("google/GoogleDataTransport", "GoogleDataTransport/GDTCORLibrary/GDTCORPlatform.m", "46-53"),
            advice: "Not backed up (Caches); the SDK tracks its size",
            examples: ["Library/Caches/google-sdks-events/gdt_event_data/1018/event-1"]),
        OwnerEntry(
            "Firebase", [.path("Library/Caches/firebase_perf_logging")],
            holds: "Performance Monitoring's logs", exclusion: .notNeeded,
            source: (firebaseRepo, "FirebasePerformance/Sources/FPRClient.m", "328-340"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/firebase_perf_logging/log.txt"]),
        OwnerEntry(
            "Firebase",
            [
                .path("Library/Caches/firebase-iam-messages-cache"),
                .path("Library/Caches/firebase-iam-clearcut-retry-records"),
            ],
            holds: "In-App Messaging's fetched campaigns and retry records", exclusion: .notNeeded,
            source: (firebaseRepo, "FirebaseInAppMessaging/Sources/Flows/FIRIAMServerMsgFetchStorage.m", "25-28"),
            advice: "Not backed up (Caches)",
            examples: [
                "Library/Caches/firebase-iam-messages-cache", "Library/Caches/firebase-iam-clearcut-retry-records",
            ]),
        OwnerEntry(
            "Firebase", [.path("Library/Application Support/com.firebase.FirebaseMLModelDownloader")],
            holds: "ML Model Downloader's models (megabytes to gigabytes)", exclusion: .excluded,
            note: "set on each model file",
            source: (firebaseRepo, "FirebaseMLModelDownloader/Sources/ModelFileManager.swift", "29-45"),
            advice:
                "Excluded by the SDK (on the model file); delete models no longer used "
                + "(ModelDownloader.deleteDownloadedModel)",
            examples: [
                "Library/Application Support/com.firebase.FirebaseMLModelDownloader/fbml_model__demo__classifier"
            ]),
    ]

    static let storage: [OwnerEntry] = [
        OwnerEntry(
            "Realm",
            [
                .store("**/*.realm"), .store("**/*.realm.lock"), .store("**/*.realm.note"),
                .store("**/*.realm.management"),
                .path("Documents/mongodb-realm"),
            ],
            holds: "a Realm database (Documents/default.realm by default) and its companions",
            exclusion: .partly, note: "the .realm file is backed up; .lock, .note and .management are excluded",
            source: ("realm/realm-swift", "Realm/RLMUtil.mm", "539-547"),
            advice:
                "Keep the user's data backed up; a Realm that holds re-creatable data belongs in Caches or with its "
                + "file excluded (Realm.Configuration fileURL)",
            examples: [
                "Documents/default.realm", "Documents/default.realm.lock",
                "Documents/default.realm.management/access_control.control.mx",
                "Documents/mongodb-realm/app-id/server-utility/metadata/sync_metadata.realm",
            ]),
        OwnerEntry(
            "MMKV", [.path("Documents/mmkv")],
            holds: "MMKV's key-value files (also under react-native-mmkv)", exclusion: .notExcluded,
            note: "in Documents: visible in the Files app when file sharing is on",
            source: ("Tencent/MMKV", "iOS/MMKV/MMKV/libMMKV.mm", "1019-1032"),
            advice:
                "Give MMKV a root under Library/Application Support (MMKV.initialize(rootDir:)); exclude instances "
                + "that hold caches",
            examples: ["Documents/mmkv/mmkv.default", "Documents/mmkv/mmkv.default.crc"]),
        OwnerEntry(
            "React Native AsyncStorage", [.path("Library/Application Support/*/async-storage")],
            holds: "AsyncStorage v3's key-value databases (SQLite)", exclusion: .excluded,
            note: "v3 dropped the option to keep it in backups",
            source: (
                "react-native-async-storage/async-storage",
                "shared-storage/src/appleMain/kotlin/org/asyncstorage/shared_storage/database/DatabaseFiles.apple.kt",
                "39-81"
            ),
            advice:
                "Excluded by the library: data kept only there is lost on restore; keep what must survive elsewhere",
            examples: ["Library/Application Support/com.example.app/async-storage/databases/main/main.sqlite"]),
        OwnerEntry(
            "React Native AsyncStorage", [.path("Library/Application Support/*/RCTAsyncLocalStorage_V1")],
            legacy: [.path("Documents/RCTAsyncLocalStorage_V1")],
            holds: "AsyncStorage v1/v2's manifest and values", exclusion: .excluded,
            note: "backed up when Info.plist sets RCTAsyncStorageExcludeFromBackup to NO",
            history: "the oldest releases wrote Documents/RCTAsyncLocalStorage_V1, migrated since",
            source: (
                "react-native-async-storage/async-storage",
                "packages/async-storage/apple/legacy_storage/RNCAsyncStorage.mm", "112-149, 522-535"
            ),
            advice: "Excluded by default; check RCTAsyncStorageExcludeFromBackup in Info.plist",
            examples: [
                "Library/Application Support/com.example.app/RCTAsyncLocalStorage_V1/manifest.json",
                "Documents/RCTAsyncLocalStorage_V1/manifest.json",
            ]),
        OwnerEntry(
            "CodePush", [.path("Library/Application Support/CodePush")], legacy: [.path("Documents/CodePush")],
            holds: "CodePush's downloaded JavaScript bundle updates", exclusion: .excluded,
            history: "moved from Documents in 2015 (react-native-code-push pull request 100)",
            source: ("microsoft/react-native-code-push", "ios/CodePush/CodePushPackage.m", "64-73, 347-351"),
            advice: "Excluded by the SDK; an old app version's Documents/CodePush is backed up: delete it",
            examples: [
                "Library/Application Support/CodePush/abc123/main.jsbundle", "Documents/CodePush/old/main.jsbundle",
            ]),
    ]
}
