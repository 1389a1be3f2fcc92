import SandboxAuditCore
import SandboxAuditSystem

/// Crash reporters, performance monitors and loggers: each one's own folder or file, by the
/// exact name its source builds (a reverse-DNS folder, or a name with the vendor in it).
extension OwnerCatalogue {
    static let diagnostics: [OwnerEntry] = [
        OwnerEntry(
            "PLCrashReporter", [.path("Library/Caches/com.plausiblelabs.crashreporter.data")],
            holds:
                "PLCrashReporter's pending crash reports, one folder per bundle ID (also App Center Crashes and "
                + "others built on it)",
            exclusion: .notNeeded,
            source: ("microsoft/plcrashreporter", "Source/PLCrashReporter.m", "57, 929-934"),
            advice: "Not backed up (Caches); purge reports once sent (purgePendingCrashReport)",
            examples: ["Library/Caches/com.plausiblelabs.crashreporter.data/com.example.app/live_report.plcrash"]),
        OwnerEntry(
            "KSCrash", [.path("Library/Caches/KSCrash")],
            holds: "KSCrash's crash reports and state, in a folder named after the app", exclusion: .notNeeded,
            source: ("kstenerud/KSCrash", "Sources/KSCrashRecording/KSCrash.m", "73-87"),
            advice: "Not backed up (Caches)",
            examples: [
                "Library/Caches/KSCrash/Example/Reports/Example-report-0001.json",
                "Library/Caches/KSCrash/Example/Data/state.json",
            ]),
        OwnerEntry(
            "Sentry", [.path("Library/Caches/SentryCrash")],
            holds:
                "SentryCrash's crash reports and state (Sentry's KSCrash fork), under the SDK's cache directory "
                + "(Caches by default)",
            exclusion: .notNeeded,
            source: ("getsentry/sentry-cocoa", "Sources/SentryCrash/Recording/SentryCrash.m", "238-239"),
            advice: "Not backed up (Caches); moved elsewhere only when Options.cacheDirectoryPath is",
            examples: ["Library/Caches/SentryCrash/Example/Reports/Example-report-0001.json"]),
        OwnerEntry(
            "Rollbar", [.path("Library/Caches/RollbarCrash")],
            holds: "Rollbar's crash reports (RollbarCrash, a KSCrash fork), in a folder named after the app",
            exclusion: .notNeeded,
            source: (
                "rollbar/rollbar-apple", "RollbarNotifier/Sources/RollbarCrash/Recording/RollbarCrashHandler.m", "71-89"
            ),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/RollbarCrash/Example/Reports/report-1.json"]),
        OwnerEntry(
            "Raygun", [.path("Library/Caches/com.raygun")],
            holds: "Raygun's crash reports waiting to be sent", exclusion: .notNeeded,
            source: ("MindscapeHQ/raygun4apple", "Sources/Raygun/RaygunFileManager.m", "64-72"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/com.raygun/crashes/1.json"]),
        OwnerEntry(
            "Embrace", [.path("Library/Application Support/io.embrace.data")],
            holds: "Embrace's sessions, spans, logs, crash reports and upload queue "
                + "(io.embrace.data/v6/<partition>/…)",
            exclusion: .notExcluded, note: "no exclusion anywhere in the SDK's sources",
            source: ("embrace-io/embrace-apple-sdk", "Sources/EmbraceCore/FileSystem/EmbraceFileSystem.swift", "9-53"),
            advice:
                "Telemetry waiting to be sent need not survive a restore: exclude Library/Application "
                + "Support/io.embrace.data after the SDK starts, or ask upstream to",
            examples: [
                "Library/Application Support/io.embrace.data/v6/default/storage/EmbraceData.sqlite",
                "Library/Application Support/io.embrace.data/v6/default/uploads/upload-1",
            ]),
        OwnerEntry(
            "Bugsnag", [.path("Library/Caches/bugsnag-performance-*/*")],
            holds: "BugSnag Performance's persistent state, device ID and retry queue", exclusion: .notNeeded,
            source: ("bugsnag/bugsnag-cocoa-performance", "Sources/BugsnagPerformance/Private/Persistence.mm", "19"),
            advice: "Not backed up (Caches)",
            examples: ["Library/Caches/bugsnag-performance-com.example.app/v1/persistent-state.json"]),
        OwnerEntry(
            "App Center", [.path("Library/Application Support/com.microsoft.appcenter")],
            holds: "Visual Studio App Center's log database (Logs.sqlite) and crash files", exclusion: .excluded,
            note: "set on every folder the SDK creates",
            source: (
                "microsoft/appcenter-sdk-apple", "AppCenter/AppCenter/Internals/Util/MSACUtility+File.m",
                "152-176, 202-210"
            ),
            advice: "Nothing to do: excluded by the SDK",
            examples: [
                "Library/Application Support/com.microsoft.appcenter/Logs.sqlite",
                "Library/Application Support/com.microsoft.appcenter/crasheswrapperexceptions/1.ms",
            ]),
        OwnerEntry(
            "bitdrift Capture", [.path("Library/Application Support/bitdrift_capture")],
            holds: "bitdrift Capture's disk ring buffers of logs and its state", exclusion: .notExcluded,
            note: "no exclusion in platform/swift",
            source: ("bitdriftlabs/capture-sdk", "platform/swift/source/Logger.swift", "367-376"),
            advice: "Buffers of logs need not survive a restore: exclude Library/Application Support/bitdrift_capture",
            examples: ["Library/Application Support/bitdrift_capture/buffers/default"]),
        // Loggers: the folder "Logs" in Caches is generic, so only CocoaLumberjack's own file
        // names (`<app> <yyyy-MM-dd--HH-mm-ss-SSS>.log`, DDFileLogger.m newLogFileName) are its.
        OwnerEntry(
            "CocoaLumberjack",
            [
                .path(
                    "Library/Caches/Logs/* "
                        + "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]--[0-9][0-9]-[0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
                        + "[0-9].log"
                )
            ],
            holds: "DDFileLogger's rolling log files (the app's name and a timestamp)", exclusion: .notNeeded,
            source: (
                "CocoaLumberjack/CocoaLumberjack", "Sources/CocoaLumberjack/DDFileLogger.m", "106, 280-293, 443-449"
            ),
            advice: "Not backed up (Caches); bound them with maximumNumberOfLogFiles and logFilesDiskQuota",
            examples: ["Library/Caches/Logs/com.example.app 2026-11-27--08-30-00-123.log"]),
        OwnerEntry(
            "SwiftyBeaver", [.path("Library/Caches/swiftybeaver.log")],
            holds: "SwiftyBeaver FileDestination's default log file", exclusion: .notNeeded,
            source: ("SwiftyBeaver/SwiftyBeaver", "Sources/FileDestination.swift", "77-90"),
            advice: "Not backed up (Caches); set logFileMaxSize and logFileAmount to rotate it",
            examples: ["Library/Caches/swiftybeaver.log"]),
        OwnerEntry(
            "Pulse", [.path("Library/Logs/com.github.kean.logger")],
            holds: "Pulse's logger store (current.pulse: logs and recorded network traffic)", exclusion: .excluded,
            note: "set when the folder already exists, so from the second launch on",
            source: ("kean/Pulse", "Sources/Pulse/Helpers/Helpers.swift", "13-17, 36-51"),
            advice:
                "Excluded by the library after the first launch; keep Pulse out of release builds, or bound it with "
                + "LoggerStore's sizeLimit",
            examples: ["Library/Logs/com.github.kean.logger/current.pulse/logs.sqlite"]),
    ]
}
