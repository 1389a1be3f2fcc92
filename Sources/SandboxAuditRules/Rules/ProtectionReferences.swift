import SandboxAuditCore
import SandboxAuditSystem

/// The public sources the data protection rules cite.
extension References {
    static let fileProtectionType =
        "Apple, FileProtectionType: https://developer.apple.com/documentation/foundation/fileprotectiontype"
    static let onDiskEncryption =
        "Apple, App Programming Guide for iOS, Protecting Data Using On-Disk Encryption: \(appProgrammingGuideURL)"
    static let backupClassNumbers =
        "the class numbers as the kernel defines them and public backup readers decode them: "
        + "apple-oss-distributions/xnu (bsd/sys/content_protection.h: PROTECTION_CLASS_A 1 to D 4, CX 7), "
        + "apple/swift-foundation (FileManager+Files.swift, "
        + "https://github.com/apple/swift-foundation/blob/main/Sources/FoundationEssentials/FileManager/"
        + "FileManager+Files.swift: FileProtectionType(intValue:), CX is completeWhenUserInactive), "
        + "jsharkey13/iphone_backup_decrypt (src/iphone_backup_decrypt/google_iphone_dataprotection.py: "
        + "_PROTECTION_CLASSES), dinosec/iphone-dataprotection (emf.h: \"class keys 1 to 4 are used for "
        + "files\")"
    static let grdbLockedGroupStore = "groue/GRDB.swift#1688: \(issue("groue/GRDB.swift", 1688))"
    static let mixpanelFileProtection =
        "mixpanel/mixpanel-swift PR #705, Use iOS file-protection flag when opening DB: "
        + "https://github.com/mixpanel/mixpanel-swift/pull/705"
    static let sqliteWAL = "SQLite, Write-Ahead Logging: https://www.sqlite.org/wal.html"
}
