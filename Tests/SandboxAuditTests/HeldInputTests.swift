import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// An input is opened once, when it is located, and read through that descriptor for the rest
/// of the run (issue 22): a folder container or an archive whose name is given to another folder
/// or file after the walk is still read, by the content rules and by `simulate --into`, from the
/// one the walk read. The swap is made between the stages, through the library's own calls.
final class HeldInputTests: XCTestCase {
    /// A container whose UserDefaults plist is over the warning size (so the rule reads it
    /// whole, through the content reader) with one top-level key, and a note.
    func makeContainer(_ root: String, key: String, note: String) throws {
        try Fixture.container(at: root)
        let plist = try PropertyListSerialization.data(
            fromPropertyList: [key: Data(repeating: 7, count: 600_000)], format: .binary, options: 0)
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
        let result = Audit.run(
            dir.sub("App"), inventories: [inventory], selection: ContainerSelection(), policy: Policy(),
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
        let copied = try Data(
            contentsOf: URL(fileURLWithPath: dir.sub("out/Library/Preferences/com.example.app.plist")))
        let keys = (try PropertyListSerialization.propertyList(from: copied, format: nil) as? [String: Any])?.keys
            .sorted()
        XCTAssertEqual(keys, ["firstKey"])
    }

    /// A folder below the data root swapped for another is still caught by the copy's checks.
    func testAFolderBelowTheRootSwappedAfterTheWalkIsRefused() throws {
        let dir = try TempDir("heldbelow")
        try makeContainer(dir.sub("App"), key: "firstKey", note: "first\n")
        let inventory = try Audit.inventory(of: dir.sub("App"))
        try sh(
            "mv App/Documents App/Documents.moved && mkdir App/Documents && echo other > App/Documents/notes.txt",
            in: dir.path)
        XCTAssertThrowsError(try Materializer.write(SimulationResult(.update, inventory), into: dir.sub("out"))) {
            error in
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
            XCTAssertEqual(
                try String(contentsOfFile: dir.sub(out + "/Documents/notes.txt"), encoding: .utf8), "first\n", swap)
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

    /// Writes `B` over `A` in place (the same file, `A`'s size) and sets `A`'s access and
    /// modification times back to what they were, to the nanosecond.
    static let rewriteInPlace = """
        import os, sys
        a, b = sys.argv[1:3]
        st = os.stat(a)
        data = open(b, "rb").read()
        assert len(data) == st.st_size, (len(data), st.st_size)
        with open(a, "r+b") as f:
            f.write(data)
        os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns))
        """

    /// A container archive whose notes file holds `text`; gzipped when `out` ends in .gz (with
    /// no time in the gzip header).
    static let writeArchive = """
        import gzip, io, sys, tarfile
        out, name, text = sys.argv[1], sys.argv[2], sys.argv[3].encode()
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
            for d in ("Documents", "Library", "Library/Preferences", "tmp"):
                info = tarfile.TarInfo(d); info.type = tarfile.DIRTYPE; info.mode = 0o755; t.addfile(info)
            info = tarfile.TarInfo("Documents/" + name); info.size = len(text); info.mode = 0o644
            t.addfile(info, io.BytesIO(text))
        data = buf.getvalue()
        if out.endswith(".gz"):
            data = gzip.compress(data, compresslevel=6, mtime=0)
        open(out, "wb").write(data)
        """

    /// The scanned archive written over in place by its owner after the scan with bytes of the
    /// same size, its modification time set back: the size and time the scan saw still hold,
    /// but the bytes `--into` reads are not those the scan read, so the copy is refused, every
    /// time, with nothing left (a member's data, a member's name, a gzipped archive's bytes).
    /// The same archive only renamed after the scan is still copied, from the scanned file.
    func testAnArchiveRewrittenInPlaceWithItsSizeAndTimeIsRefused() throws {
        try Tool.require("python3", for: "the archives are written and rewritten by Python")
        let dir = try TempDir("heldrewrite")
        // (archive, the scanned one's member and text, the rewrite's)
        var cases: [(String, String, String, String, String)] = [
            ("a.tar", "notes.txt", "first\n", "notes.txt", "FIRST\n"),
            ("b.tar", "notes.txt", "first\n", "notez.txt", "first\n"),
        ]
        // Two gzipped archives of the same size with other notes.
        try python(Self.writeArchive, [dir.sub("g0.tar.gz"), "notes.txt", "first note\n"])
        let size = try FileManager.default.attributesOfItem(atPath: dir.sub("g0.tar.gz"))[.size] as! Int
        for i in 0..<200 {
            let text = "other \(String(format: "%04d", i))\n"
            try python(Self.writeArchive, [dir.sub("g1.tar.gz"), "notes.txt", text])
            if try FileManager.default.attributesOfItem(atPath: dir.sub("g1.tar.gz"))[.size] as! Int == size {
                cases.append(("c.tar.gz", "notes.txt", "first note\n", "notes.txt", text))
                break
            }
        }
        XCTAssertEqual(cases.count, 3, "no gzipped archive of the same size was found")
        for round in 0..<10 {
            let (name, member, text, otherMember, otherText) = cases[round % cases.count]
            try python(Self.writeArchive, [dir.sub(name), member, text])
            try python(Self.writeArchive, [dir.sub("other-" + name), otherMember, otherText])
            let simulation = SimulationResult(.update, try Audit.inventory(of: dir.sub(name)))
            _ = try python(Self.rewriteInPlace, [dir.sub(name), dir.sub("other-" + name)])
            XCTAssertTrue(
                simulation.inventory.archive?.isUnchanged == true, "\(name): the size and time should read as unchanged"
            )
            let out = dir.sub("out\(round)")
            XCTAssertThrowsError(try Materializer.write(simulation, into: out), name) { error in
                XCTAssertTrue("\(error)".contains("changed since it was scanned"), "\(name): \(error)")
                XCTAssertEqual("\(error)".split(separator: "\n").count, 1, "\(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), name)
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".out") }, [], name)
        }
        // Renamed after the scan (its ctime moves): copied from the scanned file.
        for (name, _, text, _, _) in cases {
            try python(Self.writeArchive, [dir.sub(name), "notes.txt", text])
            let simulation = SimulationResult(.update, try Audit.inventory(of: dir.sub(name)))
            try sh("mv \(name) moved-\(name)", in: dir.path)
            let report = try Materializer.write(simulation, into: dir.sub("kept-" + name))
            XCTAssertEqual(report.files, 1, name)
            XCTAssertEqual(
                try String(contentsOfFile: dir.sub("kept-\(name)/Documents/notes.txt"), encoding: .utf8), text, name)
        }
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
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["secondKey": Data(repeating: 7, count: 700_000)], format: .binary, options: 0)
        try plist.write(to: URL(fileURLWithPath: dir.sub("Other/Library/Preferences/com.example.app.plist")))

        let stop = dir.sub("stop")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", Self.swapper, dir.path, stop]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        var read = [String: Int]()
        var mixed: [String] = []
        for attempt in 0..<40 {
            let r = try CLI.run(["scan", dir.sub("App"), "--format", "json"])
            guard let json = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
                let findings = json["findings"] as? [[String: Any]],
                let message = findings.first(where: { $0["ruleId"] as? String == "large-user-defaults" })?["message"]
                    as? String
            else {
                continue  // the name was between the two containers when the scan opened it
            }
            let first = message.contains("600 kB") && message.contains("\"firstKey\"")
            let second = message.contains("700 kB") && message.contains("\"secondKey\"")
            if first {
                read["first", default: 0] += 1
            } else if second {
                read["second", default: 0] += 1
            } else {
                mixed.append("attempt \(attempt): \(message)")
            }
        }
        _ = FileManager.default.createFile(atPath: stop, contents: Data())
        let swaps =
            Int(
                String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(
                    in: .whitespacesAndNewlines)) ?? 0
        p.waitUntilExit()
        print("HeldInputTests: 40 scans, \(read) read whole, \(mixed.count) mixed, \(swaps) swaps")
        XCTAssertEqual(mixed, [], "a report read from both containers")
        XCTAssertGreaterThan(read.values.reduce(0, +), 0)
        XCTAssertGreaterThan(swaps, 40, "the swapper must have been swapping throughout")
    }
}
