import Crypto
import Foundation

/// Writes a real Finder or iTunes backup folder, as the public readers read one
/// (mvt-project/mvt `src/mvt/ios/modules/backup/manifest.py`, richinfante/iphonebackuptools
/// `schemas/manifest-db/`): `Manifest.db` (SQLite: `Files` and `Properties`), each file's bytes
/// at `XX/FILEID` (fileID = SHA-1 hex of `DOMAIN-RELATIVEPATH`), each row's `file` blob an
/// `MBFile` in NSKeyedArchiver form, and `Manifest.plist`, `Info.plist`, `Status.plist`.
///
/// The blob is written by `PropertyListSerialization` (binary): `$archiver` NSKeyedArchiver,
/// `$version` 100000, `$top` {root: UID}, `$objects` ["$null", the MBFile, its class, its
/// strings, an NSMutableData for `EncryptionKey`]. Neither Foundation has a public type for a
/// plist UID; `uid(_:)` takes one from a parsed binary plist. (NSKeyedArchiver with
/// `setClassName("MBFile", …)` is no way round it: swift-corelibs-foundation ignores the name.)
struct BackupBuilder {
    /// How an encrypted backup is written, without changing the builder: `Manifest.db` is
    /// written plain, then its bytes replaced by `database(bytes)`; each file's bytes by
    /// `file(bytes).bytes`, its MBFile given `EncryptionKey` = `file(bytes).encryptionKey`;
    /// `manifestPlist` is merged into Manifest.plist.
    struct Encryption {
        var manifestPlist: [String: Any]
        var database: ([UInt8]) -> [UInt8]
        var file: ([UInt8]) -> (bytes: [UInt8], encryptionKey: [UInt8])
    }

    enum Flags: Int64 {
        case file = 1
        case directory = 2
        case symlink = 4
    }

    struct Item {
        var domain: String
        var relativePath: String
        var flags: Int64
        /// A file's bytes; its MBFile `Size` is their count unless `size` says otherwise.
        var bytes: [UInt8] = []
        var size: Int64?
        var mode: Int64
        var modified: Int64 = 1_700_000_000
        var inode: Int64 = 0
        var target: String?
        var protectionClass: Int64 = 3
        /// The MBFile's `ExtendedAttributes` (name → value), written as an NSMutableData
        /// holding a binary plist dictionary, as a device records it; nil: no key.
        var extendedAttributes: [String: [UInt8]]?
        /// Hostile rows: these bytes as the `ExtendedAttributes` data instead.
        var extendedAttributesBytes: [UInt8]?
        /// False: the row is written but `XX/FILEID` is not (a backup lacking the bytes).
        var storeBytes = true
        /// Hostile rows: another fileID than the SHA-1, or another blob than an MBFile.
        var fileID: String?
        var blob: [UInt8]?
        /// A relativePath that is not UTF-8 or holds a NUL: these bytes are stored as the
        /// column's text (`CAST(blob AS TEXT)`) instead of `relativePath`.
        var pathBytes: [UInt8]?
    }

    var items: [Item] = []
    var deviceName = "Test iPhone"
    var productVersion = "17.5.1"
    var date = Date(timeIntervalSince1970: 1_731_000_000)
    /// Info.plist "Installed Applications"; nil: no Info.plist.
    var installedApplications: [String]? = []
    var writeManifestPlist = true
    private var nextInode: Int64 = 1000

    static func fileID(_ domain: String, _ relativePath: String) -> String {
        Insecure.SHA1.hash(data: Data((domain + "-" + relativePath).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The domain's root row and the folders on the way to `path`, once each.
    private mutating func parents(_ domain: String, _ path: String) {
        var prefixes = [""]
        let parts = path.split(separator: "/").dropLast()
        for i in parts.indices { prefixes.append(parts[...i].joined(separator: "/")) }
        for p in prefixes where !items.contains(where: { $0.domain == domain && $0.relativePath == p }) {
            items.append(
                Item(domain: domain, relativePath: p, flags: Flags.directory.rawValue, mode: 0o40755, inode: inode()))
        }
    }

    private mutating func inode() -> Int64 {
        nextInode += 1
        return nextInode
    }

    mutating func directory(_ domain: String, _ path: String) {
        parents(domain, path + "/x")
    }

    mutating func file(
        _ domain: String, _ path: String, _ bytes: [UInt8], modified: Int64 = 1_700_000_000, storeBytes: Bool = true
    ) {
        parents(domain, path)
        items.append(
            Item(
                domain: domain, relativePath: path, flags: Flags.file.rawValue, bytes: bytes, mode: 0o100644,
                modified: modified, inode: inode(), storeBytes: storeBytes))
    }

    mutating func file(_ domain: String, _ path: String, size: Int) {
        file(domain, path, [UInt8](repeating: UInt8(ascii: "x"), count: size))
    }

    mutating func symlink(_ domain: String, _ path: String, to target: String) {
        parents(domain, path)
        items.append(
            Item(
                domain: domain, relativePath: path, flags: Flags.symlink.rawValue, size: Int64(target.utf8.count),
                mode: 0o120755, inode: inode(), target: target))
    }

    /// Writes the backup folder at `folder` (created when missing).
    func write(to folder: String, encryption: Encryption? = nil) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let dbPath = folder + "/Manifest.db"
        let db = try SQLiteFile(dbPath)
        try db.transaction {
            try db.execute(
                "CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)"
            )
            try db.execute("CREATE INDEX FilesDomainIdx ON Files(domain)")
            try db.execute("CREATE INDEX FilesRelativePathIdx ON Files(relativePath)")
            try db.execute("CREATE INDEX FilesFlagsIdx ON Files(flags)")
            try db.execute("CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)")
            try db.execute(
                "INSERT INTO Properties (key, value) VALUES ('salt', ?)", [.blob([UInt8](repeating: 7, count: 20))])
            for item in items {
                let id = item.fileID ?? Self.fileID(item.domain, item.relativePath)
                var key: [UInt8]?
                if item.flags == Flags.file.rawValue, item.storeBytes, id.count >= 2 {
                    var bytes = item.bytes
                    if let encryption {
                        let sealed = encryption.file(bytes)
                        bytes = sealed.bytes
                        key = sealed.encryptionKey
                    }
                    let dir = folder + "/" + String(id.prefix(2))
                    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                    try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + id))
                }
                let blob = try item.blob ?? [UInt8](Self.mbFile(item, encryptionKey: key))
                let path = item.pathBytes.map { SQLiteFile.Value.blob($0) } ?? .text(item.relativePath)
                try db.execute(
                    "INSERT INTO Files (fileID, domain, relativePath, flags, file) VALUES (?, ?, CAST(? AS TEXT), "
                        + "?, ?)",
                    [.text(id), .text(item.domain), path, .integer(item.flags), .blob(blob)])
            }
        }
        try db.close()
        if let encryption {
            let plain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dbPath)))
            try Data(encryption.database(plain)).write(to: URL(fileURLWithPath: dbPath))
        }
        if writeManifestPlist {
            var manifest: [String: Any] = [
                "IsEncrypted": encryption != nil, "Version": "10.0", "Date": date, "WasPasscodeSet": false,
                "SystemDomainsVersion": "24.0",
                "Lockdown": [
                    "ProductVersion": productVersion, "DeviceName": deviceName, "ProductType": "iPhone15,2",
                    "BuildVersion": "21F90", "UniqueDeviceID": "00008120-0000000000000000",
                ] as [String: Any],
                "Applications": [:] as [String: Any],
            ]
            for (k, v) in encryption?.manifestPlist ?? [:] { manifest[k] = v }
            try Self.plist(manifest, to: folder + "/Manifest.plist")
        }
        if let installed = installedApplications {
            var apps: [String: Any] = [:]
            for id in installed { apps[id] = ["CFBundleIdentifier": id, "CFBundleVersion": "1"] }
            try Self.plist(
                [
                    "Device Name": deviceName, "Display Name": deviceName, "Product Version": productVersion,
                    "Last Backup Date": date, "Installed Applications": installed, "Applications": apps,
                ], to: folder + "/Info.plist")
        }
        try Self.plist(
            [
                "IsFullBackup": false, "Version": "3.3", "BackupState": "new", "Date": date,
                "SnapshotState": "finished", "UUID": "7A1B2C3D-0000-0000-0000-000000000000",
            ], to: folder + "/Status.plist")
    }

    static func plist(_ object: [String: Any], to path: String) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// The row's MBFile: an NSKeyedArchiver archive, written by PropertyListSerialization as
    /// a binary plist.
    static func mbFile(_ item: Item, encryptionKey: [UInt8]?) throws -> Data {
        func n(_ v: Int64) -> NSNumber { NSNumber(value: v) }
        let size = item.size ?? (item.flags == Flags.file.rawValue ? Int64(item.bytes.count) : 0)
        var root: [String: Any] = [
            "$class": try uid(2), "RelativePath": try uid(3), "Size": n(size), "Mode": n(item.mode),
            "LastModified": n(item.modified), "LastStatusChange": n(item.modified), "Birth": n(item.modified - 86_400),
            "InodeNumber": n(item.inode), "UserID": n(501), "GroupID": n(501),
            "ProtectionClass": n(item.protectionClass), "Flags": n(0),
        ]
        var objects: [Any] = [
            "$null", "root", ["$classname": "MBFile", "$classes": ["MBFile", "NSObject"]], item.relativePath,
        ]
        if let t = item.target {
            root["Target"] = try uid(objects.count)
            objects.append(t)
        }
        if item.extendedAttributes != nil || item.extendedAttributesBytes != nil {
            let plist =
                try item.extendedAttributesBytes.map { Data($0) }
                ?? PropertyListSerialization.data(
                    fromPropertyList: (item.extendedAttributes ?? [:]).mapValues { Data($0) }, format: .binary,
                    options: 0)
            root["ExtendedAttributes"] = try uid(objects.count)
            objects.append(["NS.data": plist, "$class": try uid(objects.count + 1)] as [String: Any])
            objects.append(["$classname": "NSMutableData", "$classes": ["NSMutableData", "NSData", "NSObject"]])
        }
        if let key = encryptionKey {
            root["EncryptionKey"] = try uid(objects.count)
            objects.append(["NS.data": Data(key), "$class": try uid(objects.count + 1)] as [String: Any])
            objects.append(["$classname": "NSMutableData", "$classes": ["NSMutableData", "NSData", "NSObject"]])
        }
        objects[1] = root
        let archive: [String: Any] = [
            "$archiver": "NSKeyedArchiver", "$version": n(100_000), "$top": ["root": try uid(1)], "$objects": objects,
        ]
        return try PropertyListSerialization.data(fromPropertyList: archive, format: .binary, options: 0)
    }

    /// A plist UID (0 to 255): neither Foundation has a public type for one, so it is taken
    /// from a two-object binary plist (an array holding UID `value`) that
    /// PropertyListSerialization parses; it writes it back as a UID.
    static func uid(_ value: Int) throws -> Any {
        func be64(_ v: UInt64) -> [UInt8] {
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
        }
        // Objects at offsets 8 (array of one reference) and 10 (UID, one byte); the offset table at 12.
        let bytes =
            Array("bplist00".utf8) + [0xA1, 0x01, 0x80, UInt8(value), 8, 10]
            + [0, 0, 0, 0, 0, 0, 1, 1] + be64(2) + be64(0) + be64(12)
        guard let array = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [Any],
            let uid = array.first
        else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        return uid
    }
}
