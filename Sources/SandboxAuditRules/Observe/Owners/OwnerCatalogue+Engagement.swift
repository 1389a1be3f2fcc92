import SandboxAuditCore
import SandboxAuditSystem

/// Feature flags, product analytics and customer messaging SDKs (and the Objective-C
/// predecessors of Segment and Amplitude's Swift SDKs), each by the exact name its source builds.
extension OwnerCatalogue {
    static let engagement: [OwnerEntry] = [
        OwnerEntry(
            "LaunchDarkly", [.suite("com.launchdarkly.client.*")],
            holds: "LaunchDarkly's cached flag values per context (a UserDefaults suite per mobile key)",
            exclusion: .notExcluded,
            note: "a UserDefaults suite: backed up with Library/Preferences",
            source: (
                "launchdarkly/ios-client-sdk", "LaunchDarkly/LaunchDarkly/ServiceObjects/Cache/FeatureFlagCache.swift",
                "71"
            ),
            advice: "Bound it with LDConfig.maxCachedContexts: each cached context adds its flags to the suite",
            examples: ["Library/Preferences/com.launchdarkly.client.abc123.plist"]),
        OwnerEntry(
            "Optimizely", [.path("Documents/OPTEventQueue"), .path("Documents/OPTEvent-ODP-*")],
            holds: "Optimizely's queue of events waiting to be sent, and its ODP event queue (files in Documents)",
            exclusion: .notExcluded,
            note:
                "in Documents: visible in the Files app when file sharing is on; the datafile cache is named after "
                + "the SDK key, so it is not attributed",
            source: ("optimizely/swift-sdk", "Sources/Implementation/Datastore/DataStoreFile.swift", "33-46"),
            advice:
                "A queue that is sent and emptied: flush it (flushEvents), or pass "
                + "DefaultEventDispatcher(backingStore: .memory); ask upstream to use Caches or Application "
                + "Support",
            examples: ["Documents/OPTEventQueue", "Documents/OPTEvent-ODP-SDKKEY"]),
        OwnerEntry(
            "Statsig", [.path("Library/Caches/statsig-cache"), .path("Library/Caches/statsig-cache-data")],
            holds: "Statsig's cached evaluations and its file-backed defaults", exclusion: .notNeeded,
            source: ("statsig-io/statsig-kit", "Sources/Statsig/Storage/FileStorageAdapter.swift", "4-7"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/statsig-cache/values", "Library/Caches/statsig-cache-data"]),
        OwnerEntry(
            "PostHog", [.path("Library/Application Support/*/posthog.*")],
            holds:
                "PostHog's event, replay and log queues (folders) and its identity and flag files, in a folder named "
                + "after the bundle ID",
            exclusion: .partly, note: "the key files are excluded as written; the queue folders' event files are not",
            source: ("PostHog/posthog-ios", "PostHog/PostHogStorage.swift", "19-31, 228-240, 290-303"),
            advice:
                "Flush the queue (PostHogSDK.shared.flush()) and report queue files in the backup upstream "
                + "(posthog-ios issue 664)",
            examples: [
                "Library/Application Support/com.example.app/posthog.queueFolder.uuid/0191-event",
                "Library/Application Support/com.example.app/posthog.distinctId",
            ]),
        OwnerEntry(
            "Snowplow", [.path("Library/snowplow")], legacy: [.path("Library/snowplowEvents.sqlite")],
            holds: "Snowplow's event store (snowplowEvents-<namespace>.sqlite)", exclusion: .notExcluded,
            history: "older releases kept one Library/snowplowEvents.sqlite, moved into Library/snowplow on launch",
            source: ("snowplow/snowplow-ios-tracker", "Sources/Core/Storage/Database.swift", "23-36"),
            advice: "Events are sent and deleted: exclude Library/snowplow, or ask upstream to",
            examples: ["Library/snowplow/snowplowEvents-appTracker.sqlite", "Library/snowplowEvents.sqlite"]),
        OwnerEntry(
            "Countly", [.path("Library/Application Support/Countly.dat")],
            holds: "Countly's persisted queue of requests and events (one archive)", exclusion: .notExcluded,
            source: ("Countly/countly-sdk-ios", "CountlyPersistency.m", "430-468"),
            advice: "A queue that is sent and emptied: exclude Countly.dat after the SDK starts",
            examples: ["Library/Application Support/Countly.dat"]),
        OwnerEntry(
            "RudderStack", sqlite("Library/rl_persistence.sqlite") + sqlite("Library/rl_persistence_encrypted.sqlite"),
            holds: "RudderStack's event queue (SQLite at the root of Library, or its SQLCipher copy)",
            exclusion: .notExcluded,
            source: ("rudderlabs/rudder-sdk-ios", "Sources/Classes/RSUtils.m", "38-46"),
            advice: "A queue that is sent and emptied: exclude the database after the SDK opens it",
            examples: ["Library/rl_persistence.sqlite", "Library/rl_persistence_encrypted.sqlite"]),
        OwnerEntry(
            "Segment",
            [
                .path("Library/Application Support/segmentio.queue.plist"),
                .path("Library/Application Support/segmentio.traits.plist"),
                .path("Library/Application Support/segment.anonymousId"),
                .path("Library/Application Support/analytics.settings.v2.plist"),
            ],
            holds: "analytics-ios (Segment's Objective-C SDK): its queue, traits, anonymous ID and cached settings",
            exclusion: .excluded,
            note: "set on each file as it is written",
            source: ("segmentio/analytics-ios", "Segment/Internal/SEGFileStorage.m", "51-74, 133-139"),
            advice: "Nothing to do: excluded by the SDK",
            examples: [
                "Library/Application Support/segmentio.queue.plist", "Library/Application Support/segment.anonymousId",
            ]),
        OwnerEntry(
            "Amplitude", [.path("Library/com.amplitude.database"), .path("Library/com.amplitude.database_*")],
            holds: "Amplitude-iOS (the Objective-C SDK): its event database, one per instance", exclusion: .notExcluded,
            history: "older releases kept it in Caches and move it to Library (Amplitude.m)",
            source: ("amplitude/Amplitude-iOS", "Sources/Amplitude/AMPDatabaseHelper.m", "123-131"),
            advice:
                "Events are sent and deleted: exclude the database file, or move to Amplitude-Swift, which excludes "
                + "its folder",
            examples: ["Library/com.amplitude.database", "Library/com.amplitude.database_secondary"]),
        OwnerEntry(
            "Customer.io", [.path("Library/Application Support/io.customer")],
            holds: "Customer.io's background queue (inventory and task files per site ID)", exclusion: .notExcluded,
            note: "no exclusion in FileStorage.swift, which writes the queue",
            source: ("customerio/customerio-ios", "Sources/Common/Util/FileStorage.swift", "115-127"),
            advice: "A queue that is sent and emptied: exclude Library/Application Support/io.customer",
            examples: [
                "Library/Application Support/io.customer/SITEID/queue/inventory.json",
                "Library/Application Support/io.customer/SITEID/queue/tasks/1.json",
            ]),
        OwnerEntry(
            "Klaviyo", [.path("Library/klaviyo-*-state.json"), .path("Library/klaviyo-*-*.plist")],
            holds: "Klaviyo's SDK state (profile and queued requests) at the root of Library", exclusion: .notExcluded,
            source: ("klaviyo/klaviyo-swift-sdk", "Sources/KlaviyoSwift/StateManagement/KlaviyoState.swift", "330-334"),
            advice: "Small unless requests pile up offline; nothing to do unless it grows",
            examples: ["Library/klaviyo-APIKEY-state.json", "Library/klaviyo-APIKEY-events.plist"]),
        OwnerEntry(
            "CleverTap", sqlite("Documents/CleverTap-Events.db"),
            holds: "CleverTap's event database", exclusion: .notExcluded,
            note: "in Documents: visible in the Files app when file sharing is on",
            source: ("CleverTap/clevertap-ios-sdk", "CleverTapSDK/EventDatabase/CTEventDatabase.m", "580-584"),
            advice:
                "Backed up and user-visible: exclude the database after the SDK opens it, and ask upstream to move "
                + "it out of Documents",
            examples: ["Documents/CleverTap-Events.db", "Documents/CleverTap-Events.db-wal"]),
        OwnerEntry(
            "CleverTap", [.path("Library/clevertap-*-*.plist")],
            holds:
                "CleverTap's queues (events, profile, notifications), user profile and instance config (plists at "
                + "the root of Library)",
            exclusion: .notExcluded,
            source: ("CleverTap/clevertap-ios-sdk", "CleverTapSDK/CTPreferences.m", "70-78"),
            advice: "Queues are sent and emptied; nothing to do unless they grow",
            examples: ["Library/clevertap-ACCOUNT-events.plist", "Library/clevertap-ACCOUNT-DEVICE-userprofile.plist"]),
        OwnerEntry(
            "Leanplum", sqlite("Documents/__leanplum.sqlite"),
            holds: "Leanplum's request queue (SQLite in Documents)", exclusion: .excluded,
            note: "excluded, but in Documents: visible in the Files app when file sharing is on",
            source: (
                "Leanplum/Leanplum-iOS-SDK", "LeanplumSDK/LeanplumSDK/Classes/Utilities/LPDatabase.m", "61, 95-98"
            ),
            advice: "Excluded by the SDK; keep UIFileSharingEnabled off, or it shows in the Files app",
            examples: ["Documents/__leanplum.sqlite"]),
        OwnerEntry(
            "Iterable", [.path("Library/Application Support/itbl_inapp.json")],
            holds: "Iterable's cached in-app messages", exclusion: .notExcluded,
            source: ("Iterable/iterable-swift-sdk", "swift-sdk/Internal/in-app/InAppPersistence.swift", "406, 435-442"),
            advice: "Messages can be fetched again: exclude the file, or ask upstream to use Caches",
            examples: ["Library/Application Support/itbl_inapp.json"]),
        OwnerEntry(
            "Appcues", [.path("Documents/appcues/activity"), .suite("com.appcues.storage.*")],
            holds: "Appcues' queue of analytics activity (files in Documents) and its settings (a UserDefaults suite)",
            exclusion: .notExcluded,
            note: "in Documents: visible in the Files app when file sharing is on",
            source: (
                "appcues/appcues-ios-sdk", "Sources/AppcuesKit/Data/Analytics/Storage/ActivityFileStorage.swift",
                "28-29, 72-77"
            ),
            advice: "A queue that is sent and emptied: ask upstream to move it out of Documents",
            examples: ["Documents/appcues/activity/APPID/5E2C", "Library/Preferences/com.appcues.storage.APPID.plist"]),
        OwnerEntry(
            "TelemetryDeck", [.path("Library/Caches/telemetrysignalcache"), .suite("com.telemetrydeck.*")],
            holds: "TelemetryDeck's unsent signals (Caches) and its defaults suite", exclusion: .partly,
            note: "the signal cache is in Caches; the suite is backed up",
            source: ("TelemetryDeck/SwiftSDK", "Sources/TelemetryDeck/Signals/SignalCache.swift", "68-75"),
            advice: "Nothing to do: the signals are in Caches and the suite is small",
            examples: [
                "Library/Caches/telemetrysignalcache", "Library/Preferences/com.telemetrydeck.0123456789ab.plist",
            ]),
        OwnerEntry(
            "Apptentive",
            [.path("Library/Application Support/com.apptentive.feedback"), .path("Library/Caches/com.apptentive")],
            holds: "Apptentive's conversation, message store and attachments (Application Support) and its cache",
            exclusion: .notExcluded,
            note: "no exclusion anywhere in the SDK's sources; the cache folder is in Caches",
            source: (
                "apptentive/apptentive-ios", "Apptentive/Apptentive/Persistence/ApptentiveBackend.m", "90, 769-775"
            ),
            advice: "The conversation is meant to survive; attachments can be large: report growth upstream",
            examples: [
                "Library/Application Support/com.apptentive.feedback/conversation-v1.archive",
                "Library/Caches/com.apptentive/image.png",
            ]),
        OwnerEntry(
            "Airship", [.path("Library/com.urbanairship.no-backup")],
            holds: "Airship's Core Data stores (events, remote data, inbox, automation)", exclusion: .unknown,
            note:
                "the folder's name says no-backup; UACoreData.swift sets no exclusion, and the rest of the SDK was "
                + "not read",
            source: (
                "urbanairship/ios-library", "Airship/AirshipCore/Source/UACoreData.swift", "19, storeSQLDirectory"
            ),
            advice: "Check the folder's verdict in the scan: if it is backed up, exclude it after Airship starts",
            examples: [
                "Library/com.urbanairship.no-backup/STORE.sqlite",
                "Library/com.urbanairship.no-backup/STORE.sqlite-wal",
            ]),
    ]
}
