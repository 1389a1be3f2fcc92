import Foundation

/// What a backup's plists say about it, for the reports' identity line. Every field is
/// optional: `Manifest.plist`, `Info.plist` and `Status.plist` are read when present, never
/// required.
struct BackupIdentity: Sendable, Equatable {
    var deviceName: String?
    /// The iOS version the device ran (`Lockdown` `ProductVersion`).
    var productVersion: String?
    /// When the backup was made, ISO 8601 (Manifest.plist `Date`, else Status.plist's, else
    /// Info.plist's `Last Backup Date`).
    var date: String?
    var isEncrypted = false

    init(deviceName: String? = nil, productVersion: String? = nil, date: String? = nil, isEncrypted: Bool = false) {
        self.deviceName = deviceName
        self.productVersion = productVersion
        self.date = date
        self.isEncrypted = isEncrypted
    }

    /// "backup of NAME, iOS VERSION, DATE" with what is known; "encrypted" when it is.
    var summary: String {
        var parts = ["backup" + (deviceName.map { " of \($0)" } ?? "")]
        if let v = productVersion { parts.append("iOS \(v)") }
        if let d = date { parts.append(d) }
        if isEncrypted { parts.append("encrypted") }
        return parts.joined(separator: ", ")
    }
}

/// A Finder or iTunes backup folder (`~/Library/Application Support/MobileSync/Backup/UDID`):
/// a directory holding `Manifest.db`. Nothing in it is written; the plists are read bounded,
/// as a container's identity plists are.
struct BackupFolder: Sendable {
    /// The path as the user gave it.
    let input: String
    /// Its real path: every file read lies below it.
    let path: String
    let identity: BackupIdentity
    /// Info.plist "Installed Applications": the apps the device had, for error messages.
    let installedApplications: [String]
    var isEncrypted: Bool { identity.isEncrypted }
    /// Manifest.plist `BackupKeyBag` and `ManifestKey`: what the password unlocks.
    let keyBag: [UInt8]?
    let manifestKey: [UInt8]?

    static let manifestDatabase = "Manifest.db"

    /// True when `input` is a directory holding a `Manifest.db` regular file.
    static func isBackup(_ input: String) -> Bool {
        let trimmed = input.count > 1 && input.hasSuffix("/") ? String(input.dropLast()) : input
        return Container.isDirectory(resolved(trimmed)) && Container.fileExists(resolved(trimmed) + "/" + manifestDatabase)
    }

    /// The real path of a folder (the input may be a symlink to it).
    static func resolved(_ path: String) -> String {
        Paths.real(path.utf8).map { String(decoding: $0, as: UTF8.self) } ?? path
    }

    /// Opens the backup folder at `input`; throws `InputError` when it is not one.
    static func open(_ input: String) throws -> BackupFolder {
        guard isBackup(input) else { throw InputError("\(input) is not a backup folder: it holds no Manifest.db") }
        let trimmed = input.count > 1 && input.hasSuffix("/") ? String(input.dropLast()) : input
        let path = resolved(trimmed)
        if let e = Paths.cannotList(path) {
            throw InputError("cannot read \(input): \(errorText(e.code).lowercased())")
        }
        let manifest = Container.readPlist(path + "/Manifest.plist") ?? [:]
        let info = Container.readPlist(path + "/Info.plist") ?? [:]
        let status = Container.readPlist(path + "/Status.plist") ?? [:]
        let lockdown = manifest["Lockdown"] as? [String: Any] ?? [:]
        var identity = BackupIdentity()
        identity.deviceName = (lockdown["DeviceName"] as? String) ?? (info["Device Name"] as? String) ?? (info["Display Name"] as? String)
        identity.productVersion = (lockdown["ProductVersion"] as? String) ?? (info["Product Version"] as? String)
        let date = (manifest["Date"] as? Date) ?? (status["Date"] as? Date) ?? (info["Last Backup Date"] as? Date)
        identity.date = date.map { ISO8601DateFormatter().string(from: $0) }
        let encrypted = manifest["IsEncrypted"]
        identity.isEncrypted = (encrypted as? Bool) ?? ((encrypted as? NSNumber)?.boolValue ?? false)
        let installed = (info["Installed Applications"] as? [Any] ?? []).compactMap { $0 as? String }
        return BackupFolder(input: input, path: path, identity: identity, installedApplications: installed,
                            keyBag: (manifest["BackupKeyBag"] as? Data).map { Array($0) },
                            manifestKey: (manifest["ManifestKey"] as? Data).map { Array($0) })
    }

    /// What decrypts this backup with `password`: nil when it is not encrypted, or when no
    /// password was given (reading it then fails with `encryptedError`). A wrong password, a
    /// missing or malformed keybag: one-line `InputError`s.
    func cipher(password: String?) throws -> (any BackupCipher)? {
        guard isEncrypted, let password else { return nil }
        var entries: [String: Any] = [:]
        if let keyBag { entries["BackupKeyBag"] = Data(keyBag) }
        if let manifestKey { entries["ManifestKey"] = Data(manifestKey) }
        do {
            return try BackupDecryption(manifestPlist: entries, password: password)
        } catch let e as InputError {
            throw InputError("\(input): \(e.message)")
        }
    }

    /// Where a row's bytes are: `XX/FILEID`, below the backup folder. Nil for a fileID that is
    /// not 40 hexadecimal digits, which could name a path anywhere.
    func filePath(_ fileID: String) -> String? {
        guard Self.isFileID(fileID) else { return nil }
        return path + "/" + fileID.prefix(2) + "/" + fileID
    }

    /// 40 hexadecimal digits: a SHA-1, as every fileID is.
    static func isFileID(_ s: String) -> Bool {
        s.utf8.count == 40 && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
    }

    /// The apps the backup holds, for an error: Info.plist "Installed Applications" and the
    /// identifiers of the `AppDomain-*` domains.
    func apps(domains: [String]) -> [String] {
        let prefix = ContainerRole.app.domainPrefix
        let fromDomains = domains.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        return Array(Set(installedApplications + fromDomains)).sorted()
    }

    /// The one-line error for an encrypted backup read without a cipher.
    var encryptedError: InputError {
        InputError("\(input) is an encrypted backup: give its password with --password-file FILE or in the environment variable SANDBOX_AUDIT_BACKUP_PASSWORD")
    }
}
