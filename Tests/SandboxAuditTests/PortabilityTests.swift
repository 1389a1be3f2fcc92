import Foundation
import XCTest

@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What keeps the suite and the tool right on macOS without a Mac at hand: the check that refuses
/// test code a macOS runner would fail for reasons of its environment
/// (`scripts/check-portable-tests.sh`), and the descriptor limit kept within what the system allows.
final class PortabilityTests: XCTestCase {
    static let script = DocsTests.repo + "/scripts/check-portable-tests.sh"

    func run(_ folder: String) throws -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["bash", Self.script, folder]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    /// The suite as it is passes the check.
    func testTheSuitePassesThePortabilityCheck() throws {
        try Tool.require("python3", for: "the check is a Python script")
        let r = try run(DocsTests.repo + "/Tests")
        XCTAssertEqual(r.status, 0, r.out)
    }

    /// Each kind of site it refuses, planted in a copy of a real test file, fails it, named by
    /// file and line; the same sites behind their guards pass.
    func testThePortabilityCheckFailsOnPlantedSites() throws {
        try Tool.require("python3", for: "the check is a Python script")
        let dir = try TempDir("portable")
        let original = try String(
            contentsOfFile: DocsTests.repo + "/Tests/SandboxAuditTests/HeldInputTests.swift", encoding: .utf8)
        let lines = original.split(separator: "\n", omittingEmptySubsequences: false).count
        // The idioms are spelled in pieces here, so that this file does not fail the check itself.
        let (head, touch, xattrsInclude) = ("head", "touch", "--xattrs-" + "include")
        let planted: [(String, String, String)] = [
            (
                "head",
                """
                    func testPlanted() throws {
                        try sh("\(head) -n -1 list > short", in: "/")
                    }
                """, "`head -n -N`"
            ),
            (
                "touch",
                """
                    func testPlanted() throws {
                        try sh("cat B.tar > A.tar && \(touch) -d @1700000000 A.tar", in: "/")
                    }
                """, "@EPOCH`"
            ),
            (
                "tar",
                """
                    func testPlanted() throws {
                        try sh("tar --xattrs \(xattrsInclude)='*' -cf a.tar C", in: "/")
                    }
                """, "GNU tar"
            ),
            (
                "name",
                """
                    func testPlanted() throws {
                        let name = Array("/tmp/caf".utf8) + [0xE9]
                        close((name + [0]).withUnsafeBufferPointer { p in p.baseAddress!.withMemoryRebound(to: \
                CChar.self, capacity: p.count) { open($0, O_WRONLY | O_CREAT, 0o644) } })
                    }
                """, "not UTF-8"
            ),
            (
                "atime",
                """
                    func testPlanted() throws {
                        var st = stat()
                        XCTAssertEqual(st.atimeSpec.tv_sec, 0)
                    }
                """, "access time"
            ),
        ]
        for (label, code, why) in planted {
            let folder = dir.sub(label)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // Planted inside the class: before the file's last closing brace.
            let cut = try XCTUnwrap(original.range(of: "}", options: .backwards))
            let text = original[..<cut.lowerBound] + "\n" + code + "\n}\n"
            try text.write(toFile: folder + "/HeldInputTests.swift", atomically: true, encoding: .utf8)
            let r = try run(folder)
            XCTAssertEqual(r.status, 1, "\(label): \(r.out)")
            XCTAssertTrue(
                r.out.contains("HeldInputTests.swift:\(lines)") || r.out.contains("HeldInputTests.swift:\(lines + 1)")
                    || r.out.contains("HeldInputTests.swift:\(lines + 2)"),
                "\(label): the planted line is named: \(r.out)")
            XCTAssertTrue(r.out.contains(why), "\(label): \(r.out)")
            XCTAssertEqual(
                r.out.split(separator: "\n").filter { $0.contains(".swift:") }.count, 1,
                "\(label): only the planted site: \(r.out)")

            // Guarded, the same code passes: a Linux-only block, or the question asked first.
            let guarded: String
            switch label {
            case "name":
                guarded = code.replacingOccurrences(
                    of: "let name", with: "try NonUTF8Names.require(in: \"/tmp\", for: \"x\")\n        let name")
            case "atime":
                guarded = code.replacingOccurrences(
                    of: "var st", with: "try AccessTimes.require(for: \"x\")\n        var st")
            default: guarded = "    #if os(Linux)\n" + code + "\n    #endif"
            }
            try (original[..<cut.lowerBound] + "\n" + guarded + "\n}\n").write(
                toFile: folder + "/HeldInputTests.swift", atomically: true, encoding: .utf8)
            let ok = try run(folder)
            XCTAssertEqual(ok.status, 0, "\(label) guarded: \(ok.out)")
        }
    }

    /// scripts/darwin-check.sh: the C layer and every Darwin call compile for macOS 13 (arm64
    /// and x86_64), and the list of calls is derived from the Swift sources: a new Darwin call
    /// that darwin_calls.c does not make, or a Linux-only call outside a Linux-only block, fails
    /// it. Skips without zig (PyPI's ziglang; scripts/setup.sh test installs it).
    func testTheDarwinCompileCheckPassesAndCatchesANewCall() throws {
        try Tool.require("python3", for: "the check derives the calls with Python")
        guard Tool.find("zig") != nil || Tool.pythonHas("ziglang") else {
            throw XCTSkip(
                "zig is not installed: the macOS compile check needs it (pip install ziglang; scripts/setup.sh test "
                    + "installs it)"
            )
        }
        func check(_ arguments: [String]) throws -> (status: Int32, out: String) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = ["bash", DocsTests.repo + "/scripts/darwin-check.sh"] + arguments
            let out = Pipe()
            p.standardOutput = out
            p.standardError = out
            try p.run()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return (p.terminationStatus, text)
        }
        let ok = try check([])
        XCTAssertEqual(ok.status, 0, ok.out)
        for line in ["aarch64-macos.13.0 csystem", "x86_64-macos.13.0 calls", "aarch64-macos.12.0 calls refused"] {
            XCTAssertTrue(ok.out.contains("OK    " + line), ok.out)
        }
        // The System target's sources with two planted calls outside a Linux-only block: a
        // Darwin call darwin_calls.c does not make, and a call only glibc declares.
        let dir = try TempDir("darwincheck")
        try sh("cp -R '\(DocsTests.repo)/Sources/SandboxAuditSystem' S", in: dir.path)
        let planted = "\nfunc planted() -> Int32 { fchflags(0, 0) + posix_fadvise(0, 0, 0, 0) }\n"
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dir.sub("S/System/Signals.swift")))
        handle.seekToEndOfFile()
        handle.write(Data(planted.utf8))
        try handle.close()
        let bad = try check([dir.sub("S")])
        XCTAssertEqual(bad.status, 1, bad.out)
        XCTAssertTrue(bad.out.contains("uses fchflags, which"), bad.out)
        XCTAssertTrue(bad.out.contains("declared only by Linux's headers: posix_fadvise"), bad.out)
    }

    /// The soft limit is raised to the hard limit, within the system's ceiling (Darwin's
    /// `kern.maxfilesperproc`), and never lowered by a smaller request or a refusal.
    func testTheDescriptorLimitIsRaisedWithinTheSystemsCeilingAndNeverLowered() throws {
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Platform.descriptorLimit, &saved), 0)
        defer {
            var back = saved
            _ = setrlimit(Platform.descriptorLimit, &back)
        }
        guard saved.rlim_max > 512 else {
            throw XCTSkip("the hard limit on descriptors is \(saved.rlim_max): nothing to raise to")
        }
        var low = saved
        low.rlim_cur = 256
        XCTAssertEqual(setrlimit(Platform.descriptorLimit, &low), 0)
        let raised = raiseDescriptorLimit(to: 65_536)
        var now = rlimit()
        XCTAssertEqual(getrlimit(Platform.descriptorLimit, &now), 0)
        XCTAssertEqual(now.rlim_cur, raised)
        XCTAssertGreaterThan(raised, 256)
        var expected = min(saved.rlim_max, 65_536)
        if let ceiling = Platform.descriptorCeiling { expected = min(expected, ceiling) }
        XCTAssertTrue(
            raised == expected || raised == min(expected, 10_240), "raised to \(raised), expected \(expected)")
        // A smaller request leaves it where it is.
        XCTAssertEqual(raiseDescriptorLimit(to: 100), raised)
        XCTAssertEqual(getrlimit(Platform.descriptorLimit, &now), 0)
        XCTAssertEqual(now.rlim_cur, raised)
    }
}
