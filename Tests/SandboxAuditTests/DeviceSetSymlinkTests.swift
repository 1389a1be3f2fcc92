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

/// A Simulator device set owned by someone else (a shared `--device-set` folder on a CI Mac)
/// must not lead a run outside it (issue 35, item 1): every folder below the set is opened from
/// its parent's descriptor without following a symlink, and the container the listing found is
/// opened through that listing, identity checked. Symlinks put there beforehand are refused or
/// skipped with a line saying so; swapped in while root runs `inventory` and
/// `simulate restore --into`, they lead to nothing outside the set.
final class DeviceSetSymlinkTests: XCTestCase {
    static let app = SimulatorDeviceTests.app
    static let udid = SimulatorDeviceTests.booted
    static let secret = "SECRET-outside-the-device-set"
    /// The folders from the device folder down to the app's data container.
    static let chain = [
        "data", "data/Containers", "data/Containers/Data/Application", "data/Containers/Data/Application/1111",
    ]

    /// A set with the booted device of `SimulatorDeviceTests`, and `outside`: a folder of root's,
    /// mode 0700, holding the same device's folders down to a data container of the same app
    /// whose files hold the secret.
    func makeSet(_ dir: TempDir) throws -> (set: String, outside: String) {
        let set = dir.sub("set")
        _ = try SimulatorDeviceTests.device(set, Self.udid, name: "iPhone 17", state: 3)
        let outside = dir.sub("outside")
        let container = outside + "/" + Self.udid + "/" + Self.chain[3]
        try Fixture.container(at: container)
        try SimulatorDeviceTests.plist(
            container + "/" + Container.simulatorMetadata,
            ["MCMMetadataIdentifier": Self.app, "MCMMetadataContentClass": 2])
        try Fixture.bytes(
            container + "/Documents/outside-only.bin", Array((Self.secret + String(repeating: "!", count: 100)).utf8))
        try Fixture.mkdirs(outside + "/" + Self.udid + "/data/Containers/Shared/AppGroup")
        chmod(outside, 0o700)
        return (set, outside)
    }

    /// What a run shows of the outside: its file's name in the output, the secret in any file below `out`.
    func leaks(_ r: CLI.Result, out: String?) -> [String] {
        var found: [String] = []
        if r.stdout.contains("outside-only") || r.stderr.contains("outside-only") {
            found.append("the output names a file outside the set")
        }
        if let out, let e = FileManager.default.enumerator(atPath: out) {
            while let rel = e.nextObject() as? String {
                var st = stat()
                guard lstat(out + "/" + rel, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
                if let data = FileManager.default.contents(atPath: out + "/" + rel),
                    data.range(of: Data(Self.secret.utf8)) != nil
                {
                    found.append("\(rel) in --into holds the secret")
                }
            }
        }
        return found
    }

    /// Each folder from the device's `data` down to the app's container, put there beforehand as
    /// a symlink to its twin outside: `data`, `Containers` and `Data/Application` are refused
    /// (exit 2, one line naming the path), the container is skipped (exit 2: the app is not
    /// there, the symlink named); nothing of the outside is read.
    func testSymlinksPlacedInTheSetAreRefusedOrSkippedWithALine() throws {
        for (index, component) in Self.chain.enumerated() {
            let dir = try TempDir("devset")
            let (set, outside) = try makeSet(dir)
            let inside = set + "/" + Self.udid + "/" + component
            try FileManager.default.removeItem(atPath: inside)
            XCTAssertEqual(symlink(outside + "/" + Self.udid + "/" + component, inside), 0)
            for command in [
                ["inventory"], ["scan", "--format", "json"], ["simulate", "restore", "--into", dir.sub("out")],
            ] {
                let r = try CLI.run(command + ["--simulator", "booted", "--app", Self.app, "--device-set", set])
                XCTAssertEqual(r.status, 2, "\(component) \(command[0]): \(r.stderr)")
                XCTAssertEqual(leaks(r, out: dir.sub("out")), [], component)
                XCTAssertFalse(FileManager.default.fileExists(atPath: dir.sub("out")), component)
                let lines = r.stderr.split(separator: "\n")
                XCTAssertEqual(lines.count, 1, r.stderr)
                if index < 3 {
                    XCTAssertTrue(r.stderr.contains("is a symbolic link: refused"), "\(component): \(r.stderr)")
                } else {
                    XCTAssertTrue(
                        r.stderr.contains("no data container of \(Self.app)")
                            && r.stderr.contains("symbolic links skipped, never followed: \(inside)"),
                        "\(component): \(r.stderr)")
                }
            }
        }
    }

    /// A device folder put in the set as a symlink is no device of the set; a device folder
    /// given as PATH with `--app` refuses a symlinked `data/Containers` the same way.
    func testSymlinkedDeviceFolderIsNoDeviceAndAPathRefusesTheSame() throws {
        let dir = try TempDir("devset")
        let (set, outside) = try makeSet(dir)
        try FileManager.default.moveItem(atPath: set + "/" + Self.udid, toPath: dir.sub("moved"))
        XCTAssertEqual(symlink(dir.sub("moved"), set + "/" + Self.udid), 0)
        let r = try CLI.run(["inventory", "--simulator", "booted", "--app", Self.app, "--device-set", set])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("no Simulator device is booted"), r.stderr)

        try FileManager.default.removeItem(atPath: dir.sub("moved/data/Containers"))
        XCTAssertEqual(symlink(outside + "/" + Self.udid + "/data/Containers", dir.sub("moved/data/Containers")), 0)
        let byPath = try CLI.run(["inventory", dir.sub("moved"), "--app", Self.app])
        XCTAssertEqual(byPath.status, 2, byPath.stderr)
        XCTAssertTrue(byPath.stderr.contains("is a symbolic link: refused"), byPath.stderr)
        XCTAssertEqual(leaks(byPath, out: nil), [])
    }

    /// A container (it has Documents, Library or tmp) whose data root holds symlinks named
    /// `data` and `Containers` is still read as a container, with or without `--app`.
    func testAContainerWithSymlinksNamedLikeDeviceFoldersIsStillAContainer() throws {
        let dir = try TempDir("devset")
        try Fixture.container(at: dir.sub("c"))
        try Fixture.mkdirs(dir.sub("elsewhere/Data/Application"))
        XCTAssertEqual(symlink(dir.sub("elsewhere"), dir.sub("c/Containers")), 0)
        XCTAssertEqual(symlink(dir.sub("elsewhere"), dir.sub("c/data")), 0)
        for extra in [[], ["--app", Self.app]] {
            let r = try CLI.run(["inventory", dir.sub("c")] + extra)
            XCTAssertEqual(r.status, 0, "\(extra): \(r.stderr)")
        }
    }

    /// The system call itself: openat2 (or its fallback, one component at a time) refuses a
    /// symlink at any component and `..`, and opens a real folder.
    func testOpenBeneathRefusesASymlinkAtAnyComponent() throws {
        let dir = try TempDir("beneath")
        try Fixture.mkdirs(dir.sub("a/b/c"))
        try Fixture.mkdirs(dir.sub("x/b/c"))
        XCTAssertEqual(symlink(dir.sub("x/b"), dir.sub("a/link")), 0)
        let top = try FileDescriptor.currentDirectory.openDirectory(dir.path.utf8)
        defer { top.close() }
        XCTAssertNoThrow(try top.openDirectory(beneath: "a/b/c").close())
        XCTAssertNoThrow(try top.openDirectory(componentwise: [Array("a".utf8), Array("b".utf8)]).close())
        for path in ["a/link/c", "a/link", "a/../x/b", "a//b", ""] {
            XCTAssertThrowsError(try top.openDirectory(beneath: path).close(), path)
            let parts = path.split(separator: "/", omittingEmptySubsequences: false).map { Array($0.utf8) }
            XCTAssertThrowsError(try top.openDirectory(componentwise: parts).close(), path)
        }
        do {
            _ = try top.openDirectory(beneath: "a/link/c")
            XCTFail()
        } catch { XCTAssertTrue([ELOOP, EXDEV, ENOTDIR].contains(error.code), "\(error)") }
    }

    /// The race: while root runs `inventory` and `simulate restore --into` on a device set that
    /// `nobody` owns, `nobody` swaps each folder from `data` down to the app's container for a
    /// symlink to its twin in a folder of root's it cannot enter, and back. At least 50 timed
    /// attempts; none reads anything outside the set: each run succeeds with the set's own data
    /// or exits 2 with one line.
    func testSwappedForSymlinksWhileRootRunsNothingOutsideIsRead() throws {
        #if !os(Linux)
            throw XCTSkip("the swapper runs through setpriv (Linux)")
        #else
            guard geteuid() == 0 else {
                throw XCTSkip("the run must be root's and the swapper nobody's: run the tests as root")
            }
            try Tool.require("setpriv", for: "runs the swapper as nobody")
            let dir = try TempDir("devset-race")
            let (set, outside) = try makeSet(dir)
            let chown = Process()
            chown.executableURL = URL(fileURLWithPath: try Tool.path("chown", for: "gives the device set to nobody"))
            chown.arguments = ["-R", "-h", "65534:65534", set]
            try chown.run()
            chown.waitUntilExit()
            let device = set + "/" + Self.udid
            let swapper = """
                import os, sys, time, random
                device, outside, stop = sys.argv[1:4]
                targets = sys.argv[4:]
                tried = made = 0
                while not os.path.exists(stop):
                    t = random.choice(targets)
                    tried += 1
                    p = os.path.join(device, t)
                    try:
                        os.rename(p, p + ".real")
                    except OSError:
                        continue
                    try:
                        os.symlink(os.path.join(outside, t), p)
                        made += 1
                        time.sleep(random.choice([0.0005, 0.002, 0.005, 0.01]))
                        os.unlink(p)
                    except OSError:
                        pass
                    try:
                        os.rename(p + ".real", p)
                    except OSError:
                        pass
                    time.sleep(random.choice([0, 0.001, 0.003]))
                print(tried, made)
                """
            let p = Process()
            p.executableURL = URL(fileURLWithPath: try Tool.path("setpriv", for: "runs the swapper as nobody"))
            p.arguments =
                [
                    "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/env", "python3", "-c", swapper,
                    device, outside + "/" + Self.udid, dir.sub("stop"),
                ] + Self.chain
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            var problems: [String] = []
            var succeeded = 0
            var refused = 0
            let attempts = 60
            for i in 0..<attempts {
                let out = dir.sub("out-\(i)")
                let command = i % 2 == 0 ? ["inventory"] : ["simulate", "restore", "--into", out]
                let r = try CLI.run(command + ["--simulator", "booted", "--app", Self.app, "--device-set", set])
                problems += leaks(r, out: out).map { "attempt \(i) (\(command[0])): \($0)" }
                switch r.status {
                case 0:
                    succeeded += 1
                    if i % 2 == 0, !r.stdout.contains("Documents/mine.bin") {
                        problems.append("attempt \(i): inventory without the set's own file: \(r.stdout.prefix(300))")
                    }
                    if i % 2 == 1,
                        !FileManager.default.fileExists(atPath: out + "/AppDomain-\(Self.app)/Documents/mine.bin")
                    {
                        problems.append(
                            "attempt \(i): --into without the set's own file: \(r.stdout.suffix(700)) \(r.stderr)")
                    }
                case 2:
                    refused += 1
                    if r.stderr.split(separator: "\n").count != 1 {
                        problems.append("attempt \(i): not one line: \(r.stderr)")
                    }
                default: problems.append("attempt \(i): exit \(r.status): \(r.stderr)")
                }
                try? FileManager.default.removeItem(atPath: out)
            }
            _ = FileManager.default.createFile(atPath: dir.sub("stop"), contents: Data())
            let numbers = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(
                whereSeparator: \.isWhitespace
            ).compactMap { Int($0) }
            p.waitUntilExit()
            print(
                "device-set race: \(attempts) attempts, \(succeeded) read the set's own data, \(refused) refused "
                    + "with one line; swapper made \(numbers.last ?? 0) swaps (\(numbers.first ?? 0) tried)"
            )
            XCTAssertEqual(problems, [])
            XCTAssertGreaterThan(numbers.last ?? 0, attempts, "the swapper hardly swapped: the test proves nothing")
            XCTAssertGreaterThan(refused, 0, "no run met a swapped folder: the test proves nothing")
        #endif
    }
}
