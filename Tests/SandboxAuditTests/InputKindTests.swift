import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// The ordered list of input kinds (`InputKinds`): each kind detected from a real path built
/// here, what none of them takes read as a folder with today's errors, and each kind's declared
/// capabilities.
final class InputKindTests: XCTestCase {
    static let builtIn = ["Simulator device", "backup folder", "archive", "container folder"]

    func kindName(_ path: String, _ selection: ContainerSelection = ContainerSelection()) -> String {
        InputKinds.kind(of: path, selection).name
    }

    func testEveryKindIsListedOnceWithTheFolderLast() {
        // The kinds this file builds inputs of, in their order (a kind added to the list, in a
        // folder of its own, is tested by its own file: it may stand anywhere before the folder).
        let names = InputKinds.all.map { $0.name }
        XCTAssertEqual(names.filter(Self.builtIn.contains), Self.builtIn)
        XCTAssertEqual(names.last, "container folder", "the folder kind takes every path: it comes last")
        XCTAssertEqual(Set(names).count, names.count)
    }

    func testFolderContainerPackageAndDeviceFolderAreFolders() throws {
        let dir = try TempDir("input")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.container(at: dir.sub("Example.xcappdata/AppData"))
        let device = try SimulatorDeviceTests.device(dir.sub("set"), "UDID-1", name: "iPhone 17", state: 3)
        for path in [dir.sub("App"), dir.sub("App") + "/", dir.sub("Example.xcappdata"), device] {
            XCTAssertEqual(kindName(path), "container folder", path)
        }
        let read = try InputKinds.detect(device, ContainerSelection(app: SimulatorDeviceTests.app)).read()
        XCTAssertEqual(
            read.containers.map { $0.container.domain },
            ["AppDomain-\(SimulatorDeviceTests.app)", "AppDomainPlugin-\(SimulatorDeviceTests.app).ShareExtension"])
        XCTAssertTrue(read.containers.allSatisfy { $0.container.source == FolderInput.self })
    }

    func testSimulatorSelectionIsTheDeviceWhateverThePath() throws {
        let dir = try TempDir("input")
        try Fixture.container(at: dir.sub("App"))
        XCTAssertEqual(kindName(dir.sub("App"), ContainerSelection(simulator: "booted")), "Simulator device")
        XCTAssertEqual(kindName("", ContainerSelection(simulator: "booted")), "Simulator device")
        let set = dir.sub("set")
        _ = try SimulatorDeviceTests.device(set, "UDID-2", name: "iPhone 17", state: 3)
        let read = try InputKinds.detect(
            "", ContainerSelection(app: SimulatorDeviceTests.app, simulator: "booted", deviceSets: [set])
        ).read()
        XCTAssertEqual(read.input, set + "/UDID-2/data/Containers/Data/Application/1111")
        XCTAssertTrue(read.containers.allSatisfy { $0.container.source == SimulatorInput.self })
    }

    func testArchiveByNameAndByItsFirstBytes() throws {
        try Tool.require("tar", for: "the container is given as an archive")
        let dir = try TempDir("input")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Documents/a.txt"), size: 10)
        try sh("tar -C App -cf app.tar . && cp app.tar app.bin && tar -C App -czf app.tgz .", in: dir.path)
        for name in ["app.tar", "app.bin", "app.tgz"] {
            XCTAssertEqual(kindName(dir.sub(name)), "archive", name)
            let read = try InputKinds.detect(dir.sub(name), ContainerSelection()).read()
            XCTAssertEqual(read.containers.count, 1)
            XCTAssertTrue(
                read.containers[0].walk.entries.contains { $0.path == ContainerPath("Documents/a.txt") }, name)
            XCTAssertTrue(read.containers[0].container.source == ArchiveInput.self)
        }
        // A folder named as an archive is a folder.
        try Fixture.container(at: dir.sub("folder.tar"))
        XCTAssertEqual(kindName(dir.sub("folder.tar")), "container folder")
    }

    func testBackupFolder() throws {
        let dir = try TempDir("input")
        try BackupFolderTests.standard().write(to: dir.sub("UDID"))
        XCTAssertEqual(kindName(dir.sub("UDID")), "backup folder")
        let read = try InputKinds.detect(dir.sub("UDID"), ContainerSelection(app: BackupFolderTests.app)).read()
        XCTAssertEqual(
            read.containers.map { $0.container.domain }, [BackupFolderTests.appDomain, BackupFolderTests.pluginDomain])
        XCTAssertTrue(read.containers.allSatisfy { $0.container.source == BackupInput.self })
        XCTAssertNotNil(BackupInput.contentReader(for: read.containers[0].container))
    }

    func testWhatNoKindTakesGetsTodaysErrors() throws {
        let dir = try TempDir("input")
        try Fixture.file(dir.sub("notes.txt"), size: 600)
        try Fixture.mkdirs(dir.sub("empty"))
        let cases = [
            (dir.sub("missing"), "cannot read \(dir.sub("missing")): no such file or directory"),
            (
                dir.sub("notes.txt"),
                "\(dir.sub("notes.txt")) is not a directory, and not an archive (\(Container.archiveKinds)) by its "
                    + "name or its first bytes: give an app data container, an .xcappdata package or an archive of one"
            ),
            (
                dir.sub("empty"),
                "\(dir.sub("empty")) is not an app data container: no Documents, Library or tmp folder in "
                    + "\(dir.sub("empty")) (for an App Group container, add --kind group)"
            ),
        ]
        for (path, message) in cases {
            XCTAssertEqual(kindName(path), "container folder", path)
            XCTAssertThrowsError(try InputKinds.detect(path, ContainerSelection()).read()) { error in
                XCTAssertEqual((error as? InputError)?.message, message)
            }
        }
        // Opened as a backup (--against-backup), a folder that is none says so.
        XCTAssertThrowsError(try BackupInput.open(dir.sub("empty"), ContainerSelection())) { error in
            XCTAssertEqual(
                (error as? InputError)?.message,
                "\(dir.sub("empty")) is not a device backup folder: it holds no Manifest.db (give the folder named "
                    + "by the device's UDID)"
            )
        }
    }

    func testCapabilitiesDeclaredForEachKind() {
        let declared = Dictionary(
            uniqueKeysWithValues: InputKinds.all.filter { Self.builtIn.contains($0.name) }.map {
                ($0.name, $0.capabilities)
            })
        XCTAssertEqual(
            declared,
            [
                "container folder": InputCapabilities(
                    observes: [.attributesOnDisk, .fileHeaders, .fileContents, .sizesOnDisk, .itemsNotBackedUp],
                    materialisable: true, filesOnDisk: true, recordsBackup: false),
                "Simulator device": InputCapabilities(
                    observes: [.attributesOnDisk, .fileHeaders, .fileContents, .sizesOnDisk, .itemsNotBackedUp],
                    materialisable: true, filesOnDisk: true, recordsBackup: false),
                "archive": InputCapabilities(
                    observes: [.attributesOnDisk, .fileHeaders, .itemsNotBackedUp], materialisable: true,
                    filesOnDisk: false, recordsBackup: false),
                "backup folder": InputCapabilities(
                    observes: [.fileHeaders, .fileContents, .protectionClasses], materialisable: false,
                    filesOnDisk: false, recordsBackup: true),
            ])
        // What a kind gives comes from the input alone: the run's options give the rest.
        for kind in InputKinds.all { XCTAssertFalse(kind.capabilities.observes.contains { $0.fromRun }, kind.name) }
        XCTAssertNil(
            ArchiveInput.contentReader(
                for: Container(
                    input: "a.tar", dataRoot: "a.tar!", kind: .directory,
                    bundleIdentifier: nil, version: nil, identitySource: nil)))
    }

    /// A fix command names a file on disk: a folder's, never one inside an archive or a backup
    /// (its files are stored by fileID; the backup folder joined to the path names nothing).
    func testFixCommandsOnlyForInputsWhoseFilesAreOnDisk() throws {
        try Tool.require("tar", for: "the container is also given as an archive")
        let dir = try TempDir("input")
        try Fixture.container(at: dir.sub("App"))
        try Fixture.file(dir.sub("App/Library/Application Support/catalogue.bin"), size: 2_000_000)
        try sh("tar -C App -cf app.tar . && cp app.tar app.bin", in: dir.path)
        var backup = BackupBuilder()
        backup.file(BackupFolderTests.appDomain, "Library/Application Support/catalogue.bin", size: 2_000_000)
        try backup.write(to: dir.sub("UDID"))
        func fix(_ path: String) throws -> String? {
            let result = try Audit.run(path, selection: ContainerSelection(app: BackupFolderTests.app))
            return try XCTUnwrap(result.findings.first { $0.ruleId == "unexcluded-support-data" }, path).fix
        }
        XCTAssertEqual(
            try fix(dir.sub("App")),
            "Set isExcludedFromBackup on the file or on its own subfolder; to mark this copy on disk: "
                + "sandbox-audit exclude '\(dir.sub("App"))/Library/Application Support/catalogue.bin'")
        for input in ["app.tar", "app.bin", "UDID"] { XCTAssertNil(try fix(dir.sub(input)), input) }
    }
}
