import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The rules that look inside files or across groups of files: large-user-defaults,
/// split-store-backup, volatile-store, many-backed-up-files (beyond their catalogue examples).
final class ContentRuleTests: XCTestCase {
    static let prefs = "Library/Preferences/com.example.app.plist"

    func findings(_ dir: TempDir, _ ruleId: String, settings: RuleSettings = RuleSettings()) throws -> [Finding] {
        try audit(dir.path, settings: settings).findings.filter { $0.ruleId == ruleId }
    }

    static func binaryPlist(_ object: Any) throws -> Data {
        try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    /// A binary plist of one `Data` value, exactly `size` bytes long.
    static func plist(exactSize size: Int) throws -> Data {
        var n = size - 64
        for _ in 0..<8 {
            let data = try binaryPlist(["blob": Data(count: n)])
            if data.count == size { return data }
            n += size - data.count
        }
        throw SystemError(operation: "plist of \(size) bytes", path: "")
    }

    // MARK: large-user-defaults

    func testUserDefaultsSeverityBoundaries() throws {
        // Real plists around the warning size; around the error size, where parsing a plist
        // takes seconds on Linux, files that do not parse (the severity goes by size alone).
        let cases: [(Int, Bool, Severity?)] = [
            (512 * 1024 - 1, true, nil), (512 * 1024, true, .warning),
            (4 * 1024 * 1024 - 1, false, .warning), (4 * 1024 * 1024, false, .error),
        ]
        for (size, parseable, expected) in cases {
            let dir = try TempDir()
            try Fixture.container(at: dir.path)
            if parseable {
                try Fixture.bytes(dir.sub(Self.prefs), Array(try Self.plist(exactSize: size)))
            } else {
                try Fixture.file(dir.sub(Self.prefs), size: size)
            }
            let f = try findings(dir, "large-user-defaults")
            XCTAssertEqual(f.map(\.severity), expected.map { [$0] } ?? [], "\(size) bytes")
            guard expected != nil, let message = f.first?.message else { continue }
            XCTAssertEqual(f.first?.size, Int64(size))
            XCTAssertEqual(f.first?.path?.display, Self.prefs)
            XCTAssertTrue(message.contains(parseable ? "\"blob\"" : "could not be parsed"), message)
            XCTAssertTrue(
                message.contains(
                    expected == .error ? "error size of 4,194,304 bytes" : "warning size of 524,288 bytes"), message)
        }
    }

    func testUserDefaultsListsTheThreeLargestKeysWithTheirEncodedSizes() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        let values: [String: Any] = [
            "small": Data(count: 10), "avatar": Data(count: 300_000),
            "history": Array(repeating: "search term", count: 5_000),
            "feed": Data(count: 250_000), "count": 42, "name": "x",
        ]
        let data = try Self.binaryPlist(values)
        XCTAssertGreaterThan(data.count, 512 * 1024)
        try Fixture.bytes(dir.sub(Self.prefs), Array(data))
        let f = try findings(dir, "large-user-defaults")
        XCTAssertEqual(f.count, 1)
        let message = try XCTUnwrap(f.first?.message)
        // Each value measured alone as a binary plist, largest first.
        let expected = try ["avatar", "feed", "history"].map { key in
            (key, ByteSize.format(Int64(try Self.binaryPlist(values[key]!).count)))
        }
        XCTAssertGreaterThan(
            try Self.binaryPlist(values["feed"]!).count, try Self.binaryPlist(values["history"]!).count)
        let listing = expected.map { "\"\($0.0)\" \($0.1)" }.joined(separator: ", ")
        XCTAssertTrue(message.contains("re-encoded alone as a binary plist): " + listing), message)
        XCTAssertFalse(message.contains("\"small\""), message)
        XCTAssertEqual(f.first?.severity, .warning)

        // The sizes themselves, straight from the parser.
        guard case .success(let keys) = LargeUserDefaults.largestKeys(data) else { return XCTFail("did not parse") }
        XCTAssertEqual(
            keys.map(\.key),
            ["avatar", "feed", "history", "small", "name", "count"].sorted {
                let a = try! Self.binaryPlist(values[$0]!).count
                let b = try! Self.binaryPlist(values[$1]!).count
                return a != b ? a > b : $0 < $1
            })
        XCTAssertEqual(keys.first?.size, try Self.binaryPlist(Data(count: 300_000)).count)
    }

    func testUserDefaultsReadsXMLPlists() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        let xml = try PropertyListSerialization.data(
            fromPropertyList: ["cache": Data(count: 450_000), "n": 1], format: .xml, options: 0)
        XCTAssertGreaterThan(xml.count, 512 * 1024)  // base64 makes it larger
        try Fixture.bytes(dir.sub(Self.prefs), Array(xml))
        let message = try XCTUnwrap(try findings(dir, "large-user-defaults").first?.message)
        XCTAssertTrue(
            message.contains("\"cache\" \(ByteSize.format(Int64(try Self.binaryPlist(Data(count: 450_000)).count)))"),
            message)
    }

    func testUnparsablePreferencesStillReportsItsSize() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub(Self.prefs), size: 5_000_000)
        try Fixture.bytes(
            dir.sub("Library/Preferences/list.plist"),
            Array(try Self.binaryPlist(Array(repeating: Data(count: 1000), count: 600))))
        let f = try findings(dir, "large-user-defaults")
        XCTAssertEqual(
            f.map { $0.path?.display }, ["Library/Preferences/com.example.app.plist", "Library/Preferences/list.plist"])
        XCTAssertEqual(f.first?.severity, .error)
        XCTAssertEqual(f.first?.size, 5_000_000)
        XCTAssertTrue(f.first?.message.contains("5.00 MB") ?? false, f.first?.message ?? "")
        XCTAssertTrue(f.first?.message.contains("could not be parsed") ?? false, f.first?.message ?? "")
        XCTAssertTrue(f.last?.message.contains("top level is not a dictionary") ?? false, f.last?.message ?? "")
    }

    func testUserDefaultsOnlyDirectlyInPreferencesAndThresholdsAreSettings() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.bytes(dir.sub("Library/Preferences/Nested/big.plist"), Array(try Self.plist(exactSize: 600_000)))
        try Fixture.bytes(dir.sub("Library/Preferences/small.plist"), Array(try Self.plist(exactSize: 2_000)))
        XCTAssertEqual(try findings(dir, "large-user-defaults").count, 0)
        var s = RuleSettings()
        s.userDefaultsWarningSize = 1_000
        s.userDefaultsErrorSize = 1_500
        let f = try findings(dir, "large-user-defaults", settings: s)
        XCTAssertEqual(f.map { $0.path?.display }, ["Library/Preferences/small.plist"])
        XCTAssertEqual(f.first?.severity, .error)
    }

    // MARK: volatile-store

    func testDatabasesAreRecognisedByContentNotName() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/Caches/fake.sqlite"), size: 5_000_000)  // zeros: no header
        try Fixture.bytes(dir.sub("Library/Caches/fake.realm"), Array("not a realm file at all, really".utf8))
        try Fixture.bytes(
            dir.sub("Library/Caches/data.bin"), StoreSignature.sqliteHeader + [UInt8](repeating: 0, count: 600))
        try Fixture.bytes(dir.sub("tmp/blob"), VolatileStore.sampleRealmFile)
        try Fixture.bytes(dir.sub("tmp/short"), Array("SQLite format".utf8))  // under 16 bytes: never read
        let f = try findings(dir, "volatile-store")
        XCTAssertEqual(f.map { $0.path?.display }, ["Library/Caches/data.bin", "tmp/blob"])
        XCTAssertTrue(f.first?.message.hasPrefix("SQLite database") ?? false, f.first?.message ?? "")
        XCTAssertTrue(f.first?.message.contains("Library/Caches") ?? false)
        XCTAssertTrue(f.last?.message.hasPrefix("Realm database") ?? false, f.last?.message ?? "")
        XCTAssertTrue(f.last?.message.contains("tmp") ?? false)
        XCTAssertEqual(f.map(\.severity), [.warning, .warning])
        XCTAssertEqual(StoreSignature.databaseKind(Array(StoreSignature.sqliteHeader.prefix(15))), nil)
        XCTAssertEqual(StoreSignature.databaseKind(Array(VolatileStore.sampleRealmHeader.prefix(20))), "Realm")
    }

    func testSystemCachesAreExempt() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        let db = VolatileStore.sampleSQLiteFile
        for path in [
            "Library/Caches/Cache.db", "Library/Caches/com.example.app/Cache.db", "tmp/Cache.db",
            "Library/Caches/com.apple.WebKit.Networking/a.db", "Library/Caches/com.apple.nsurlsessiond/x/y.db",
            "Library/Caches/com.example.app/com.apple.metal/shaders.db",
        ] {
            try Fixture.bytes(dir.sub(path), db)
        }
        try Fixture.bytes(dir.sub("Library/Caches/com.example.app/Cache.db.backup"), db)
        try Fixture.bytes(dir.sub("Library/Caches/com.apple.db"), db)  // a file, not a com.apple.* folder
        try Fixture.bytes(dir.sub("Library/Application Support/app.sqlite"), db)
        let f = try findings(dir, "volatile-store")
        XCTAssertEqual(
            f.map { $0.path?.display },
            ["Library/Caches/com.apple.db", "Library/Caches/com.example.app/Cache.db.backup"])
    }

    // MARK: split-store-backup

    func testSplitStoreMainExcludedWALNot() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        let base = "Library/Application Support/Data.sqlite"
        try Fixture.file(dir.sub(base), size: 8192)
        try Fixture.file(dir.sub(base + "-wal"), size: 4096)
        try BackupMarker.set(.exclude, value: BackupAttribute.canonicalValue, on: dir.sub(base), carrier: .native)
        let f = try findings(dir, "split-store-backup")
        XCTAssertEqual(f.map { $0.path?.display }, [base])
        XCTAssertEqual(f.first?.severity, .error)
        let message = try XCTUnwrap(f.first?.message)
        XCTAssertTrue(message.contains("SQLite store"), message)
        XCTAssertTrue(message.contains("backed up: Data.sqlite-wal;"), message)
        XCTAssertTrue(message.contains("not backed up (excluded): Data.sqlite;"), message)
    }

    func testSplitStoreGroupsStayInOneFolderAndOneFindingPerStore() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        // Consistent: all excluded through the folder.
        try Fixture.file(dir.sub("Documents/Store/a.db"), size: 10)
        try Fixture.file(dir.sub("Documents/Store/a.db-wal"), size: 10)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Documents/Store"), carrier: .native)
        // Companion in another folder than its would-be main file.
        try Fixture.file(dir.sub("Documents/b.db"), size: 10)
        try Fixture.file(dir.sub("Documents/Other/b.db-wal"), size: 10)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Documents/Other/b.db-wal"), carrier: .native)
        // Three companions, two of them excluded: one finding.
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try Fixture.file(dir.sub("Documents/c.db" + suffix), size: 10)
        }
        for suffix in ["-shm", "-journal"] {
            try BackupMarker.set(
                .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Documents/c.db" + suffix),
                carrier: .sidecar)
        }
        // Realm: the lock file excluded, the rest backed up.
        try Fixture.file(dir.sub("Documents/default.realm"), size: 10)
        try Fixture.file(dir.sub("Documents/default.realm.lock"), size: 10)
        try Fixture.file(dir.sub("Documents/default.realm.management/x"), size: 10)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Documents/default.realm.lock"),
            carrier: .native)
        let f = try findings(dir, "split-store-backup")
        XCTAssertEqual(f.map { $0.path?.display }, ["Documents/c.db", "Documents/default.realm"])
        XCTAssertTrue(
            f.first?.message.contains("backed up: c.db, c.db-wal; not backed up (excluded): c.db-journal, c.db-shm;")
                ?? false, f.first?.message ?? "")
        XCTAssertTrue(
            f.last?.message.contains(
                "Realm store split by backup: backed up: default.realm, default.realm.management/; not backed up "
                    + "(excluded): default.realm.lock;"
            ) ?? false,
            f.last?.message ?? "")
    }

    /// Stores whose names start alike: x.db-s (a main file of its own) sorts between x.db and
    /// x.db-shm, and a folder named after a main file holds a store of its own between the main
    /// file and its companions. Each companion joins its own main file's group.
    func testSplitStoreNestedAndInterleavedNames() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        for name in [
            "n.db", "n.db-s", "n.db-s-wal", "n.db-shm", "n.db-wal", "p.db", "p.db-dir/inner.db",
            "p.db-dir/inner.db-wal", "p.db-wal", "q.db", "q.db-wal",
        ] {
            try Fixture.file(dir.sub("Documents/" + name), size: 10)
        }
        for name in ["n.db-s-wal", "n.db-shm", "p.db-dir/inner.db-wal", "p.db-wal"] {
            try BackupMarker.set(
                .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Documents/" + name), carrier: .native)
        }
        let f = try findings(dir, "split-store-backup")
        XCTAssertEqual(
            f.map { $0.path?.display },
            ["Documents/n.db", "Documents/n.db-s", "Documents/p.db", "Documents/p.db-dir/inner.db"])
        XCTAssertTrue(
            f[0].message.contains("backed up: n.db, n.db-wal; not backed up (excluded): n.db-shm;"), f[0].message)
        XCTAssertTrue(f[1].message.contains("backed up: n.db-s; not backed up (excluded): n.db-s-wal;"), f[1].message)
        XCTAssertTrue(f[2].message.contains("backed up: p.db; not backed up (excluded): p.db-wal;"), f[2].message)
        XCTAssertTrue(
            f[3].message.contains("backed up: inner.db; not backed up (excluded): inner.db-wal;"), f[3].message)
    }

    // MARK: many-backed-up-files

    func testManyFilesReportsOnlyTheDeepestFolder() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        var s = RuleSettings()
        s.manyFilesThreshold = 100
        // a/b/c reaches it alone: a/b and a are not reported, though they hold more.
        try Fixture.files(in: dir.sub("Documents/a/b/c"), count: 100, size: 10)
        try Fixture.files(in: dir.sub("Documents/a/b/d"), count: 60, size: 10)
        try Fixture.files(in: dir.sub("Documents/a"), count: 50, size: 10)
        // Neither shard reaches it alone: their parent is reported.
        try Fixture.files(in: dir.sub("Library/Application Support/Pages/00"), count: 60, size: 1000)
        try Fixture.files(in: dir.sub("Library/Application Support/Pages/01"), count: 40, size: 1000)
        // Not backed up: not counted.
        try Fixture.files(in: dir.sub("Library/Caches/Thumbs"), count: 150, size: 10)
        try Fixture.files(in: dir.sub("Library/Application Support/Excluded"), count: 150, size: 10)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Library/Application Support/Excluded"),
            carrier: .native)
        try Fixture.files(in: dir.sub("Library/Application Support/Mixed"), count: 99, size: 10)
        try Fixture.files(in: dir.sub("Library/Application Support/Mixed/Excluded"), count: 50, size: 10)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Library/Application Support/Mixed/Excluded"),
            carrier: .native)

        let f = try findings(dir, "many-backed-up-files", settings: s)
        XCTAssertEqual(f.map { $0.path?.display }, ["Documents/a/b/c", "Library/Application Support/Pages"])
        XCTAssertEqual(f.map(\.size), [1_000, 100_000])
        XCTAssertTrue(f.first?.message.hasPrefix("100 backed-up files (1.00 kB)") ?? false, f.first?.message ?? "")
        XCTAssertEqual(f.map(\.severity), [.warning, .warning])
        XCTAssertEqual(try findings(dir, "many-backed-up-files").count, 0, "default threshold: 10,000")
    }

    func testGroupedDigits() {
        XCTAssertEqual(groupedDigits(0), "0")
        XCTAssertEqual(groupedDigits(999), "999")
        XCTAssertEqual(groupedDigits(10_000), "10,000")
        XCTAssertEqual(groupedDigits(4_194_304), "4,194,304")
    }
}
