import SandboxAuditSystem

/// A file's data protection class, as a device backup records it (`MBFile` `ProtectionClass`
/// in `Manifest.db`): when the device can read the file. Only a backup shows it: a copied
/// container, an `.xcappdata` or a Simulator has no classes (docs/what-ios-backs-up.md, "Data
/// protection"). The numbers are the kernel's (apple-oss-distributions/xnu,
/// `bsd/sys/content_protection.h`: `PROTECTION_CLASS_A` 1 … `D` 4, `CX` 7), named as Foundation
/// names them (apple/swift-foundation, `FileManager+Files.swift`,
/// `FileProtectionType.init(intValue:)`: `CX` is `completeWhenUserInactive`, iOS 17;
/// https://github.com/apple/swift-foundation/blob/main/Sources/FoundationEssentials/FileManager/FileManager+Files.swift
/// ), and as the public backup readers decode them (jsharkey13/iphone_backup_decrypt,
/// `src/iphone_backup_decrypt/google_iphone_dataprotection.py`, `_PROTECTION_CLASSES`).
package struct ProtectionClass: Sendable, Hashable {
    /// The number recorded (1 to 4 are the file classes; any other is kept as it is).
    package let number: Int64

    /// The class a row records, or nil when it records none (no key, or 0: most folders and
    /// symlinks).
    package init?(recorded: Int64?) {
        guard let recorded, recorded != 0 else { return nil }
        number = recorded
    }

    package static let complete = ProtectionClass(recorded: 1)!
    package static let completeUnlessOpen = ProtectionClass(recorded: 2)!
    package static let completeUntilFirstUserAuthentication = ProtectionClass(recorded: 3)!
    package static let none = ProtectionClass(recorded: 4)!
    /// `completeWhenUserInactive` (iOS 17): readable after an unlock, until the user has been
    /// inactive for a while.
    package static let completeWhenUserInactive = ProtectionClass(recorded: 7)!
    /// The four file classes, strongest first.
    package static let known: [ProtectionClass] = [
        .complete, .completeUnlessOpen, .completeUntilFirstUserAuthentication, .none,
    ]

    /// `FileProtectionType`'s name (`complete` …), or `class N` for another number.
    package var name: String {
        switch number {
        case 1: return "complete"
        case 2: return "completeUnlessOpen"
        case 3: return "completeUntilFirstUserAuthentication"
        case 4: return "none"
        case 7: return "completeWhenUserInactive"
        default: return "class \(number)"
        }
    }

    /// The order reports list classes in: the four file classes strongest first, then the
    /// other numbers (`completeWhenUserInactive` among them) in increasing order, negative
    /// numbers last of all.
    package static func listedBefore(_ a: ProtectionClass, _ b: ProtectionClass) -> Bool {
        func rank(_ c: ProtectionClass) -> (Int, Int64) {
            if (1...4).contains(c.number) { return (0, c.number) }
            return c.number > 0 ? (1, c.number) : (2, -c.number)
        }
        return rank(a) < rank(b)
    }

    /// When the device can read a file of this class.
    package var readable: String {
        switch number {
        case 1: return "only while the device is unlocked"
        case 2: return "while unlocked, or while it stays open from before the lock"
        case 3: return "after the first unlock since the device started"
        case 4: return "always"
        case 7: return "after an unlock, until the user has been inactive for a while (iOS 17)"
        default: return "unknown (not one of the four file classes)"
        }
    }

    /// Strength, 0 the weakest (`none`) to 3 (`complete`); nil for a number that is none of the four.
    package var strength: Int? { (1...4).contains(number) ? Int(4 - number) : nil }

    /// True when this class lets the device read the file in more states than `other` allows;
    /// false when either is none of the four classes (they cannot be compared).
    package func isWeaker(than other: ProtectionClass) -> Bool {
        guard let a = strength, let b = other.strength else { return false }
        return a < b
    }

    /// The class a policy names (`complete`, `completeUnlessOpen`,
    /// `completeUntilFirstUserAuthentication`, `none`).
    package init?(name: String) {
        guard let c = Self.known.first(where: { $0.name == name }) else { return nil }
        self = c
    }
}
