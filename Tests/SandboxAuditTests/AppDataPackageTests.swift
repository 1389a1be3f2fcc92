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

/// `simulate restore --into X.xcappdata`: the package `xcrun simctl install_app_data` loads,
/// read back as input.
final class AppDataPackageTests: XCTestCase {
    static let app = "com.example.app"

    /// A Simulator data container with what a restore keeps and what it drops.
    static func container(_ root: String) throws {
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/notes.txt", size: 40)
        try Fixture.file(root + "/Documents/big.bin", size: 200_000)
        try Fixture.file(root + "/Library/Application Support/store.sqlite", size: 4096)
        try Fixture.file(root + "/Library/Application Support/Excluded/model.bin", size: 50_000)
        try BackupMarker.set(
            .exclude, value: BackupAttribute.canonicalValue, on: root + "/Library/Application Support/Excluded",
            carrier: .native)
        try Fixture.file(root + "/Library/Caches/thumb.jpg", size: 3000)
        try Fixture.file(root + "/tmp/upload.part", size: 10)
        let meta = try PropertyListSerialization.data(
            fromPropertyList: ["MCMMetadataIdentifier": app, "MCMMetadataContentClass": 2], format: .binary, options: 0)
        try Fixture.bytes(root + "/" + Container.simulatorMetadata, Array(meta))
    }

    /// The paths a restore keeps of `input`, as the simulation predicts them.
    static func keptPaths(_ input: String) throws -> Set<String> {
        let inventory = try Audit.inventory(of: input)
        let restore = SimulationResult(.restore, inventory)
        return Set(zip(inventory.entries, restore.kept).filter { $0.1 }.map { $0.0.path.display })
    }

    func testRestorePackageRoundTripsAsInput() throws {
        let dir = try TempDir("xcappdata")
        try Self.container(dir.sub("App"))
        try Tool.require("tar", for: "the container is also given as an archive")
        try sh("tar -C App --xattrs -czf app.tgz .", in: dir.path)
        let expected = try Self.keptPaths(dir.sub("App"))
        XCTAssertTrue(
            expected.contains("Documents/notes.txt") && !expected.contains("Library/Caches/thumb.jpg")
                && !expected.contains("Library/Application Support/Excluded/model.bin"), "\(expected.sorted())")
        for input in [dir.sub("App"), dir.sub("app.tgz")] {
            let package = dir.sub("Restored-\(input.hasSuffix("tgz") ? "tgz" : "folder").xcappdata")
            let r = try CLI.run(["simulate", "restore", input, "--into", package, "--verify"])
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
            // The layout Xcode writes: AppData/ and AppDataInfo.plist naming the app.
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: package).sorted(), ["AppData", "AppDataInfo.plist"])
            let info =
                try PropertyListSerialization.propertyList(
                    from: Data(contentsOf: URL(fileURLWithPath: package + "/AppDataInfo.plist")), format: nil)
                as! [String: Any]
            XCTAssertEqual(info["CFBundleIdentifier"] as? String, Self.app)
            // Read back as input: the restore's kept set, as an .xcappdata of the same app.
            let back = try Audit.inventory(of: package)
            XCTAssertEqual(back.container.kind, .xcappdata)
            XCTAssertEqual(back.container.bundleIdentifier, Self.app)
            XCTAssertEqual(Set(back.entries.map(\.path.display)), expected, input)
            var st = stat()
            XCTAssertEqual(stat(package, &st), 0)
            XCTAssertEqual(st.st_mode & 0o777, 0o755, "the finished package is readable by others")
        }
        // Scanning the package gives what the source would keep.
        let (json, scan) = try CLI.scanJSON([dir.sub("Restored-folder.xcappdata")])
        XCTAssertEqual(scan.status, 0, scan.stderr)  // what a restore keeps holds no error
        XCTAssertEqual(((json["domains"] as! [[String: Any]])[0])["domain"] as? String, "AppDomain-" + Self.app)
    }

    func testRefusesToOverwriteAndWhatNoPackageHolds() throws {
        let dir = try TempDir("xcappdata")
        try Self.container(dir.sub("App"))
        // An existing package: refused, untouched.
        try Fixture.file(dir.sub("Old.xcappdata/AppDataInfo.plist"), size: 5)
        let existing = try CLI.run(["simulate", "restore", dir.sub("App"), "--into", dir.sub("Old.xcappdata")])
        XCTAssertEqual(existing.status, 2)
        XCTAssertTrue(existing.stderr.contains("is not empty; refusing to write into it"), existing.stderr)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.sub("Old.xcappdata")), ["AppDataInfo.plist"])

        // A container that does not name its app, and several containers: nothing written.
        try Fixture.container(at: dir.sub("Anonymous"))
        let anonymous = try CLI.run(["simulate", "restore", dir.sub("Anonymous"), "--into", dir.sub("A.xcappdata")])
        XCTAssertEqual(anonymous.status, 2)
        XCTAssertTrue(anonymous.stderr.contains("does not name its app"), anonymous.stderr)
        let device = dir.sub("Devices/UDID/data/Containers")
        try sh(
            "mkdir -p '\(device)/Data/Application' '\(device)/Data/PluginKitPlugin' && cp -a App "
                + "'\(device)/Data/Application/1111' && cp -a App '\(device)/Data/PluginKitPlugin/2222'",
            in: dir.path)
        let meta = try PropertyListSerialization.data(
            fromPropertyList: ["MCMMetadataIdentifier": Self.app + ".Widget"], format: .binary, options: 0)
        try Fixture.bytes(device + "/Data/PluginKitPlugin/2222/" + Container.simulatorMetadata, Array(meta))
        let several = try CLI.run([
            "simulate", "restore", "--app", Self.app, dir.sub("Devices/UDID"), "--into", dir.sub("S.xcappdata"),
        ])
        XCTAssertEqual(several.status, 2)
        XCTAssertTrue(
            several.stderr.contains("holds one app's data container, and 2 containers were read"), several.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(
            names, ["Anonymous", "App", "Devices", "Old.xcappdata"], "nothing written, no temporary folder left")
    }

    /// As a user other than root: a file it cannot read stops the copy, and nothing is left.
    func testFailedCopyLeavesNothingAsAnotherUser() throws {
        try Tool.require("setpriv", for: "runs the tool as a user other than root")
        guard getuid() == 0 else { throw XCTSkip("needs root to drop privileges with setpriv") }
        let dir = try TempDir("xcappdata")
        chmod(dir.path, 0o777)
        try Self.container(dir.sub("App"))
        try sh("chmod -R a+rX App", in: dir.path)
        chmod(dir.sub("App/Documents/notes.txt"), 0)
        let r = try CLI.run(["simulate", "restore", dir.sub("App"), "--into", dir.sub("R.xcappdata")], asNobody: true)
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertTrue(
            r.stderr.contains("nothing written to \(dir.sub("R.xcappdata"))") && r.stderr.contains("notes.txt"),
            r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["App"])
    }
}
