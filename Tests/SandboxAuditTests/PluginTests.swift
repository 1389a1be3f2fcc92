import Foundation
import XCTest

@testable import SandboxAudit

/// The SwiftPM command plugin (Plugin/) with the artifact bundle scripts/artifactbundle.sh makes,
/// run through a real `swift package`: the bundle is built from the binary under test, the plugin
/// package is copied with its binaryTarget pointed at that zip by path (the released one names a
/// URL and a checksum), and a package that depends on the copy runs
/// `swift package plugin --allow-writing-to-package-directory sandbox-audit scan …`. Nothing is
/// fetched: every package is local, and SwiftPM's caches and scratch folder are in the test's
/// temporary folder (so it runs as root in CI, offline, without a home folder).
final class PluginTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// This machine's platform name in the bundle.
    static var platform: String {
        #if os(macOS)
            return "macos-universal"
        #elseif arch(arm64)
            return "linux-aarch64"
        #else
            return "linux-x86_64"
        #endif
    }

    struct Run {
        let status: Int32
        let output: String
    }

    /// Runs `program` with `arguments` in `dir`, standard output and error together (a plugin's
    /// streams reach `swift package`'s standard output together anyway).
    func run(_ program: String, _ arguments: [String], in dir: String) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// The plugin package's manifest with its binaryTarget(url:checksum:) replaced by
    /// binaryTarget(path:), the way a package under development points at a local bundle.
    static func localManifest(_ manifest: String, zip: String) throws -> String {
        let pattern = try NSRegularExpression(
            pattern:
                #"\.binaryTarget\(\s*name: "SandboxAuditBinary",\s*url:\s*"[^"]*",\s*checksum: "[0-9a-f]{64}"\s*\)"#)
        let range = NSRange(manifest.startIndex..., in: manifest)
        XCTAssertEqual(
            pattern.numberOfMatches(in: manifest, range: range), 1,
            "Plugin/Package.swift names its binaryTarget by url and checksum")
        return pattern.stringByReplacingMatches(
            in: manifest, range: range,
            withTemplate: ".binaryTarget(name: \"SandboxAuditBinary\", path: \"\(zip)\")")
    }

    func testThePluginRunsTheBundledBinaryThroughSwiftPackage() throws {
        try Tool.require("swift", "zip", for: "the plugin test builds an artifact bundle and runs swift package")
        let swift = Tool.find("swift")!
        let dir = try TempDir("plugin")
        let repo = Self.repository

        // The bundle, from the binary under test, as the release makes it from its binaries.
        let script = try run(
            "/usr/bin/env",
            [
                "bash", repo + "/scripts/artifactbundle.sh", "-o", dir.sub("bundle"),
                "\(Self.platform)=\(CLI.executable)",
            ], in: repo)
        XCTAssertEqual(script.status, 0, script.output)
        let zipPath = dir.sub("bundle/sandbox-audit.artifactbundle.zip")
        let checksum = script.output.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(checksum.range(of: "^[0-9a-f]{64}$", options: .regularExpression) != nil, script.output)
        let listing = try run(
            "/bin/sh", ["-c", "unzip -Z1 \"$1\" 2>/dev/null || zipinfo -1 \"$1\"", "sh", zipPath], in: dir.path)
        XCTAssertTrue(listing.output.contains("sandbox-audit.artifactbundle/info.json"), listing.output)
        XCTAssertTrue(listing.output.contains("sandbox-audit.artifactbundle/LICENSE"), listing.output)
        XCTAssertTrue(
            listing.output.contains(
                "sandbox-audit.artifactbundle/sandbox-audit-\(Project.version)-\(Self.platform)/bin/sandbox-audit"),
            listing.output)

        // The plugin package, pointed at the zip by path; a package that depends on it.
        try FileManager.default.copyItem(atPath: repo + "/Plugin", toPath: dir.sub("plugin"))
        try FileManager.default.copyItem(atPath: zipPath, toPath: dir.sub("plugin/sandbox-audit.artifactbundle.zip"))
        let manifest = try String(contentsOfFile: dir.sub("plugin/Package.swift"), encoding: .utf8)
        try Self.localManifest(manifest, zip: "sandbox-audit.artifactbundle.zip").write(
            toFile: dir.sub("plugin/Package.swift"), atomically: true, encoding: .utf8)
        try Fixture.mkdirs(dir.sub("app"))
        try """
        // swift-tools-version:5.9
        import PackageDescription
        let package = Package(name: "App", dependencies: [.package(path: "../plugin")], targets: [])

        """.write(toFile: dir.sub("app/Package.swift"), atomically: true, encoding: .utf8)

        let swiftPM = [
            "package", "--scratch-path", dir.sub("scratch"), "--cache-path", dir.sub("cache"),
            "--config-path", dir.sub("config"), "--security-path", dir.sub("security"),
        ]
        // `plugin` takes the permission after it; the verb alone (`swift package --allow-… sandbox-audit`) as well.
        let plugin = ["plugin", "--allow-writing-to-package-directory", "sandbox-audit"]
        // A clean container: exit 0, and the report written into the package.
        let clean = try run(
            swift,
            swiftPM + plugin + [
                "scan", repo + "/sample-containers/WellBehaved",
                "--output", "sarif=audit.sarif",
            ], in: dir.sub("app"))
        XCTAssertEqual(clean.status, 0, clean.output)
        let sarif =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("app/audit.sarif"))))
            as? [String: Any]
        XCTAssertEqual(sarif?["version"] as? String, "2.1.0")
        XCTAssertTrue(clean.output.contains("com.example.wellbehaved"), clean.output)

        // Findings at the fail level: the tool's exit 1 fails `swift package`, which says so.
        let findings = try run(
            swift,
            swiftPM + plugin + [
                "scan", "--format", "json", "--output", "json=report.json",
                repo + "/sample-containers/Misbehaving",
            ], in: dir.sub("app"))
        XCTAssertEqual(findings.status, 1, findings.output)
        XCTAssertTrue(findings.output.contains("Plugin ended with exit code 1"), findings.output)
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.sub("app/report.json"))))
            as? [String: Any]
        let rules = Set(((report?["findings"] as? [[String: Any]]) ?? []).compactMap { $0["ruleId"] as? String })
        XCTAssertTrue(rules.isSuperset(of: ["misplaced-at-root", "split-store-backup"]), "\(rules)")

        // Every subcommand goes through: a usage error is the tool's, exit 2 said by the plugin.
        let usage = try run(
            swift, swiftPM + ["--allow-writing-to-package-directory", "sandbox-audit", "rules", "oversized-file"],
            in: dir.sub("app"))
        XCTAssertEqual(usage.status, 1, usage.output)  // swift package exits 1 for any plugin failure
        XCTAssertTrue(usage.output.contains("did you mean 'oversized-backed-up-file'?"), usage.output)
        XCTAssertTrue(usage.output.contains("Plugin ended with exit code 2"), usage.output)

        // Without the permission, nothing runs (SwiftPM asks for it).
        let refused = try run(swift, swiftPM + ["plugin", "sandbox-audit", "rules"], in: dir.sub("app"))
        XCTAssertEqual(refused.status, 1, refused.output)
        XCTAssertTrue(refused.output.contains("--allow-writing-to-package-directory"), refused.output)
    }

    /// The release's stamp (scripts/stamp-version.sh VERSION DIST) writes the release's URL and
    /// the bundle's checksum into Plugin/Package.swift, in the form the test above rewrites:
    /// run on a copy of the files it stamps.
    func testTheReleaseStampsThePluginsURLAndChecksum() throws {
        let dir = try TempDir("stamp-plugin")
        let repo = Self.repository
        for path in [
            "scripts/stamp-version.sh", "Sources/SandboxAuditSystem/Support/Project.swift", "Formula/sandbox-audit.rb",
            "README.md", "Plugin/Package.swift",
        ] {
            try Fixture.mkdirs((dir.sub(path) as NSString).deletingLastPathComponent)
            try FileManager.default.copyItem(atPath: repo + "/" + path, toPath: dir.sub(path))
        }
        let unstamped = try String(contentsOfFile: dir.sub("Plugin/Package.swift"), encoding: .utf8)
        XCTAssertTrue(
            unstamped.contains("checksum: \"" + String(repeating: "0", count: 64) + "\""), "zeros until a release")
        try Fixture.mkdirs(dir.sub("dist"))
        let sums = ["macos-universal": "a", "linux-x86_64": "b", "linux-aarch64": "c"]
        for (platform, digit) in sums {
            try (String(repeating: digit, count: 64) + "  sandbox-audit-9.8.7-\(platform).tar.gz\n")
                .write(
                    toFile: dir.sub("dist/sandbox-audit-9.8.7-\(platform).tar.gz.sha256"), atomically: true,
                    encoding: .utf8)
        }
        let bundleSum = String(repeating: "d", count: 64)
        try (bundleSum + "  sandbox-audit.artifactbundle.zip\n").write(
            toFile: dir.sub("dist/sandbox-audit.artifactbundle.zip.sha256"), atomically: true, encoding: .utf8)
        let stamp = try run("/bin/sh", ["-c", "bash scripts/stamp-version.sh 9.8.7 dist"], in: dir.path)
        XCTAssertEqual(stamp.status, 0, stamp.output)
        let stamped = try String(contentsOfFile: dir.sub("Plugin/Package.swift"), encoding: .utf8)
        XCTAssertTrue(
            stamped.contains(
                "\"https://github.com/\(Project.repository)/releases/download/v9.8.7/"
                    + "sandbox-audit.artifactbundle.zip\""
            ), stamped)
        XCTAssertTrue(stamped.contains("checksum: \"\(bundleSum)\""), stamped)
        XCTAssertTrue(try Self.localManifest(stamped, zip: "b.zip").contains("path: \"b.zip\""))
        // Without the bundle's checksum the stamp stops, saying which file is missing.
        try FileManager.default.removeItem(atPath: dir.sub("dist/sandbox-audit.artifactbundle.zip.sha256"))
        let missing = try run("/bin/sh", ["-c", "bash scripts/stamp-version.sh 9.8.7 dist"], in: dir.path)
        XCTAssertEqual(missing.status, 2, missing.output)
        XCTAssertTrue(missing.output.contains("sandbox-audit.artifactbundle.zip.sha256"), missing.output)
    }
}
