import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `xcrun simctl listapps` within its bound (issue 35, item 6): a fake `xcrun` first on PATH
/// that sleeps, leaves a child holding its output, stops itself, prints a plist bomb, a
/// deeply nested text plist or too much: each run ends within the 30 s deadline (plus the
/// scan's own second or two), with a note saying why no list came, and the child is ended
/// with its process group.
final class XcrunDeadlineTests: XCTestCase {
    /// A binary plist of `levels` arrays, each holding the next one twice: 2^levels leaves
    /// from a few hundred bytes.
    static func bomb(levels: Int) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for i in 0..<levels {
            offsets.append(bytes.count)
            bytes += [0xA2, UInt8(i + 1), UInt8(i + 1)]
        }
        offsets.append(bytes.count)
        bytes += [0x51, UInt8(ascii: "a")]
        let table = bytes.count
        for o in offsets { bytes += [UInt8(o >> 8), UInt8(o & 0xff)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        func be64(_ v: Int) -> [UInt8] { (0..<8).reversed().map { UInt8((v >> ($0 * 8)) & 0xff) } }
        bytes += be64(offsets.count) + be64(0) + be64(table)
        return bytes
    }

    func testAHangingStoppedOrFloodingXcrunEndsWithinTheBoundWithANote() throws {
        let dir = try TempDir("xcrun")
        let home = try SimulatorDeviceTests.home(dir)
        try Fixture.bytes(dir.sub("bomb.plist"), Self.bomb(levels: 40))
        try Fixture.bytes(
            dir.sub("deep.txt"),
            Array((String(repeating: "(", count: 200_000) + String(repeating: ")", count: 200_000)).utf8))
        let cases: [(name: String, script: String, note: String, slow: Bool)] = [
            ("sleeps", "exec sleep 300", "ran over 30 s", true),
            (
                "child holds the pipe", "sh -c 'echo $$ > \(dir.sub("child.pid")); exec sleep 300' &\necho '{'\nexit 0",
                "ran over 30 s", true
            ),
            ("stops itself", "echo '{'\nkill -STOP $$", "ran over 30 s", true),
            ("plist bomb", "cat '\(dir.sub("bomb.plist"))'", "not a property list read within bounds", false),
            ("deep text plist", "cat '\(dir.sub("deep.txt"))'", "nested more than 256 deep", false),
            ("floods", "exec head -c 6000000 /dev/zero", "it printed over", false),
        ]
        final class Box: @unchecked Sendable {
            var results: [Int: (CLI.Result, Double)] = [:]
            var errors: [String] = []
            let lock = NSLock()
        }
        let box = Box()
        // One thread each, all at once: the slow cases wait out their deadlines together.
        let group = DispatchGroup()
        for i in cases.indices {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let bin = dir.sub("bin\(i)")
                do {
                    try Fixture.mkdirs(bin)
                    try Fixture.bytes(bin + "/xcrun", Array("#!/bin/sh\n\(cases[i].script)\n".utf8))
                    chmod(bin + "/xcrun", 0o755)
                    let env = [
                        "HOME": home,
                        "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                    ]
                    let start = Date()
                    let r = try CLI.run(
                        ["scan", "--format", "json", "--simulator", "booted", "--app", SimulatorDeviceTests.app],
                        environment: env)
                    box.lock.lock()
                    box.results[i] = (r, Date().timeIntervalSince(start))
                    box.lock.unlock()
                } catch {
                    box.lock.lock()
                    box.errors.append("\(cases[i].name): \(error)")
                    box.lock.unlock()
                }
            }
        }
        group.wait()
        XCTAssertEqual(box.errors, [])
        for (i, c) in cases.enumerated() {
            guard let (r, seconds) = box.results[i] else { continue }
            XCTAssertEqual(r.status, 0, "\(c.name): \(r.stderr)")  // no list from xcrun is a note, not a failure
            XCTAssertLessThan(seconds, c.slow ? 45 : 15, "\(c.name): took \(seconds) s")
            let notes =
                ((try? JSONSerialization.jsonObject(with: r.stdoutBytes)) as? [String: Any])?["notes"] as? [String]
                ?? []
            XCTAssertTrue(
                notes.contains { $0.contains("xcrun simctl listapps gave no list") && $0.contains(c.note) },
                "\(c.name): \(notes)")
            XCTAssertTrue(
                notes.contains { $0.contains("App Group containers not audited") && $0.contains("guessed") },
                "\(c.name): \(notes)")
        }
        // The child that held the pipe was ended with the group.
        if let pid = Int32(
            (try? String(contentsOfFile: dir.sub("child.pid"), encoding: .utf8))?.trimmingCharacters(
                in: .whitespacesAndNewlines) ?? "")
        {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
                .dropFirst(2).first
            XCTAssertTrue(state == nil || state == "Z", "the child holding the pipe still runs: \(state ?? "")")
        } else {
            XCTFail("the child never started")
        }
    }

    /// The bounded run itself: output, exit status and a deadline.
    func testSubprocessRunsWithinItsDeadline() throws {
        let ok = Subprocess.run("/bin/sh", ["-c", "printf hello; exit 3"], timeout: 10, maximumOutput: 100)
        XCTAssertEqual(ok.ending, .exited(3))
        XCTAssertEqual(ok.output, Array("hello".utf8))
        let start = Date()
        let slow = Subprocess.run("/bin/sh", ["-c", "sleep 30 & printf x; wait"], timeout: 1, maximumOutput: 100)
        XCTAssertEqual(slow.ending, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(
            Subprocess.run("/bin/sh", ["-c", "head -c 1000 /dev/zero"], timeout: 10, maximumOutput: 100).ending,
            .tooMuchOutput)
        if case .notStarted = Subprocess.run("/nonexistent/xcrun", [], timeout: 1, maximumOutput: 1).ending {
        } else {
            XCTFail("a missing program started")
        }
    }
}
