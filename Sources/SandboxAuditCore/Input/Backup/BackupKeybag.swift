import SandboxAuditSystem

/// The keybag of an encrypted Finder or iTunes backup: `Manifest.plist`'s `BackupKeyBag`, a run
/// of TLV records (a 4-byte ASCII tag, a 4-byte big-endian length, the value).
///
/// The keybag's own records come first (`VERS`, `TYPE`, `UUID`, `HMCK`, `WRAP`, `SALT`,
/// `ITER`, `DPWT`, `DPIC`, `DPSL`); every later `UUID` starts a class key, whose `CLAS`,
/// `WRAP`, `KTYP`, `WPKY` (and `PBKY`) records follow it. This is the layout the public readers
/// parse: iphone_backup_decrypt (https://github.com/jsharkey13/iphone_backup_decrypt, its
/// `google_iphone_dataprotection.py`), iOSbackup (https://github.com/avibrazil/iOSbackup) and
/// pyiosbackup (https://github.com/matan1008/pyiosbackup).
///
/// Parsing is bounded: at most `maximumBytes` of keybag and `maximumClassKeys` class keys, and
/// iteration counts above `maximumSHA256Rounds` / `maximumSHA1Rounds` are refused before any
/// key derivation runs (a hostile keybag must not keep the tool busy for hours). Every refusal
/// is a one-line `InputError`.
struct BackupKeybag: Sendable {
    /// One protection class's key, still wrapped.
    struct ClassKey: Sendable {
        /// The protection class (`CLAS`): 1…11 in the backups the public readers decode.
        let protectionClass: UInt32
        /// `WRAP`: bit 2 set means wrapped with the key derived from the backup password.
        let wrap: UInt32
        /// `KTYP`: 0 AES, 1 Curve25519; nil when the record is absent.
        let keyType: UInt32?
        /// `WPKY`: the wrapped key (RFC 3394, 40 bytes for a 32-byte key); nil when absent.
        let wrappedKey: [UInt8]?
    }

    /// A real backup's keybag is about 2 KB; more than 64 KiB is refused.
    static let maximumBytes = 65_536
    /// A real backup's keybag holds 10 or 11 class keys; more than 64 is refused.
    static let maximumClassKeys = 64
    /// Real backups use `DPIC` 10,000,000 (PBKDF2-HMAC-SHA256); above 50,000,000 is refused.
    static let maximumSHA256Rounds = 50_000_000
    /// Real backups use `ITER` 10,000 (PBKDF2-HMAC-SHA1); above 10,000,000 is refused.
    static let maximumSHA1Rounds = 10_000_000
    /// Salts (`SALT`, `DPSL`) are 20 bytes in real backups; longer than 1 KiB is refused.
    static let maximumSaltBytes = 1024

    /// `VERS`, `TYPE` (1 is a backup keybag) and the keybag's own `UUID`, when present.
    let version: UInt32?
    let type: UInt32?
    let uuid: [UInt8]?
    /// `SALT` and `ITER`: the PBKDF2-HMAC-SHA1 step.
    let salt: [UInt8]
    let iterations: Int
    /// `DPSL` and `DPIC`: the PBKDF2-HMAC-SHA256 step that comes first (iOS 10.2 and later);
    /// nil in older keybags, whose password key is the SHA-1 step alone.
    let doubleProtectionSalt: [UInt8]?
    let doubleProtectionIterations: Int?
    /// The class keys, in keybag order.
    let classKeys: [ClassKey]

    static let classKeyTags: Set<String> = ["CLAS", "WRAP", "KTYP", "WPKY", "PBKY"]

    /// Parses the keybag; `place` names it in errors ("Manifest.plist BackupKeyBag").
    init(_ bytes: [UInt8], place: String = "Manifest.plist BackupKeyBag") throws {
        func refuse(_ what: String) -> InputError { InputError("\(place): \(what)") }
        guard !bytes.isEmpty else { throw refuse("is empty") }
        guard bytes.count <= Self.maximumBytes else {
            throw refuse("is \(bytes.count) bytes, over the limit of \(Self.maximumBytes)")
        }
        var keybag: [String: [UInt8]] = [:]
        var classes: [[String: [UInt8]]] = []
        var current: [String: [UInt8]]? = nil
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else {
                throw refuse(
                    "\(bytes.count - offset) stray bytes at byte \(offset), too few for a record (8-byte header)")
            }
            let tagBytes = bytes[offset..<offset + 4]
            guard tagBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw refuse("no ASCII tag at byte \(offset): not a keybag, or garbled")
            }
            let tag = String(decoding: tagBytes, as: UTF8.self)
            let length = Int(Self.bigEndian(bytes[offset + 4..<offset + 8]))
            let start = offset + 8
            guard length <= bytes.count - start else {
                throw refuse(
                    "record \(tag) at byte \(offset) says \(length) bytes, past the keybag's end (\(bytes.count) bytes)"
                )
            }
            let value = Array(bytes[start..<start + length])
            offset = start + length
            if tag == "UUID" && keybag["UUID"] != nil {
                if let c = current { classes.append(c) }
                guard classes.count < Self.maximumClassKeys else {
                    throw refuse("more than \(Self.maximumClassKeys) class keys")
                }
                current = ["UUID": value]
            } else if current != nil && Self.classKeyTags.contains(tag) {
                guard current?[tag] == nil else { throw refuse("class key record \(tag) twice at byte \(start - 8)") }
                current?[tag] = value
            } else if tag == "WRAP" || !Self.classKeyTags.contains(tag) {
                guard keybag[tag] == nil else { throw refuse("record \(tag) twice (byte \(start - 8))") }
                keybag[tag] = value
            } else {
                throw refuse("class key record \(tag) at byte \(start - 8) before any class key's UUID")
            }
        }
        if let c = current { classes.append(c) }

        func integer(_ record: [UInt8]?, _ tag: String) throws -> UInt32? {
            guard let record else { return nil }
            guard record.count == 4 else {
                throw refuse("record \(tag) is \(record.count) bytes, not a 4-byte integer")
            }
            return Self.bigEndian(record[...])
        }
        func rounds(_ tag: String, limit: Int) throws -> Int? {
            guard let n = try integer(keybag[tag], tag) else { return nil }
            guard n >= 1 else { throw refuse("\(tag) is 0 iterations") }
            guard Int(n) <= limit else { throw refuse("\(tag) is \(n) iterations, over the limit of \(limit)") }
            return Int(n)
        }
        func saltRecord(_ tag: String) throws -> [UInt8]? {
            guard let s = keybag[tag] else { return nil }
            guard !s.isEmpty, s.count <= Self.maximumSaltBytes else {
                throw refuse("\(tag) is \(s.count) bytes (1…\(Self.maximumSaltBytes) expected)")
            }
            return s
        }
        version = try integer(keybag["VERS"], "VERS")
        type = try integer(keybag["TYPE"], "TYPE")
        uuid = keybag["UUID"]
        guard let salt = try saltRecord("SALT") else { throw refuse("has no SALT record") }
        guard let iterations = try rounds("ITER", limit: Self.maximumSHA1Rounds) else {
            throw refuse("has no ITER record")
        }
        self.salt = salt
        self.iterations = iterations
        doubleProtectionSalt = try saltRecord("DPSL")
        doubleProtectionIterations = try rounds("DPIC", limit: Self.maximumSHA256Rounds)
        guard (doubleProtectionSalt == nil) == (doubleProtectionIterations == nil) else {
            throw refuse("has one of DPSL and DPIC without the other")
        }
        var seen: Set<UInt32> = []
        classKeys = try classes.map { record in
            guard let protectionClass = try integer(record["CLAS"], "CLAS") else {
                throw refuse("a class key has no CLAS record")
            }
            guard seen.insert(protectionClass).inserted else { throw refuse("class \(protectionClass) has two keys") }
            return ClassKey(
                protectionClass: protectionClass, wrap: try integer(record["WRAP"], "WRAP") ?? 0,
                keyType: try integer(record["KTYP"], "KTYP"), wrappedKey: record["WPKY"])
        }
        guard !classKeys.isEmpty else { throw refuse("holds no class keys") }
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
