import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// The inventory of a container holding every kind of marker and entry agrees, entry by entry,
/// with the rules of domain.md, computed here independently of the library.
final class InventoryAgreementTests: XCTestCase {
    static let modern = "user.com.apple.metadata:com_apple_backup_excludeItem"
    static let legacy = "user.com.apple.MobileBackup"
    static let depth = 5_000

    struct Built {
        let dir: TempDir
        let root: String
        /// Paths (relative to the data root) that carry the modern attribute, by any carrier.
        var marked: Set<String> = []
        /// Every path the inventory must list when everything is readable.
        var expected: Set<String> = []
        /// Paths inside the unreadable folder.
        var privateFiles: Set<String> = []
    }

    /// Creates `path` (relative) as a directory chain using openat/mkdirat, so depth and
    /// length are not limited by PATH_MAX.
    static func deepChain(root: String, base: String, depth: Int) throws -> [String] {
        var fd = open(root + "/" + base, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { throw SystemError(operation: "open", path: base) }
        var paths: [String] = []
        var current = base
        for _ in 0..<depth {
            guard mkdirat(fd, "d", 0o755) == 0 else { throw SystemError(operation: "mkdirat", path: current) }
            let next = openat(fd, "d", O_RDONLY | O_DIRECTORY)
            close(fd)
            fd = next
            current += "/d"
            paths.append(current)
        }
        let f = openat(fd, "bottom.txt", O_WRONLY | O_CREAT, 0o644)
        _ = "deep".withCString { write(f, $0, 4) }
        close(f)
        close(fd)
        paths.append(current + "/bottom.txt")
        return paths
    }

    static func set(_ path: String, _ name: String, _ value: [UInt8]) throws {
        try XAttr.set(path: Array(path.utf8), name: name, value: value)
    }

    static func build() throws -> Built {
        let dir = try TempDir("agree")
        let root = dir.sub("App")
        var b = Built(dir: dir, root: root)
        func add(_ p: String) { b.expected.insert(p) }
        try Fixture.container(at: root)
        for f in Fixture.standardFolders { add(f) }

        // Plain user data, and an excluded folder marked natively.
        try Fixture.file(root + "/Documents/notes.txt", size: 100)
        add("Documents/notes.txt")
        try Fixture.file(root + "/Documents/Excluded/a.txt", size: 10)
        add("Documents/Excluded")
        add("Documents/Excluded/a.txt")
        try Fixture.file(root + "/Documents/Excluded/sub/b.txt", size: 20)
        add("Documents/Excluded/sub")
        add("Documents/Excluded/sub/b.txt")
        try set(root + "/Documents/Excluded", modern, BackupAttribute.canonicalValue)
        b.marked.insert("Documents/Excluded")

        // All four value classes, natively.
        for cls in AttributeValueClass.allCases {
            let p = "Library/Application Support/native-\(cls.rawValue).bin"
            try Fixture.file(root + "/" + p, size: 2000)
            add(p)
            try set(root + "/" + p, modern, BackupAttribute.sampleValue(cls))
            b.marked.insert(p)
        }
        let empty = "Library/Application Support/native-empty.bin"
        try Fixture.file(root + "/" + empty, size: 5)
        add(empty)
        try set(root + "/" + empty, modern, [])
        b.marked.insert(empty)

        // Legacy attribute alone: not excluded.
        try Fixture.file(root + "/Library/Application Support/legacy.bin", size: 300)
        add("Library/Application Support/legacy.bin")
        try set(root + "/Library/Application Support/legacy.bin", legacy, [1])

        // A `._` sidecar beside a folder; the sidecar itself is not an entry.
        try Fixture.file(root + "/Library/Application Support/Sidecar/inside.bin", size: 400)
        add("Library/Application Support/Sidecar")
        add("Library/Application Support/Sidecar/inside.bin")
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/Sidecar",
            carrier: .sidecar)
        b.marked.insert("Library/Application Support/Sidecar")

        // __MACOSX mirrors: one inside the data root, one beside it.
        try Fixture.file(root + "/Library/Application Support/mirrored.bin", size: 500)
        add("Library/Application Support/mirrored.bin")
        try Fixture.bytes(
            root + "/__MACOSX/Library/Application Support/._mirrored.bin",
            AppleDouble.build(.init(attributes: [(BackupAttribute.exclude.macName, BackupAttribute.canonicalValue)])))
        b.marked.insert("Library/Application Support/mirrored.bin")
        try Fixture.file(root + "/Documents/beside.txt", size: 60)
        add("Documents/beside.txt")
        try Fixture.bytes(
            dir.sub("__MACOSX/App/Documents/._beside.txt"),
            AppleDouble.build(.init(attributes: [(BackupAttribute.exclude.macName, Array("com.apple.backupd".utf8))])))
        b.marked.insert("Documents/beside.txt")

        // Native and sidecar on the same file: either is enough.
        try Fixture.file(root + "/Library/Application Support/both.bin", size: 50)
        add("Library/Application Support/both.bin")
        try set(root + "/Library/Application Support/both.bin", modern, BackupAttribute.canonicalValue)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/both.bin",
            carrier: .sidecar)
        b.marked.insert("Library/Application Support/both.bin")

        // Exclusion inside Caches, a marked folder in Library (other), legacy on a folder.
        try Fixture.file(root + "/Library/Caches/feed.json", size: 70)
        add("Library/Caches/feed.json")
        try set(root + "/Library/Caches/feed.json", modern, BackupAttribute.canonicalValue)
        b.marked.insert("Library/Caches/feed.json")
        try Fixture.file(root + "/Library/WebKit/store", size: 80)
        add("Library/WebKit")
        add("Library/WebKit/store")
        try Fixture.file(root + "/Library/Preferences/com.example.app.plist", size: 90)
        add("Library/Preferences/com.example.app.plist")

        // Hard links across zones: counted once.
        try Fixture.file(root + "/Library/Caches/h2", size: 1000)
        add("Library/Caches/h2")
        XCTAssertEqual(link(root + "/Library/Caches/h2", root + "/Documents/h1"), 0)
        add("Documents/h1")

        // Symlinks: recorded, never followed (one to a directory outside).
        try FileManager.default.createSymbolicLink(
            atPath: root + "/Documents/link-in", withDestinationPath: "notes.txt")
        add("Documents/link-in")
        try FileManager.default.createSymbolicLink(atPath: root + "/Documents/link-out", withDestinationPath: "/etc")
        add("Documents/link-out")

        // A FIFO: recorded, never opened (opening it would block the scan).
        XCTAssertEqual(mkfifo(root + "/tmp/pipe", 0o644), 0)
        add("tmp/pipe")
        try Fixture.file(root + "/tmp/scratch", size: 30)
        add("tmp/scratch")

        // A name that is not UTF-8 (Latin-1 "café.txt"), where the file system takes one (APFS does not).
        if NonUTF8Names.accepted(in: root) {
            let latin1 = Array("Documents/caf".utf8) + [0xE9] + Array(".txt".utf8)
            let raw = Array(root.utf8) + [UInt8(ascii: "/")] + latin1 + [0]
            let fd = raw.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) {
                    open($0, O_WRONLY | O_CREAT, 0o644)
                }
            }
            XCTAssertGreaterThanOrEqual(fd, 0)
            close(fd)
            add(ByteText.display(latin1))
        }

        // Items at the root and system items; what the system writes under Library.
        try Fixture.file(root + "/Stray/x.db", size: 110)
        add("Stray")
        add("Stray/x.db")
        try Fixture.file(root + "/GeoJSON", size: 40)
        add("GeoJSON")
        try Fixture.file(root + "/Library/SplashBoard/Snapshots/main.ktx", size: 130)
        add("Library/SplashBoard")
        add("Library/SplashBoard/Snapshots")
        add("Library/SplashBoard/Snapshots/main.ktx")
        try Fixture.file(root + "/Library/Saved Application State/app.savedState/data.data", size: 140)
        add("Library/Saved Application State")
        add("Library/Saved Application State/app.savedState")
        add("Library/Saved Application State/app.savedState/data.data")
        try Fixture.file(root + "/Library/SyncedPreferences/com.example.app.plist", size: 150)
        add("Library/SyncedPreferences")
        add("Library/SyncedPreferences/com.example.app.plist")
        try Fixture.file(root + "/" + Container.simulatorMetadata, size: 10)
        add(Container.simulatorMetadata)
        try Fixture.file(root + "/SystemData/state", size: 10)
        add("SystemData")
        add("SystemData/state")

        // An unreadable folder (readable to root only through privilege).
        try Fixture.file(root + "/Library/Private/secret.bin", size: 120)
        add("Library/Private")
        b.privateFiles = ["Library/Private/secret.bin"]
        chmod(root + "/Library/Private", 0)

        // A chain 5,000 folders deep: its paths are far beyond PATH_MAX.
        try Fixture.mkdirs(root + "/Library/Application Support/Deep")
        add("Library/Application Support/Deep")
        for p in try deepChain(root: root, base: "Library/Application Support/Deep", depth: depth) { add(p) }
        return b
    }

    /// domain.md §1, written independently of the library.
    static func zone(_ p: String) -> String {
        let parts = p.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch parts[0] {
        case "Documents": return "documents"
        case "tmp": return "tmp"
        case "SystemData", ".com.apple.mobile_container_manager.metadata.plist": return "system"
        case "Library":
            if parts.count == 1 { return "library" }
            switch parts[1] {
            case "Application Support": return "applicationSupport"
            case "Caches": return "caches"
            case "Preferences": return "preferences"
            case "SplashBoard", "Saved Application State", "SyncedPreferences": return "systemLibrary"
            default: return "library"
            }
        default: return "root"
        }
    }

    static func nearestMarked(_ p: String, _ marked: Set<String>) -> String? {
        marked.filter { p == $0 || p.hasPrefix($0 + "/") }.max { $0.count < $1.count }
    }

    /// Set equality with a readable message (paths in the deep chain run to 10 kB).
    func assertSameSet(_ actual: Set<String>, _ expected: Set<String>, _ what: String) {
        func short(_ s: String) -> String { s.count > 120 ? String(s.prefix(60)) + "…(\(s.count) chars)" : s }
        let missing = expected.subtracting(actual).sorted().prefix(5).map(short)
        let extra = actual.subtracting(expected).sorted().prefix(5).map(short)
        XCTAssertTrue(
            missing.isEmpty && extra.isEmpty,
            "\(what): missing \(expected.subtracting(actual).count) \(missing), unexpected "
                + "\(actual.subtracting(expected).count) \(extra)"
        )
    }

    func check(_ entries: [String: [String: Any]], order: [String], built b: Built, readable: Bool) {
        var expected = b.expected
        if readable { expected.formUnion(b.privateFiles) }
        assertSameSet(Set(entries.keys), expected, "inventory paths")
        // Sorted by path bytes.
        let bytes = order.map { p -> [UInt8] in
            if let e = entries[p], let b64 = e["pathBase64"] as? String { return Array(Data(base64Encoded: b64)!) }
            return Array(p.utf8)
        }
        XCTAssertEqual(bytes, bytes.sorted { $0.lexicographicallyPrecedes($1) }, "sorted by path bytes")

        for (path, e) in entries {
            let zone = Self.zone(path)
            XCTAssertEqual(e["zone"] as? String, zone, path)
            if zone == "system" {
                for key in ["excluded", "excludedBy", "backedUp", "survivesUpdate", "survivesRestore"] {
                    XCTAssertTrue(e[key] is NSNull, "\(path): \(key) must be null")
                }
                continue
            }
            let by = Self.nearestMarked(path, b.marked)
            XCTAssertEqual(e["excluded"] as? Bool, by != nil, path)
            XCTAssertEqual(e["excludedBy"] as? String, by, path)
            // MobileBackup: only Documents, Library and GeoJSON, less Caches and the system-written
            // Library folders; a restore also skips Saved Application State and SplashBoard; an
            // update keeps Documents and Library.
            let top = String(path.split(separator: "/").first ?? "")
            let backed =
                ["Documents", "Library", "GeoJSON"].contains(top) && !["caches", "systemLibrary"].contains(zone)
                && by == nil
            XCTAssertEqual(e["backedUp"] as? Bool, backed, path)
            XCTAssertEqual(e["survivesRestore"] as? Bool, backed, path)
            XCTAssertEqual(e["survivesUpdate"] as? Bool, ["Documents", "Library"].contains(top), path)
        }

        // Kinds and the things the walk must not do.
        XCTAssertEqual(entries["tmp/pipe"]?["kind"] as? String, "other")
        XCTAssertEqual(entries["tmp/pipe"]?["special"] as? String, "fifo")
        XCTAssertEqual(entries["Documents/link-out"]?["kind"] as? String, "symlink")
        XCTAssertEqual(entries["Documents/link-out"]?["symlinkTarget"] as? String, "/etc")
        XCTAssertNil(entries["Documents/link-out/hosts"], "a symlink to a folder is not followed")
        // The non-UTF-8 name: display form plus the exact bytes (where it was made: `expected` has it).
        let cafe = entries["Documents/caf\\xE9.txt"]
        if b.expected.contains("Documents/caf\\xE9.txt") {
            XCTAssertEqual(
                cafe?["pathBase64"] as? String,
                Data(Array("Documents/caf".utf8) + [0xE9] + Array(".txt".utf8)).base64EncodedString())
        }
        // Hard links: one counts.
        XCTAssertEqual(entries["Documents/h1"]?["countsInTotals"] as? Bool, true)
        XCTAssertEqual(entries["Library/Caches/h2"]?["countsInTotals"] as? Bool, false)
        // Value classes as found.
        for cls in AttributeValueClass.allCases {
            let attrs =
                entries["Library/Application Support/native-\(cls.rawValue).bin"]?["attributes"] as? [[String: Any]]
            XCTAssertEqual(attrs?.first?["valueClass"] as? String, cls.rawValue)
            XCTAssertEqual(attrs?.first?["source"] as? String, "native")
        }
        let emptyAttrs = entries["Library/Application Support/native-empty.bin"]?["attributes"] as? [[String: Any]]
        XCTAssertEqual(emptyAttrs?.first?["valueClass"] as? String, "other")
        let legacy = entries["Library/Application Support/legacy.bin"]?["attributes"] as? [[String: Any]]
        XCTAssertEqual(legacy?.first?["attribute"] as? String, "com.apple.MobileBackup")
        let both = (entries["Library/Application Support/both.bin"]?["attributes"] as? [[String: Any]])?.compactMap {
            $0["source"] as? String
        }
        XCTAssertEqual(both?.sorted(), ["appledouble", "native"])
        let mirrored = entries["Library/Application Support/mirrored.bin"]?["attributes"] as? [[String: Any]]
        XCTAssertEqual(mirrored?.first?["source"] as? String, "macosx")
        let beside = entries["Documents/beside.txt"]?["attributes"] as? [[String: Any]]
        XCTAssertEqual(beside?.first?["valueClass"] as? String, "string")
        // The bottom of the deep chain.
        let bottom = "Library/Application Support/Deep" + String(repeating: "/d", count: Self.depth) + "/bottom.txt"
        XCTAssertEqual(entries[bottom]?["size"] as? Int, 4)
    }

    func testInventoryAgreesWithDomainRulesEntryByEntry() throws {
        let b = try Self.build()
        if geteuid() == 0 {
            // Root reads everything, so the unreadable folder is only unreadable to an
            // unprivileged user: run the same binary as nobody too.
            let asRoot = try CLI.inventory(b.root)
            XCTAssertEqual(asRoot.result.status, 0, asRoot.result.stderr)
            check(asRoot.entries, order: asRoot.order, built: b, readable: true)
        }
        let asUser = try CLI.inventory(b.root, asNobody: geteuid() == 0)
        // The folder it could not list: the banner scan shows, and exit 1 (inventory's contract too).
        XCTAssertEqual(asUser.result.status, 1, asUser.result.stderr)
        XCTAssertTrue(asUser.result.stderr.hasPrefix("INCOMPLETE SCAN: 1 item could not be read"), asUser.result.stderr)
        check(asUser.entries, order: asUser.order, built: b, readable: false)

        // The scan reports what it could not read, and goes on.
        let scan = try CLI.run(["scan", "--format", "json", b.root], asNobody: geteuid() == 0)
        let json = try JSONSerialization.jsonObject(with: scan.stdoutBytes) as! [String: Any]
        let findings = json["findings"] as! [[String: Any]]
        let unreadable = findings.filter { $0["ruleId"] as? String == "unreadable-entry" }
        XCTAssertEqual(unreadable.compactMap { $0["path"] as? String }, ["Library/Private"])
        XCTAssertTrue((unreadable.first?["message"] as? String ?? "").contains("Permission denied"))
    }

    func testTotalsCountHardLinksOnceAndLeaveSystemOut() throws {
        let b = try Self.build()
        chmod(b.root + "/Library/Private", 0o755)
        let inv = try Audit.inventory(of: b.root)
        // h1 (Documents) and h2 (Caches) are one file of 1,000 bytes: counted in Documents.
        XCTAssertEqual(inv.zoneTotals[.caches]?.size, 70)
        // Symlinks add nothing: a backup records Size 0 for them (link-in, link-out).
        let docs = 100 + 60 + 1000 + 10 + 20  // notes, beside, h1, Excluded/*
        XCTAssertEqual(inv.zoneTotals[.documents]?.size, Int64(docs))
        XCTAssertNil(inv.zoneTotals[.system])
        XCTAssertEqual(inv.total.size, inv.zoneTotals.values.reduce(0) { $0 + $1.size })
        XCTAssertEqual(
            inv.backupFootprint,
            inv.entries.filter { $0.countsInTotals && $0.backedUp == true && $0.entry.kind == .file }.reduce(0) {
                $0 + $1.entry.size
            })
    }
}
