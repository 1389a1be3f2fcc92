import SandboxAuditCore
import SandboxAuditSystem

/// The public sources rule rationales cite, by title and URL, and where the project's own
/// documentation lives. User-facing text cites these, never a file users do not have.
package enum References {
    /// The project's repository (`Project.repository`). Every link to the documentation (SARIF
    /// `helpUri`, the driver's `informationUri`, the rule links of the HTML and Markdown reports)
    /// is built from it: a fork or a mirror changes Support/Project.swift.
    package static var repository: String { Project.repositoryURL }

    /// A file of the repository's default branch, as a browsable URL.
    package static func repositoryFile(_ path: String) -> String { "\(repository)/blob/main/\(path)" }

    /// The rule's section of docs/rules.md.
    package static func ruleHelp(_ id: String) -> String { repositoryFile("docs/rules.md") + "#" + id }

    // Apple's documentation.
    package static let optimizingForICloudBackup =
        "Apple, Optimizing Your App's Data for iCloud Backup: "
        + "https://developer.apple.com/documentation/foundation/optimizing-your-app-s-data-for-icloud-backup"
    package static let dataStorageGuidelines =
        "Apple, iOS Data Storage Guidelines: https://developer.apple.com/icloud/documentation/data-storage/index.html"
    package static let fileSystemBasics =
        "Apple, File System Programming Guide, File System Basics: "
        + "https://developer.apple.com/library/archive/documentation/FileManagement/Conceptual/"
        + "FileSystemProgrammingGuide/FileSystemOverview/FileSystemOverview.html"
    package static let appProgrammingGuideURL =
        "https://developer.apple.com/library/archive/documentation/iPhone/Conceptual/iPhoneOSProgrammingGuide/"
        + "StrategiesforImplementingYourApp/StrategiesforImplementingYourApp.html"
    static let backupBestPractices =
        "Apple, App Programming Guide for iOS, App Backup Best Practices: \(appProgrammingGuideURL)"
    static let filesSavedDuringUpdates =
        "Apple, App Programming Guide for iOS, Files Saved During App Updates: \(appProgrammingGuideURL)"
    package static let qa1719 =
        "Apple, Technical Q&A QA1719, How do I prevent files from being backed up to iCloud and iTunes?: "
        + "https://developer.apple.com/library/archive/qa/qa1719/_index.html"
    package static let isExcludedFromBackup =
        "Apple, URLResourceValues.isExcludedFromBackup: "
        + "https://developer.apple.com/documentation/foundation/urlresourcevalues/isexcludedfrombackup"
    static let isExcludedFromBackupKey =
        "Apple, URLResourceKey.isExcludedFromBackupKey: "
        + "https://developer.apple.com/documentation/foundation/urlresourcekey/isexcludedfrombackupkey"
    package static let sizeLimitExceeded =
        "Apple, UserDefaults.sizeLimitExceededNotification: "
        + "https://developer.apple.com/documentation/foundation/userdefaults/sizelimitexceedednotification"
    package static let reviewGuidelines =
        "App Store Review Guidelines: https://developer.apple.com/app-store/review/guidelines/"

    /// The project's own account of what iOS's backup carries, and the evidence.
    static var whatIOSBacksUp: String {
        "sandbox-audit, What iOS backs up: \(repositoryFile("docs/what-ios-backs-up.md"))"
    }

    /// The classes of exclusion values the scan recognises (the JSON inventory's `valueClass`).
    static var valueClasses: String { "sandbox-audit, Inventory format: \(repositoryFile("docs/inventory-format.md"))" }

    /// A public GitHub issue quoted as a case.
    static func issue(_ repo: String, _ number: Int) -> String { "https://github.com/\(repo)/issues/\(number)" }
}
