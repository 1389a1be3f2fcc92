import Foundation
import SandboxAuditSystem

/// The exclude-from-backup attributes (docs/what-ios-backs-up.md): the one `isExcludedFromBackup`
/// writes, its legacy form, and two scoped names seen only on Apple's own files, which change
/// no verdict.
public enum BackupAttribute: String, Sendable, CaseIterable {
    /// `com.apple.metadata:com_apple_backup_excludeItem`: what `isExcludedFromBackup` writes.
    /// Its presence excludes the item, whatever the value.
    case exclude = "com.apple.metadata:com_apple_backup_excludeItem"
    /// `com.apple.MobileBackup`: honoured by iOS 5.0.1 only (QA1719). Does not exclude.
    case legacy = "com.apple.MobileBackup"
    /// Undocumented; by its name, an exclusion from iCloud backups only. Seen in a real
    /// device backup on one of Apple's own folders. Changes no verdict.
    case cloudExclude = "com.apple.metadata:com_apple_cloudBackup_excludeItem"
    /// Undocumented; by its name, an exclusion from unencrypted computer backups only. Seen
    /// beside `cloudExclude`, value `com.apple.MobileBackup`. Changes no verdict.
    case unencryptedExclude = "com.apple.metadata:com_apple_unencryptedBackup_excludeItem"

    /// The two scoped names: recognised and reported, never taken as an exclusion.
    package var isScoped: Bool { self == .cloudExclude || self == .unencryptedExclude }

    /// What the attribute means, in a phrase (inventory lines, reports).
    public var meaning: String {
        switch self {
        case .exclude: return "excludes the item from iCloud and computer backups (what isExcludedFromBackup writes)"
        case .legacy: return "the legacy exclusion, honoured by iOS 5.0.1 only: excludes nothing today"
        case .cloudExclude:
            return
                "undocumented, seen only on Apple's own files; by its name, an exclusion from iCloud backups only: "
                + "this tool takes it as no exclusion"
        case .unencryptedExclude:
            return
                "undocumented, seen only on Apple's own files; by its name, an exclusion from unencrypted computer "
                + "backups only: this tool takes it as no exclusion"
        }
    }

    /// How reports and the rules catalogue name it.
    package var shortName: String {
        switch self {
        case .exclude: return "exclude attribute"
        case .legacy: return "legacy com.apple.MobileBackup"
        case .cloudExclude: return "scoped com_apple_cloudBackup_excludeItem"
        case .unencryptedExclude: return "scoped com_apple_unencryptedBackup_excludeItem"
        }
    }

    /// The macOS name, as carried in AppleDouble sidecars and archives from macOS.
    public var macName: String { rawValue }
    /// The Linux name: Linux keeps attributes in namespaces, so copies from macOS
    /// (`rsync -X`, GNU tar) carry the name under `user.`.
    var linuxName: String { "user." + rawValue }

    /// The name this platform's file system takes when writing natively.
    package var nativeName: String {
        #if os(Linux)
            return linuxName
        #else
            return macName
        #endif
    }

    /// Recognises either spelling of either attribute.
    package init?(attributeName name: [UInt8]) {
        for a in BackupAttribute.allCases
        where name.elementsEqual(a.macName.utf8) || name.elementsEqual(a.linuxName.utf8) {
            self = a
            return
        }
        return nil
    }

    /// What `URLResourceValues.isExcludedFromBackup` writes: a binary plist holding the
    /// string `com.apple.backupd` (61 bytes).
    package static let canonicalValue: [UInt8] = hexBytes(
        "62706c69737430305f1011636f6d2e6170706c652e6261636b7570640800000000000001010000000000000001000000000000000000"
            + "0000000000001c"
    )
    static let backupdString = "com.apple.backupd"
    /// The legacy attribute's documented value.
    public static let legacyValue: [UInt8] = [0x01]

    private static func hexBytes(_ hex: String) -> [UInt8] {
        var out = [UInt8]()
        var it = hex.makeIterator()
        while let a = it.next(), let b = it.next() { out.append(UInt8(String([a, b]), radix: 16)!) }
        return out
    }
}

/// How the value of the exclude attribute is encoded.
public enum AttributeValueClass: String, Sendable, Codable, CaseIterable {
    /// A binary plist holding the string `com.apple.backupd` (what the API writes).
    case canonical
    /// The raw UTF-8 string `com.apple.backupd` (`xattr -w`).
    case string
    /// Any other XML or binary plist (an XML plist of the string, `<true/>` …).
    case plistOther = "plist-other"
    /// Anything else, including an empty value, the bare text `true`, or the byte 1 that Apple
    /// documents for the legacy attribute (QA1719) written under the exclude attribute's name.
    case other

    /// Values larger than this are not parsed as plists (Linux caps an attribute at 64 KiB).
    static let maximumPlistSize = 64 * 1024

    package static func classify(_ value: [UInt8]) -> AttributeValueClass {
        if value == BackupAttribute.canonicalValue { return .canonical }
        if value.elementsEqual(BackupAttribute.backupdString.utf8) { return .string }
        // Only XML and binary plists count: Foundation's OpenStep parser would take almost any
        // bare word (`true`, even `com.apple.backupd`) as a plist string. BoundedPlist refuses
        // anything else, and hostile plists (reference bombs, deep nesting) too.
        guard case .success(let parsed) = BoundedPlist.decode(value, maximumSize: maximumPlistSize) else {
            return .other
        }
        if parsed.format == .binary, let s = parsed.object as? String, s == BackupAttribute.backupdString {
            return .canonical
        }
        return .plistOther
    }
}

/// Where an attribute was found.
public enum AttributeSource: Hashable, Sendable {
    /// A native extended attribute, under the name given.
    case native(name: String)
    /// An AppleDouble `._NAME` file beside the entry (path relative to the data root).
    case appleDouble(sidecar: ContainerPath)
    /// An AppleDouble file in a `__MACOSX/` mirror tree (path relative to the input's parent
    /// folders, as found).
    case macosxMirror(sidecar: String)
    /// A device backup's record of the item: its `Manifest.db` row's MBFile `ExtendedAttributes`,
    /// under the name given (the item carried it as a native attribute on the device).
    case manifest(name: String)

    public var kind: String {
        switch self {
        case .native: return "native"
        case .appleDouble: return "appledouble"
        case .macosxMirror: return "macosx"
        case .manifest: return "manifest"
        }
    }

    public var detail: String {
        switch self {
        case .native(let name): return name
        case .appleDouble(let p): return p.display
        case .macosxMirror(let p): return p
        case .manifest(let name): return name
        }
    }
}

/// One backup attribute found on an entry.
public struct AttributeMark: Hashable, Sendable {
    public let attribute: BackupAttribute
    public let value: [UInt8]
    public let source: AttributeSource

    init(attribute: BackupAttribute, value: [UInt8], source: AttributeSource) {
        self.attribute = attribute
        self.value = value
        self.source = source
    }

    /// The value's encoding; meaningful for the exclude attribute.
    public var valueClass: AttributeValueClass { AttributeValueClass.classify(value) }
}

extension AttributeMark {
    /// The backup attributes among an AppleDouble file's, as marks that came from `source`.
    static func marks(in sidecar: AppleDouble.Parsed, source: AttributeSource) -> [AttributeMark] {
        sidecar.entries.compactMap { a in
            BackupAttribute(attributeName: a.name).map { AttributeMark(attribute: $0, value: a.value, source: source) }
        }
    }

    /// The backup attributes among an entry's native extended attributes (others are not read).
    static func nativeMarks(_ target: XAttr.Target) throws -> [AttributeMark] {
        var marks: [AttributeMark] = []
        for name in try XAttr.names(target) {
            guard let attribute = BackupAttribute(attributeName: name) else { continue }
            let n = String(decoding: name, as: UTF8.self)
            if let value = try XAttr.value(target, name: n) {
                marks.append(AttributeMark(attribute: attribute, value: value, source: .native(name: n)))
            }
        }
        return marks
    }
}

extension BackupAttribute {
    /// A value of the given class, as seen in the wild (docs/inventory-format.md, `valueClass`).
    public static func sampleValue(_ valueClass: AttributeValueClass) -> [UInt8] {
        switch valueClass {
        case .canonical: return canonicalValue
        case .string: return Array(backupdString.utf8)
        case .plistOther:
            return Array(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <string>com.apple.backupd</string>
                </plist>

                """.utf8)
        case .other: return Array("true".utf8)
        }
    }
}
