import Foundation
import XCTest
@testable import SandboxAudit
@testable import SandboxAuditSystem
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditReport

/// An input is opened once, when it is located, and read through that descriptor for the rest
/// of the run (issue 22): a folder container or an archive whose name is given to another folder
/// or file after the walk is still read, by the content rules and by `simulate --into`, from the
/// one the walk read. The swap is made between the stages, through the library's own calls.
final class HeldInputTests: XCTestCase {
    /// A container whose UserDefaults plist is over the warning size (so the rule reads it
    /// whole, through the content reader) with one top-level key, and a note.
    func makeContainer(_ root: String, key: String, note: String) throws {
        try Fixture.container(at: root)
        let plist = try PropertyListSerialization.data(fromPropertyList: [key: Data(repeating: 7, count: 600_000)], format: .binary, options: 0)
        try plist.write(to: URL(fileURLWithPath: root + "/Library/Preferences/com.example.app.plist"))
        try Data(note.utf8).write(to: URL(fileURLWithPath: root + "/Documents/notes.txt"))
    }

    func testAFolderSwappedAfterTheWalkIsStillReadFromTheFirst() throws {
        let dir = try TempDir("heldroot")
        try makeContainer(dir.sub("App"), key: "firstKey", note: "first\n")
        try makeContainer(dir.sub("Other"), key: "secondKey", note: "second\n")
        let inventory = try Audit.inventory(of: dir.sub("App"))

        // The name now leads to another container.
        try sh("mv App App.moved && mv Other App", in: dir.path)

        // The content rules read the walked container's plist.
        let result = Audit.run(dir.sub("App"), inventories: [inventory], selection: ContainerSelection(), policy: Policy(),
                               baseline: nil, backup: nil, scanTime: 1_700_000_000)
        let defaults = result.findings.filter { $0.ruleId == "large-user-defaults" }
        XCTAssertEqual(defaults.count, 1, "\(result.findings)")
        XCTAssertTrue(defaults.first?.message.contains("\"firstKey\"") == true, defaults.first?.message ?? "")
        XCTAssertFalse(defaults.first?.message.contains("secondKey") == true, defaults.first?.message ?? "")
        XCTAssertEqual(result.missed.count, 0, "every content read succeeded")

        // The copy is the walked container, every file of it.
        let report = try Materializer.write(SimulationResult(.update, inventory), into: dir.sub("out"))
        XCTAssertEqual(report.files, 2)
        XCTAssertEqual(try String(contentsOfFile: dir.sub("out/Documents/notes.txt"), encoding: .utf8), "first\n")
        let copied = try Data(contentsOf: URL(fileURLWithPath: dir.sub("out/Library/Preferences/com.example.app.plist")))
        let keys = (try PropertyListSerialization.propertyList(from: copied, format: nil) as? [String: Any])?.keys.sorted()
        XCTAssertEqual(keys, ["firstKey"])
    }

    /// A folder below the data root swapped for another is still caught by the copy's checks.
    func testAFolderBelowTheRootSwappedAfterTheWalkIsRefused() throws {
        let dir = try TempDir("heldbelow")
        try makeContainer(dir.sub("App"), key: "firstKey", note: "first\n")
        let inventory = try Audit.inventory(of: dir.sub("App"))
        try sh("mv App/Documents App/Documents.moved && mkdir App/Documents && echo other > App/Documents/notes.txt", in: dir.path)
        XCTAssertThrowsError(try Materializer.write(SimulationResult(.update, inventory), into: dir.sub("out"))) { error in
            XCTAssertTrue("\(error)".contains("Documents changed while it was copied"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("out")))
    }

    /// The archive's name given to another archive, or to a symlink to one, after the scan: the
    /// copy reads the archive the scan opened.
    func testAnArchiveReplacedAfterTheScanIsCopiedFromTheScannedFile() throws {
        let dir = try TempDir("heldarchive")
        for (name, text) in [("A", "first\n"), ("B", "other\n")] {
            try Fixture.container(at: dir.sub(name))
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir.sub(name + "/Documents/notes.txt")))
            try sh("tar -C \(name) -cf \(name).tar .", in: dir.path)
        }
        try sh("cp B.tar C.tar", in: dir.path)
        for (swap, out) in [("mv B.tar A.tar", "out1"), ("ln -s C.tar A.tar", "out2")] {
            try sh("tar -C A -cf A.tar .", in: dir.path)
            let simulation = SimulationResult(.update, try Audit.inventory(of: dir.sub("A.tar")))
            try sh("rm A.tar && \(swap)", in: dir.path)
            let report = try Materializer.write(simulation, into: dir.sub(out))
            XCTAssertEqual(report.files, 1, swap)
            XCTAssertEqual(try String(contentsOfFile: dir.sub(out + "/Documents/notes.txt"), encoding: .utf8), "first\n", swap)
        }
    }

    /// The scanned archive written over in place (the same file, other bytes) is refused:
    /// what the copy would read is not what was scanned.
    func testAnArchiveWrittenOverInPlaceIsRefused() throws {
        let dir = try TempDir("heldinplace")
        for (name, text) in [("A", "first\n"), ("B", "other, longer\n")] {
            try Fixture.container(at: dir.sub(name))
            try Data(text.utf8).write(to: URL(fileURLWithPath: dir.sub(name + "/Documents/notes.txt")))
            try sh("tar -C \(name) -cf \(name).tar .", in: dir.path)
        }
        try sh("echo x > B/Documents/extra && tar -C B -cf B.tar .", in: dir.path)
        let simulation = SimulationResult(.update, try Audit.inventory(of: dir.sub("A.tar")))
        try sh("cat B.tar > A.tar && touch -t 202311142213.20 A.tar", in: dir.path)
        XCTAssertThrowsError(try Materializer.write(simulation, into: dir.sub("out"))) { error in
            XCTAssertTrue("\(error)".contains("changed since it was scanned"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("out")))
    }

    /// Swaps the folders `App` and `Other` in `folder` (through `App.swap`) as fast as it can
    /// until `stop` exists; prints how many swaps it made.
    static let swapper = """
        import os, sys
        folder, stop = sys.argv[1:3]
        os.chdir(folder)
        made = 0
        while not os.path.exists(stop):
            try:
                os.rename("App", "App.swap"); os.rename("Other", "App"); os.rename("App.swap", "Other")
                made += 1
            except OSError:
                pass
        print(made)
        """

    /// Real runs of the built binary while another process keeps giving the container's name
    /// to the other container: each report reads one container, the one the walk read (its
    /// plist's size, from the walk, with its key, from the content rule), never a mix.
    func testAScanRacedByAFolderSwapReadsOneContainer() throws {
        try Tool.require("python3", for: "the swapper")
        let dir = try TempDir("heldrace")
        try makeContainer(dir.sub("App"), key: "firstKey", note: "first\n")
        try makeContainer(dir.sub("Other"), key: "secondKey", note: "second\n")
        // The second container's plist is larger, so that the walk's size says which one it read.
        let plist = try PropertyListSerialization.data(fromPropertyList: ["secondKey": Data(repeating: 7, count: 700_000)], format: .binary, options: 0)
        try plist.write(to: URL(fileURLWithPath: dir.sub("Other/Library/Preferences/com.example.app.plist")))

        let stop = dir.sub("stop")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", Self.swapper, dir.path, stop]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        var read = [String: Int](), mixed: [String] = []
        for attempt in 0..<40 {
            let r = try CLI.run(["scan", dir.sub("App"), "--format", "json"])
            guard let json = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
                  let findings = json["findings"] as? [[String: Any]],
                  let message = findings.first(where: { $0["ruleId"] as? String == "large-user-defaults" })?["message"] as? String else {
                continue // the name was between the two containers when the scan opened it
            }
            let first = message.contains("600 kB") && message.contains("\"firstKey\"")
            let second = message.contains("700 kB") && message.contains("\"secondKey\"")
            if first { read["first", default: 0] += 1 } else if second { read["second", default: 0] += 1 } else { mixed.append("attempt \(attempt): \(message)") }
        }
        FileManager.default.createFile(atPath: stop, contents: Data())
        let swaps = Int(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        p.waitUntilExit()
        print("HeldInputTests: 40 scans, \(read) read whole, \(mixed.count) mixed, \(swaps) swaps")
        XCTAssertEqual(mixed, [], "a report read from both containers")
        XCTAssertGreaterThan(read.values.reduce(0, +), 0)
        XCTAssertGreaterThan(swaps, 40, "the swapper must have been swapping throughout")
    }
}
