import SandboxAuditCore
import SandboxAuditSystem

/// A small container that shows a rule firing or not: what the catalogue documents and what
/// the test suite builds on disk (real files, real attributes) and scans.
package struct RuleExample: Sendable {
    package let title: String
    package let items: [Item]
    /// For triggering examples: the paths the rule must report ("." for the container).
    package let expectedPaths: [String]

    /// A policy file (YAML) the example is scanned with, for the rules that need one.
    package let policy: String?
    /// The container the example is (`--kind`): an app's data container unless said.
    package let role: ContainerRole
    /// For the rules that compare two observations of the container: its items when the
    /// baseline was written. The harness writes them, records a baseline from a real scan, then
    /// changes the container in place into `items` and scans it with that baseline.
    package let before: [Item]?
    /// Paths of `before` that an atomic write replaced (a new file renamed over the old one: a
    /// new inode, no attributes) on the way to `items`; every other path is kept and changed in
    /// place (its size, and its attributes set or removed).
    package let recreated: [String]
    /// For the rules that hold the prediction against a real backup: what the backup holds of
    /// the app's domain (paths relative to the domain root, kinds, sizes). The harness builds a
    /// real backup folder of it and scans the example with `--against-backup`.
    package let backup: [Item]?
    /// True for the rules that only a device backup can feed (data protection): the harness
    /// writes `items` as a real backup folder (Manifest.db, MBFile blobs with each item's
    /// `protection`, XX/FILEID bytes), the domain of `role` (an extension's or App Group's beside
    /// an app domain), and scans the backup.
    package let backupInput: Bool
    /// For the rules that read the app's own Info.plist: the keys it sets to true. The harness
    /// writes it beside the container and scans with `--app-info`.
    package let appInfoKeys: [String]?
    /// For the rules that read the app's code: its source files (path to text). The harness
    /// writes them in a folder beside the container and scans with `--sources`.
    package let sources: [String: String]?

    init(
        _ title: String, _ items: [Item], expect: [String] = [], policy: String? = nil, role: ContainerRole = .app,
        before: [Item]? = nil, recreated: [String] = [], backup: [Item]? = nil, backupInput: Bool = false,
        appInfoKeys: [String]? = nil, sources: [String: String]? = nil
    ) {
        self.title = title
        self.items = items
        self.expectedPaths = expect
        self.policy = policy
        self.role = role
        self.before = before
        self.recreated = recreated
        self.backup = backup
        self.backupInput = backupInput
        self.appInfoKeys = appInfoKeys
        self.sources = sources
    }

    /// How an example carries an exclude or legacy attribute.
    /// `macosx`: a `._NAME` in a `__MACOSX` mirror folder at the data root, as unzipping a
    /// Finder archive leaves it.
    package typealias Carrier = BackupMarker.Carrier

    package struct Mark: Sendable {
        package let attribute: BackupAttribute
        package let value: [UInt8]
        package let carrier: Carrier

        static func exclude(_ valueClass: AttributeValueClass = .canonical, via carrier: Carrier = .native) -> Mark {
            Mark(attribute: .exclude, value: BackupAttribute.sampleValue(valueClass), carrier: carrier)
        }
        static func legacy(via carrier: Carrier = .native) -> Mark {
            Mark(attribute: .legacy, value: BackupAttribute.legacyValue, carrier: carrier)
        }
        /// One of the two scoped names, with the value seen on Apple's own files.
        static func scoped(_ attribute: BackupAttribute, via carrier: Carrier = .native) -> Mark {
            Mark(attribute: attribute, value: Array(BackupAttribute.legacy.macName.utf8), carrier: carrier)
        }
        static func raw(_ bytes: [UInt8], via carrier: Carrier = .native) -> Mark {
            Mark(attribute: .exclude, value: bytes, carrier: carrier)
        }
    }

    package struct Item: Sendable {
        package enum Kind: Sendable {
            case file(size: Int)
            case directory
            case symlink(target: String)
            case fifo
            /// A hard link to another item of the example.
            case hardLink(to: String)
            /// Raw bytes written as a file (a malformed sidecar, say).
            case bytes([UInt8])
            /// A binary property list holding a dictionary of `Data` values of the given sizes:
            /// a UserDefaults domain too large to spell out as bytes.
            case plist(keys: [(key: String, size: Int)])
            /// A folder holding `count` regular files of `size` bytes each, named `file-00000` …
            case files(count: Int, size: Int)
        }
        package let path: String
        package let kind: Kind
        package let marks: [Mark]
        /// Modification time this many seconds before now.
        package let age: Double?
        /// The data protection class a backup records for it (`backupInput` examples only).
        package var protection: ProtectionClass? = nil

        /// The item at data protection class `c` in the example's backup.
        func at(_ c: ProtectionClass) -> Item {
            var item = self
            item.protection = c
            return item
        }
        /// A one-page SQLite database (its header, then zeros).
        static func sqlite(_ path: String) -> Item { bytes(path, VolatileStore.sampleSQLiteFile) }

        static func file(_ path: String, size: Int = 16, _ marks: Mark..., age: Double? = nil) -> Item {
            Item(path: path, kind: .file(size: size), marks: marks, age: age)
        }
        static func directory(_ path: String, _ marks: Mark...) -> Item {
            Item(path: path, kind: .directory, marks: marks, age: nil)
        }
        static func symlink(_ path: String, to target: String) -> Item {
            Item(path: path, kind: .symlink(target: target), marks: [], age: nil)
        }
        static func fifo(_ path: String) -> Item { Item(path: path, kind: .fifo, marks: [], age: nil) }
        static func hardLink(_ path: String, to other: String) -> Item {
            Item(path: path, kind: .hardLink(to: other), marks: [], age: nil)
        }
        static func bytes(_ path: String, _ content: [UInt8]) -> Item {
            Item(path: path, kind: .bytes(content), marks: [], age: nil)
        }
        static func plist(_ path: String, keys: [(String, Int)]) -> Item {
            Item(path: path, kind: .plist(keys: keys.map { (key: $0.0, size: $0.1) }), marks: [], age: nil)
        }
        /// Marks apply to the folder.
        static func files(_ folder: String, count: Int, size: Int = 0, _ marks: Mark...) -> Item {
            Item(path: folder, kind: .files(count: count, size: size), marks: marks, age: nil)
        }
    }
}
