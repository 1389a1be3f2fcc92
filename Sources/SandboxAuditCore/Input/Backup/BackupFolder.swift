import Foundation
import SandboxAuditSystem

/// What a backup's plists say about it, for the reports' identity line. Every field is
/// optional: `Manifest.plist`, `Info.plist` and `Status.plist` are read when present, never
/// required.
package struct BackupIdentity: Sendable, Equatable {
    package var deviceName: String?
    /// The iOS version the device ran (`Lockdown` `ProductVersion`).
    package var productVersion: String?
    /// When the backup was made, ISO 8601 (Manifest.plist `Date`, else Status.plist's, else
    /// Info.plist's `Last Backup Date`).
    package var date: String?
    package var isEncrypted = false

    init(deviceName: String? = nil, productVersion: String? = nil, date: String? = nil, isEncrypted: Bool = false) {
        self.deviceName = deviceName
        self.productVersion = productVersion
        self.date = date
        self.isEncrypted = isEncrypted
    }

    /// "backup of NAME, iOS VERSION, DATE" with what is known; "encrypted" when it is.
    package var summary: String {
        var parts = ["backup" + (deviceName.map { " of \($0)" } ?? "")]
        if let v = productVersion { parts.append("iOS \(v)") }
        if let d = date { parts.append(d) }
        if isEncrypted { parts.append("encrypted") }
        return parts.joined(separator: ", ")
    }
}

/// A Finder or iTunes backup folder (`~/Library/Application Support/MobileSync/Backup/UDID`):
/// a directory holding `Manifest.db`. Nothing in it is written. It is opened once
/// (`directory`), and everything read from it, `Manifest.db`, the plists and every
/// `XX/FILEID`, is opened relative to that descriptor, never through a symlink: a folder
/// renamed or swapped by path while the run goes on changes nothing it reads.
package struct BackupFolder: Sendable {
    /// The path as the user gave it.
    let input: String
    /// Its real path, for the reports (files are read through `directory`, not by path).
    package let path: String
    /// The folder, opened once for the whole run.
    let directory: HeldDescriptor
    package let identity: BackupIdentity
    /// Info.plist "Installed Applications": the apps the device had, for error messages.
    let installedApplications: [String]
    var isEncrypted: Bool { identity.isEncrypted }
    /// Manifest.plist `BackupKeyBag` and `ManifestKey`: what the password unlocks.
    let keyBag: [UInt8]?
    let manifestKey: [UInt8]?

    static let manifestDatabase = "Manifest.db"

    /// True when `input` is a directory holding an entry named `Manifest.db`, of any kind: one
    /// that is not a regular file is refused by `open`, which says what it is.
    static func isBackup(_ input: String) -> Bool {
        let trimmed = input.count > 1 && input.hasSuffix("/") ? String(input.dropLast()) : input
        let folder = resolved(trimmed)
        return Container.isDirectory(folder)
            && (try? FileDescriptor.currentDirectory.status(of: (folder + "/" + manifestDatabase).utf8)) != nil
    }

    /// The real path of a folder (the input may be a symlink to it).
    static func resolved(_ path: String) -> String {
        Paths.real(path.utf8).map { String(decoding: $0, as: UTF8.self) } ?? path
    }

    /// Opens the backup folder at `input`; throws `InputError` when it is not one, or when its
    /// `Manifest.db` is not a regular file (a symlink, a FIFO, a folder: named, never opened).
    static func open(_ input: String) throws -> BackupFolder {
        guard isBackup(input) else { throw InputError("\(input) is not a backup folder: it holds no Manifest.db") }
        let trimmed = input.count > 1 && input.hasSuffix("/") ? String(input.dropLast()) : input
        let path = resolved(trimmed)
        if let e = Paths.cannotList(path) {
            throw InputError("cannot read \(input): \(errorText(e.code).lowercased())")
        }
        let directory: HeldDescriptor
        do { directory = try HeldDescriptor.directory(path.utf8) } catch {
            throw InputError("cannot read \(input): \(errorText(error.code).lowercased())")
        }
        switch Result(catching: { () throws(Errno) in try directory.descriptor.status(of: manifestDatabase.utf8) }) {
        case .success(let status) where status.kind != .regular:
            throw InputError(
                "cannot read \(input)/\(manifestDatabase): it is \(kindPhrase(status.kind)), not a regular file (a "
                    + "backup's Manifest.db is a SQLite file; nothing is followed or opened)"
            )
        case .failure(let e):
            throw InputError("cannot read \(input)/\(manifestDatabase): \(errorText(e.code).lowercased())")
        case .success: break
        }
        let manifest = readPlist("Manifest.plist", in: directory) ?? [:]
        let info = readPlist("Info.plist", in: directory) ?? [:]
        let status = readPlist("Status.plist", in: directory) ?? [:]
        let lockdown = manifest["Lockdown"] as? [String: Any] ?? [:]
        var identity = BackupIdentity()
        identity.deviceName =
            (lockdown["DeviceName"] as? String) ?? (info["Device Name"] as? String) ?? (info["Display Name"] as? String)
        identity.productVersion = (lockdown["ProductVersion"] as? String) ?? (info["Product Version"] as? String)
        let date = (manifest["Date"] as? Date) ?? (status["Date"] as? Date) ?? (info["Last Backup Date"] as? Date)
        identity.date = date.map { ISO8601DateFormatter().string(from: $0) }
        let encrypted = manifest["IsEncrypted"]
        identity.isEncrypted = (encrypted as? Bool) ?? ((encrypted as? NSNumber)?.boolValue ?? false)
        let installed = (info["Installed Applications"] as? [Any] ?? []).compactMap { $0 as? String }
        return BackupFolder(
            input: input, path: path, directory: directory, identity: identity, installedApplications: installed,
            keyBag: (manifest["BackupKeyBag"] as? Data).map { Array($0) },
            manifestKey: (manifest["ManifestKey"] as? Data).map { Array($0) })
    }

    /// A plist of the folder as a dictionary, read through the held descriptor (no symlink
    /// followed, no blocking on a FIFO, at most `Container.maximumIdentityPlistSize`); nil when
    /// missing, unreadable, too large or not a dictionary (every field is optional).
    static func readPlist(_ name: String, in directory: HeldDescriptor) -> [String: Any]? {
        let limit = Container.maximumIdentityPlistSize
        guard let bytes = try? directory.descriptor.readFile(name.utf8, limit: limit + 1), bytes.count <= limit else {
            return nil
        }
        return BoundedPlist.dictionary(bytes, maximumSize: limit)
    }

    /// "a symbolic link", "a FIFO", "a folder" …: what an entry that should be a file is.
    static func kindPhrase(_ kind: FileStatus.Kind) -> String {
        switch kind {
        case .regular: return "a regular file"
        case .directory: return "a folder"
        case .symlink: return "a symbolic link"
        case .fifo: return "a FIFO"
        case .socket: return "a socket"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .unknown: return "not a regular file"
        }
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

    /// 40 hexadecimal digits: a SHA-1, as every fileID is.
    static func isFileID(_ s: String) -> Bool {
        func hex(_ c: UInt8) -> Bool { (48...57).contains(c) || (97...102).contains(c) || (65...70).contains(c) }
        return s.utf8.withContiguousStorageIfAvailable { $0.count == 40 && $0.allSatisfy(hex) }
            ?? (s.utf8.count == 40 && s.utf8.allSatisfy(hex))
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
        InputError(
            "\(input) is an encrypted backup: give its password with --password-file FILE or in the environment "
                + "variable SANDBOX_AUDIT_BACKUP_PASSWORD"
        )
    }
}
