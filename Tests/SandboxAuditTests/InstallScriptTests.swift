import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// scripts/install.sh against a release served on 127.0.0.1 (python3 -m http.server), run as a
/// subprocess under `env -i PATH=/usr/bin:/bin`. The tarball is `scripts/dist.sh --package`'s:
/// the release layout and name, made from the binary the tests already built (a release build
/// would add minutes; the layout, the name and the checksum file are what install.sh reads).
final class InstallScriptTests: XCTestCase {
    static let script = DocsTests.repo + "/scripts/install.sh"

    /// A release folder (`vVERSION/NAME.tar.gz` and its `.sha256`) served on a free port, made
    /// once for the class (packaging the debug binary takes seconds). Below it, `corrupt/` holds
    /// the same release with one byte of the tarball changed.
    final class Release: @unchecked Sendable {
        let root: TempDir
        let server: Process
        let base: String

        nonisolated(unsafe) static var shared: Result<Release, Error>?
        static func get() throws -> Release {
            if shared == nil { shared = Result { try Release() } }
            return try shared!.get()
        }

        init() throws {
            try Tool.require(
                "python3", "tar", for: "the release is served with python3 -m http.server and unpacked with tar")
            guard Tool.find("curl") != nil || Tool.find("wget") != nil else {
                throw XCTSkip("install.sh downloads with curl or wget; neither is installed")
            }
            root = try TempDir("release")
            let folder = root.sub("v\(Project.version)")
            try sh("scripts/dist.sh --package '\(CLI.executable)' '\(folder)'", in: DocsTests.repo)
            let tarballs = try FileManager.default.contentsOfDirectory(atPath: folder).filter {
                $0.hasSuffix(".tar.gz")
            }
            XCTAssertEqual(tarballs.count, 1, "\(tarballs)")
            try sh("mkdir corrupt && cp -R 'v\(Project.version)' corrupt/", in: root.path)
            let corrupt = root.sub("corrupt/v\(Project.version)/") + (tarballs.first ?? "none")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: corrupt))
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: corrupt))
            // Port 0: the server binds a free port and prints it.
            server = Process()
            server.executableURL = URL(fileURLWithPath: Tool.find("python3")!)
            server.arguments = ["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", root.path, "0"]
            let out = Pipe()
            server.standardOutput = out
            server.standardError = FileHandle.nullDevice
            try server.run()
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = out.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                line += chunk
            }
            // "Serving HTTP on 127.0.0.1 port 41234 (http://127.0.0.1:41234/) ..."
            let words = String(decoding: line, as: UTF8.self).split(separator: " ")
            guard let i = words.firstIndex(of: "port"), i + 1 < words.count, let port = Int(words[i + 1]) else {
                server.terminate()
                throw CommandFailed(
                    command: "python3 -m http.server", status: -1, stderr: String(decoding: line, as: UTF8.self))
            }
            base = "http://127.0.0.1:\(port)"
        }

        func stop() {
            server.terminate()
            server.waitUntilExit()
        }
    }

    override class func tearDown() {
        if case .success(let release)? = Release.shared { release.stop() }
        Release.shared = nil
        super.tearDown()
    }

    /// install.sh VERSION DIR with nothing of this environment but PATH and the download base.
    func install(_ version: String, into dir: String, base: String) throws -> CLI.Result {
        try CLI.run(
            ["-i", "PATH=/usr/bin:/bin", "SANDBOX_AUDIT_DOWNLOAD_URL=\(base)", Self.script, version, dir],
            via: "/usr/bin/env")
    }

    func testInstallsAReleaseThatScansUnderAnEmptyEnvironment() throws {
        let release = try Release.get()
        let target = try TempDir("bin")
        let dir = target.sub("tools/bin")  // made by the script
        let r = try install(Project.version, into: dir, base: release.base)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("installed as \(dir)/sandbox-audit"), r.stdout)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir), ["sandbox-audit"], "nothing but the binary")

        let version = try CLI.run(
            ["-i", "PATH=/usr/bin:/bin", dir + "/sandbox-audit", "--version"], via: "/usr/bin/env")
        XCTAssertEqual(version.stdout, Project.version + "\n", version.stderr)
        let samples = DocsTests.repo + "/sample-containers"
        let scan = try CLI.run(
            [
                "-i", "PATH=/usr/bin:/bin", dir + "/sandbox-audit", "scan", "--config",
                samples + "/WellBehaved.sandbox-audit.yml", samples + "/WellBehaved",
            ], via: "/usr/bin/env")
        XCTAssertEqual(scan.status, 0, scan.stdout + scan.stderr)
        let misbehaving = try CLI.run(
            ["-i", "PATH=/usr/bin:/bin", dir + "/sandbox-audit", "scan", "--format", "json", samples + "/Misbehaving"],
            via: "/usr/bin/env")
        XCTAssertEqual(misbehaving.status, 1, misbehaving.stderr)
        XCTAssertTrue(misbehaving.stdout.contains("\"ruleId\""), String(misbehaving.stdout.prefix(300)))
    }

    /// The tarball carries the project's LICENSE beside the binary and the README.
    func testTheTarballCarriesTheLicence() throws {
        let release = try Release.get()
        let folder = release.root.sub("v\(Project.version)")
        let tarball = try XCTUnwrap(
            try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".tar.gz") })
        let dir = try TempDir("unpacked")
        try sh("tar -xzf '\(folder)/\(tarball)'", in: dir.path)
        let name = String(tarball.dropLast(".tar.gz".count))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dir.sub(name)).sorted(),
            ["LICENSE", "README.md", "sandbox-audit"])
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: dir.sub(name + "/LICENSE"))),
            try Data(contentsOf: URL(fileURLWithPath: DocsTests.repo + "/LICENSE")))
    }

    func testRefusesATarballWhoseChecksumDiffersAndInstallsNothing() throws {
        let release = try Release.get()
        let target = try TempDir("bin")
        // An earlier install stays as it was.
        XCTAssertEqual(try install(Project.version, into: target.path, base: release.base).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: target.sub("sandbox-audit")))
        for dir in [target.path, target.sub("fresh")] {
            let r = try install(Project.version, into: dir, base: release.base + "/corrupt")
            XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(
                r.stderr.hasPrefix("install: checksum mismatch for sandbox-audit-\(Project.version)-"), r.stderr)
            XCTAssertTrue(r.stderr.hasSuffix("nothing installed\n"), r.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: target.sub("sandbox-audit"))), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: target.path), ["sandbox-audit"], "no staged file left")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.sub("fresh/sandbox-audit")))
    }

    func testAReleaseThatIsNotThereIsExit3AndAUsageErrorExit2() throws {
        let release = try Release.get()
        let target = try TempDir("bin")
        let missing = try install("99.0.0", into: target.path, base: release.base)
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertTrue(
            missing.stderr.hasPrefix("install: cannot download \(release.base)/v99.0.0/sandbox-audit-99.0.0-"),
            missing.stderr)
        let usage = try CLI.run(["-i", "PATH=/usr/bin:/bin", Self.script], via: "/usr/bin/env")
        XCTAssertEqual(usage.status, 2)
        XCTAssertEqual(usage.stderr, "install: usage: install.sh VERSION [DIR]\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [])
    }
}
