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

final class WalkTests: XCTestCase {
    struct Snapshot: Equatable {
        var entries: [String: String] = [:]
    }

    /// Everything a scan could change: bytes, size, mode, times (access, modification,
    /// change), attributes.
    /// Access times are left out for symlinks (readlink(2) updates them, and no flag prevents
    /// it) and, with `accessTimes: false` or where the system cannot keep them (`AccessTimes`),
    /// for everything (O_NOATIME is the owner's alone, and Linux's alone).
    static func snapshot(_ root: String, accessTimes: Bool = true) throws -> Snapshot {
        var snap = Snapshot()
        func visit(_ path: String) throws {
            var st = stat()
            guard lstat(path, &st) == 0 else { throw SystemError(operation: "lstat", path: path) }
            var attrs: [String] = []
            for name in (try? XAttr.names(.path(Array(path.utf8)))) ?? [] {
                let n = String(decoding: name, as: UTF8.self)
                attrs.append(n + "=" + ByteText.hexString((try? XAttr.value(.path(Array(path.utf8)), name: n)) ?? []))
            }
            // Read with O_NOATIME (the helpers the walker uses), so the snapshot itself moves no
            // access time.
            var content = ""
            let parent = (path as NSString).deletingLastPathComponent
            let name = Array((path as NSString).lastPathComponent.utf8)
            if st.st_mode & S_IFMT == S_IFREG {
                if let dirFD = try? FileDescriptor.currentDirectory.openDirectory(parent.utf8) {
                    content = ByteText.hexString((try? dirFD.readFile(name, limit: AppleDouble.maximumSize)) ?? [])
                    dirFD.close()
                }
            }
            let atime =
                accessTimes && AccessTimes.kept && st.st_mode & S_IFMT != S_IFLNK
                ? "a\(st.atimeSpec.tv_sec).\(st.atimeSpec.tv_nsec)" : "a-"
            snap.entries[path] =
                "\(st.st_mode) \(st.st_size) \(atime) m\(st.mtimeSpec.tv_sec).\(st.mtimeSpec.tv_nsec) c"
                + "\(st.ctimeSpec.tv_sec).\(st.ctimeSpec.tv_nsec) \(attrs.sorted()) \(content)"
            if st.st_mode & S_IFMT == S_IFDIR {
                let fd = try FileDescriptor.currentDirectory.openDirectory(path.utf8)
                defer { fd.close() }
                for child in try fd.names() { try visit(path + "/" + String(decoding: child, as: UTF8.self)) }
            }
        }
        try visit(root)
        return snap
    }

    func testScanChangesNothing() throws {
        let dir = try TempDir()
        let example = RuleCatalogue.all.flatMap { $0.description.triggeringExamples }.first {
            $0.items.contains { !$0.marks.isEmpty }
        }!
        try Fixture.materialize(example, at: dir.path)
        try Fixture.file(dir.sub("Documents/a.txt"), size: 10)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: dir.sub("Documents/a.txt"), carrier: .sidecar)
        XCTAssertEqual(mkfifo(dir.sub("tmp/pipe"), 0o644), 0)
        // Old access times, so that a read which updated them (relatime) would show.
        for p in try FileManager.default.subpathsOfDirectory(atPath: dir.path).reversed() + [""] where p != "tmp/pipe" {
            // The modification time is set to what it is (UTIME_OMIT's value differs by platform).
            var st = stat()
            XCTAssertEqual(lstat(dir.sub(p), &st), 0)
            var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), Platform.modified(st)]
            XCTAssertEqual(utimensat(AT_FDCWD, dir.sub(p), &times, AT_SYMLINK_NOFOLLOW), 0)
        }
        let before = try Self.snapshot(dir.path)
        for args in [["scan", dir.path], ["scan", "--format", "json", dir.path], ["inventory", dir.path]] {
            let r = try CLI.run(args)
            // 0: the findings (excluded user data, the FIFO) are a warning and a note.
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
        }
        Self.assertUnchanged(before, try Self.snapshot(dir.path))
    }

    /// Fails for every entry whose state differs between two snapshots.
    static func assertUnchanged(
        _ before: Snapshot, _ after: Snapshot, file: StaticString = #filePath, line: UInt = #line
    ) {
        for (path, state) in before.entries where after.entries[path] != state {
            XCTFail(
                "\(path) changed:\n  before \(state)\n  after  \(after.entries[path] ?? "gone")", file: file, line: line
            )
        }
        XCTAssertEqual(Set(before.entries.keys), Set(after.entries.keys), file: file, line: line)
    }

    /// With only a few descriptors allowed, the walk closes ancestors and reopens them
    /// through `..`: it must still see every entry exactly once.
    func testBoundedDescriptorsStillVisitEverything() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        var expected = Set(Fixture.standardFolders)
        for a in 0..<3 {
            var path = "Documents/a\(a)"
            for level in 0..<12 {
                expected.insert(path)
                for f in 0..<2 {
                    try Fixture.file(dir.sub("\(path)/f\(f)"), size: 1)
                    expected.insert("\(path)/f\(f)")
                }
                if level % 3 == 0 {
                    try Fixture.mkdirs(dir.sub("\(path)/side"))
                    expected.insert("\(path)/side")
                }
                path += "/n"
            }
        }
        for limit in [2, 3, 5, 64] {
            var walker = Walker(root: dir.path)
            walker.maximumOpenDirectories = limit
            let result = try walker.walk()
            XCTAssertEqual(result.problems, [], "limit \(limit)")
            let paths = result.entries.map(\.path.display)
            XCTAssertEqual(paths.count, Set(paths).count, "no entry twice (limit \(limit))")
            XCTAssertEqual(Set(paths), expected, "limit \(limit)")
        }
    }

    func testOrphanSidecarsAndPlainDotUnderscoreFiles() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        try Fixture.bytes(
            dir.sub("Documents/._gone"), AppleDouble.build(.init(attributes: [("com.apple.MobileBackup", [1])])))
        try Fixture.bytes(dir.sub("Documents/._config"), Array("a dotfile, not a sidecar".utf8))
        let inv = try Audit.inventory(of: dir.path)
        XCTAssertEqual(inv.entries.map(\.path.display).filter { $0.hasPrefix("Documents/") }, ["Documents/._config"])
        XCTAssertEqual(inv.sidecarCount, 1)
    }

    func testDataRootGivenThroughSymlinkAndTrailingSlash() throws {
        let dir = try TempDir()
        try Fixture.container(at: dir.sub("real"))
        try Fixture.file(dir.sub("real/Documents/a"), size: 5)
        try FileManager.default.createSymbolicLink(atPath: dir.sub("alias"), withDestinationPath: dir.sub("real"))
        for input in [dir.sub("alias"), dir.sub("real/"), dir.sub("alias/")] {
            let inv = try Audit.inventory(of: input)
            XCTAssertEqual(inv.total.size, 5, input)
        }
    }
}

extension WalkTests {
    /// `index(of:before:)` finds what `index(of:)` finds, from any later position, near or
    /// far, and nothing for a path the inventory does not list.
    func testIndexBeforeAPositionAgreesWithTheWholeSearch() throws {
        let dir = try TempDir()
        let root = dir.sub("container")
        try Fixture.container(at: root)
        for name in ["a.sqlite", "a.sqlite-shm", "a.sqlite-wal", "a.sqlite.bak", "b", "b.realm", "b.realm.lock", "z"] {
            try Fixture.file(root + "/Documents/" + name, size: 10)
        }
        for i in 0..<40 { try Fixture.file(root + "/Library/Caches/f\(i)", size: 1) }
        let inventory = try Audit.inventory(of: root)
        let n = inventory.entries.count
        for (i, e) in inventory.entries.enumerated() {
            XCTAssertEqual(inventory.index(of: e.path), i)
            for limit in (i + 1)...n {
                XCTAssertEqual(inventory.index(of: e.path, before: limit), i, "\(e.path) before \(limit)")
            }
        }
        let absent = ContainerPath("Documents/a.sqlite-journal")
        for limit in 0...n { XCTAssertNil(inventory.index(of: absent, before: limit)) }
    }
}
