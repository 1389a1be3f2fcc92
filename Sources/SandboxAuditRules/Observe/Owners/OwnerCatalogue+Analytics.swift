import SandboxAuditCore
import SandboxAuditSystem

/// Crash reporting, analytics and attribution SDKs.
extension OwnerCatalogue {
    static let analytics: [OwnerEntry] = [
        OwnerEntry(
            "Sentry", [.path("Library/Caches/io.sentry")],
            holds: "Sentry's envelopes, sessions and session replays (30 envelopes by default)", exclusion: .notNeeded,
            source: ("getsentry/sentry-cocoa", "Sources/Sentry/SentryFileManagerHelper.m", "139-175"),
            advice: "Not backed up (Caches); lower maxCacheItems if it is large",
            examples: [
                "Library/Caches/io.sentry/0a1b2c/envelopes/1.envelope",
                "Library/Caches/io.sentry/0a1b2c/session.current",
            ]),
        // `bugsnag-shared-<bundle ID>` is a folder: what is inside it is Bugsnag's, not a file
        // of the app's that starts with the same words.
        OwnerEntry(
            "Bugsnag",
            [
                .path("Library/Application Support/com.bugsnag.Bugsnag"),
                .path("Library/Application Support/bugsnag-shared-*/*"),
            ],
            holds: "Bugsnag's crash reports, sessions and breadcrumbs (32 events, 128 sessions)",
            exclusion: .notExcluded,
            note:
                "no exclusion anywhere in its storage code (the helper named cachesDirectory returns Application "
                + "Support)",
            source: ("bugsnag/bugsnag-cocoa", "Bugsnag/Storage/BSGFileLocations.m", "33-120"),
            advice:
                "Exclude Library/Application Support/com.bugsnag.Bugsnag after Bugsnag starts (crash reports need "
                + "not survive a restore), or ask upstream to use Caches",
            examples: [
                "Library/Application Support/com.bugsnag.Bugsnag/com.example.app/v1/events/1.json",
                "Library/Application Support/bugsnag-shared-com.example.app/state.json",
            ]),
        OwnerEntry(
            "Datadog", [.path("Library/Caches/com.datadoghq")],
            holds: "Datadog's batched logs, RUM events and traces (512 MB at most)", exclusion: .notNeeded,
            source: ("DataDog/dd-sdk-ios", "DatadogCore/Sources/Core/Storage/Directories.swift", "16-60"),
            advice: "Not backed up (Caches); counts in the app's storage until uploaded",
            examples: ["Library/Caches/com.datadoghq/v2/4e3a/rum/v2/batch-1"]),
        OwnerEntry(
            "Amplitude", [.path("Library/Application Support/amplitude"), .suite("com.amplitude.storage.*")],
            holds: "Amplitude's event files and identity (a UserDefaults suite)", exclusion: .partly,
            note: "the event folder is excluded; the suite's plist is backed up",
            source: ("amplitude/Amplitude-Swift", "Sources/Amplitude/Storages/PersistentStorage.swift", "45, 402-445"),
            advice: "The event folder is excluded; the suite is small and meant to survive",
            examples: [
                "Library/Application Support/amplitude/default_instance-events/0",
                "Library/Preferences/com.amplitude.storage.amplitude-swift-KEY.plist",
            ]),
        // The legacy archives are `mixpanel-TOKEN-TYPE`, TYPE one of the SDK's `ArchiveType`s
        // (mixpanel-swift `Persistence.filePathFor` and its `ArchiveType`; capitalised in early releases):
        // named exactly, so that an app's own `Library/mixpanel-export.csv` is not Mixpanel's.
        OwnerEntry(
            "Mixpanel",
            sqlite("Library/*_MPDB.sqlite")
                + ["[eE]vents", "[pP]eople", "groups", "[pP]roperties", "codelessBindings", "variants", "optOutStatus"]
                .map { .path("Library/mixpanel-*-" + $0) },
            holds: "Mixpanel's event and people queue (SQLite at the root of Library) and legacy archives",
            exclusion: .notExcluded,
            source: ("mixpanel/mixpanel-swift", "Sources/MPDB.swift", "15, 29-39"),
            advice:
                "A queue that is sent and emptied: exclude the database file after Mixpanel opens it, or flush more "
                + "often",
            examples: ["Library/TOKEN_MPDB.sqlite", "Library/TOKEN_MPDB.sqlite-wal", "Library/mixpanel-TOKEN-events"]),
        // "segment" is a word an app may use for its own folder: the event files name Segment.
        OwnerEntry(
            "Segment",
            [.path("Library/Application Support/segment/*/*-segment-events*"), .suite("com.segment.storage.*")],
            legacy: [.path("Documents/segment/*/*-segment-events*")],
            holds: "Segment's event batches and settings (a UserDefaults suite)", exclusion: .notExcluded,
            history: "analytics-swift moved it from Documents/segment, and migrates it",
            source: ("segmentio/analytics-swift", "Sources/Segment/Utilities/Utils.swift", "77-127"),
            advice:
                "Batches are sent and deleted: exclude the segment folder; an old version's Documents/segment should "
                + "be gone after migration",
            examples: [
                "Library/Application Support/segment/WRITEKEY/0-segment-events.temp",
                "Library/Preferences/com.segment.storage.WRITEKEY.plist",
                "Documents/segment/WRITEKEY/1-segment-events",
            ]),
        OwnerEntry(
            "Adjust", [.path("Library/Application Support/Adjust")], legacy: [.path("Documents/AdjustIo*")],
            holds: "Adjust's attribution state and package queue", exclusion: .excluded,
            note: "set again after every atomic write",
            history: "older releases wrote AdjustIo* files in Documents, migrated since",
            source: ("adjust/ios_sdk", "Adjust/Internal/ADJUtil.m", "163-199, 300-330, 391-405"),
            advice: "Nothing to do: excluded by the SDK",
            examples: ["Library/Application Support/Adjust/AdjustIoActivityState", "Documents/AdjustIoPackageQueue"]),
        OwnerEntry(
            "Branch", [.path("Library/Application Support/io.branch")],
            holds: "Branch's preferences and session", exclusion: .notExcluded,
            source: (
                "BranchMetrics/ios-branch-deep-linking-attribution", "Sources/BranchSDK/BNCPreferenceHelper.m",
                "25, 1198-1260"
            ),
            advice: "Small; nothing to do unless it grows",
            examples: ["Library/Application Support/io.branch/BNCPreferences"]),
        OwnerEntry(
            "Branch", [.path("Documents/app_log.txt")],
            holds: "Branch's debug log (grows within a session)", exclusion: .notExcluded,
            note: "in Documents: visible in the Files app when file sharing is on", debugOnly: true,
            source: (
                "BranchMetrics/ios-branch-deep-linking-attribution", "Sources/BranchSDK/BranchFileLogger.m", "37-40"
            ),
            advice: "Written only by DEBUG builds (absent from release builds); delete it from test devices",
            examples: ["Documents/app_log.txt"],
            // An app may name its own log so: Branch's only beside Branch's own folder.
            confirmedBy: ["Library/Application Support/io.branch"]),
        OwnerEntry(
            "Facebook SDK", [.path("Library/com-facebook-sdk-*.json")],
            holds: "the Facebook SDK's app-event queue and anonymous ID (JSON at the root of Library)",
            exclusion: .notExcluded,
            source: (
                "facebook/facebook-ios-sdk", "FBSDKCoreKit_Basics/FBSDKCoreKit_Basics/FBSDKBasicUtility.m", "332-337"
            ),
            advice: "Small queue files; nothing to do unless they grow (flush app events)",
            examples: [
                "Library/com-facebook-sdk-AppEventsPersistedEvents.json",
                "Library/com-facebook-sdk-PersistedAnonymousID.json",
            ]),
        // `tmp/models` and `tmp/instrument` are names an app may choose: the SDK's beside its own files.
        OwnerEntry(
            "Facebook SDK", [.path("tmp/models"), .path("tmp/instrument")],
            holds: "the Facebook SDK's ML models and crash reports in tmp",
            exclusion: .notNeeded, note: "tmp is not backed up",
            source: (
                "facebook/facebook-ios-sdk", "FBSDKCoreKit_Basics/FBSDKCoreKit_Basics/FBSDKBasicUtility.m", "332-337"
            ),
            advice: "Not backed up; nothing to do unless they grow",
            examples: ["tmp/models/MTML.weights", "tmp/instrument/crash.log"],
            confirmedBy: [
                "Library/com-facebook-sdk-PersistedAnonymousID.json",
                "Library/com-facebook-sdk-AppEventsPersistedEvents.json",
            ]),
        OwnerEntry(
            "RevenueCat",
            [
                .path("Library/Application Support/*.revenuecat"), .suite("com.revenuecat.user_defaults"),
                .suite("*.revenuecat.etags"),
            ],
            legacy: [.path("Documents/com.revenuecat")],
            holds: "RevenueCat's diagnostics, feature events and HTTP ETag cache (UserDefaults suites)",
            exclusion: .notExcluded,
            note: "the ETag suite reached watchOS's 1 MB UserDefaults limit (purchases-ios issue 5912)",
            history: "moved from Documents/com.revenuecat, and migrated",
            source: ("RevenueCat/purchases-ios", "Sources/Caching/DirectoryHelper.swift", "28-57"),
            advice:
                "Update the SDK (later versions keep it out of Documents); the ETag suite can be cleared, it is a "
                + "cache",
            examples: [
                "Library/Application Support/com.example.app.revenuecat/diagnostics/diagnostics.jsonl",
                "Library/Preferences/com.revenuecat.user_defaults.plist",
                "Library/Preferences/com.example.app.revenuecat.etags.plist",
                "Documents/com.revenuecat/diagnostics.jsonl",
            ]),
        OwnerEntry(
            "OneSignal", [.suite("group.*.onesignal")],
            holds:
                "OneSignal's subscription state and cached operation queues (a UserDefaults suite, in the App Group)",
            exclusion: .notExcluded,
            source: (
                "OneSignal/OneSignal-iOS-SDK", "iOS_SDK/OneSignalSDK/OneSignalCore/Source/OneSignalUserDefaults.m",
                "+appGroupName"
            ),
            advice: "Backed up with the App Group; the SDK caps each value",
            examples: ["Library/Preferences/group.com.example.app.onesignal.plist"]),
        OwnerEntry(
            "Mozilla Glean", [.path("Library/Application Support/glean_data")],
            holds: "Glean's telemetry database (221 KB in a public real device backup)", exclusion: .notExcluded,
            source: ("mozilla-mobile/focus-ios", "issue 2247", nil), evidence: .observed,
            advice: "Telemetry is re-creatable: exclude glean_data",
            examples: ["Library/Application Support/glean_data/db/data.safe.bin"]),
    ]
}
