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

/// The file times of a `stat`, under one name on Linux (`st_mtim`) and Darwin (`st_mtimespec`).
extension stat {
    #if canImport(Darwin)
        var mtimeSpec: timespec { st_mtimespec }
        var atimeSpec: timespec { st_atimespec }
        var ctimeSpec: timespec { st_ctimespec }
    #else
        var mtimeSpec: timespec { st_mtim }
        var atimeSpec: timespec { st_atim }
        var ctimeSpec: timespec { st_ctim }
    #endif
}

/// The outside tools some tests run. A test that needs one calls `Tool.require` (or `Tool.path`)
/// first and skips, saying why, when it is missing (`scripts/setup.sh test` installs them all).
/// A tool is looked for on the test process's PATH, never at a fixed path: `/bin/sh -c` and
/// `/usr/bin/env` find it there too, and so does a user who installed it elsewhere.
enum Tool {
    /// Where each tool comes from, for the skip message.
    static let packages = [
        "bsdtar": "Debian: apt-get install libarchive-tools; macOS has it",
        "zip": "Debian: apt-get install zip; macOS has it",
        "xz": "Debian: apt-get install xz-utils; macOS: brew install xz",
        "tar": "Debian: apt-get install tar (GNU tar)",
        "gzip": "Debian: apt-get install gzip",
        "python3": "Debian: apt-get install python3",
        "setpriv": "Debian: apt-get install util-linux (Linux only)",
        "prlimit": "Debian: apt-get install util-linux (Linux only)",
        "script": "Debian: apt-get install bsdutils; macOS has it",
        "time": "Debian: apt-get install time (GNU time); macOS has it",
        "timeout": "Debian: apt-get install coreutils",
        "ncdu": "Debian: apt-get install ncdu; macOS: brew install ncdu",
        "check-jsonschema": "pip install --user check-jsonschema, with pip's user bin folder on PATH",
        "chromium": "optional; Debian: apt-get install chromium",
    ]

    /// The tool's path: an absolute path if it is executable there, a bare name on PATH.
    static func find(_ name: String) -> String? {
        let fm = FileManager.default
        if name.hasPrefix("/") { return fm.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { fm.isExecutableFile(atPath: $0) }
    }

    /// Throws XCTSkip naming the first of `names` that is missing, and why the test needs it.
    static func require(_ names: String..., for purpose: String) throws {
        for name in names where find(name) == nil { throw missing(name, purpose) }
    }

    /// The tool's path on PATH, to run it by; throws XCTSkip as `require` does when it is missing.
    static func path(_ name: String, for purpose: String) throws -> String {
        guard let found = find(name) else { throw missing(name, purpose) }
        return found
    }

    private static func missing(_ name: String, _ purpose: String) -> XCTSkip {
        let bare = (name as NSString).lastPathComponent
        let from = packages[bare].map { " (\($0); scripts/setup.sh test installs it)" } ?? ""
        return XCTSkip("\(bare) is not installed: \(purpose)\(from)")
    }

    /// Headless Chromium (or Chrome): on PATH under any of its names, or the macOS app, which no
    /// PATH holds. Throws XCTSkip when none is there.
    static func chromium(for purpose: String) throws -> String {
        let browsers = [
            "chromium", "chromium-browser", "google-chrome",
            "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
            "/Applications/Chromium.app/Contents/MacOS/Chromium",
        ]
        guard let found = browsers.lazy.compactMap(find).first else { throw missing("chromium", purpose) }
        return found
    }

    /// True when `python3 -c 'import MODULE'` works.
    static func pythonHas(_ module: String) -> Bool {
        guard find("python3") != nil else { return false }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import " + module]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Throws XCTSkip when Python or one of its `modules` is missing.
    static func requirePython(_ modules: String..., for purpose: String) throws {
        try require("python3", for: purpose)
        for m in modules where !pythonHas(m) {
            throw XCTSkip(
                "Python's \(m) is not installed: \(purpose) (Debian: apt-get install python3-\(m); or pip install "
                    + "\(m); scripts/setup.sh test installs it)"
            )
        }
    }
}

/// File names that are not UTF-8. Linux file systems take any bytes; APFS refuses such a name
/// (EILSEQ), so a test that makes one on disk asks first (`require`), and skips saying why
/// where the file system refuses it, or leaves that one file out (`accepted`).
/// `scripts/check-portable-tests.sh` refuses a test that makes one without asking.
enum NonUTF8Names {
    /// True when the file system at `dir` takes a name that is not UTF-8: one is made there and removed.
    static func accepted(in dir: String) -> Bool {
        let probe = Array(dir.utf8) + Array("/.probe-".utf8) + [0xFF, 0]  // portable: the probe itself
        let fd = probe.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) {
                open($0, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            }
        }
        guard fd >= 0 else { return false }
        close(fd)
        _ = probe.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { unlink($0) }
        }
        return true
    }

    /// Throws XCTSkip when the file system at `dir` refuses names that are not UTF-8.
    static func require(in dir: String, for purpose: String) throws {
        guard accepted(in: dir) else {
            throw XCTSkip("the file system at \(dir) refuses file names that are not UTF-8 (APFS: EILSEQ): \(purpose)")
        }
    }
}

/// Whether a read can leave access times as they were: Linux has `O_NOATIME`; Darwin has none,
/// and there a scan updates the access times the volume records (README). A test that asserts
/// an access time asks first; `WalkTests.snapshot` leaves them out and compares everything else.
/// `scripts/check-portable-tests.sh` refuses a test that reads `atimeSpec` without asking.
enum AccessTimes {
    static let kept = Platform.noAccessTime != 0

    /// Throws XCTSkip where reads update access times.
    static func require(for purpose: String) throws {
        guard kept else {
            throw XCTSkip("this system has no O_NOATIME (Darwin): reads update access times, so \(purpose) cannot hold")
        }
    }
}

/// A command the tests ran that failed: the test stops there, with its output.
struct CommandFailed: Error, CustomStringConvertible {
    let command: String
    let status: Int32
    let stderr: String
    var description: String { "\(command): exit \(status): \(stderr)" }
}

/// Runs `command` with /bin/sh in `dir` (`$0` is the `sandbox-audit` executable): its exit
/// status and standard error.
func shell(_ command: String, in dir: String) throws -> (status: Int32, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", command, CLI.executable]
    p.currentDirectoryURL = URL(fileURLWithPath: dir)
    let err = Pipe()
    p.standardError = err
    p.standardOutput = FileHandle.nullDevice
    try p.run()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: e, as: UTF8.self))
}

/// Signals `simulate EVENT SOURCE --into DIR/out` once its temporary tree exists beside
/// `DIR/out` (the materialiser is writing then): whether it was seen, the run's standard error,
/// and how it ended.
func interruptMaterializing(_ source: String, in dir: String, with signal: Int32) throws
    -> (writing: Bool, stderr: String, reason: Process.TerminationReason, status: Int32)
{
    let p = Process()
    p.executableURL = URL(fileURLWithPath: CLI.executable)
    p.arguments = ["simulate", "update", source, "--into", dir + "/out"]
    let err = Pipe()
    p.standardOutput = FileHandle.nullDevice
    p.standardError = err
    try p.run()
    var writing = false
    for _ in 0..<6000 where !writing && p.isRunning {
        writing = try FileManager.default.contentsOfDirectory(atPath: dir).contains {
            $0.hasPrefix(".out.sandbox-audit-")
        }
        if !writing { usleep(2_000) }
    }
    kill(p.processIdentifier, signal)
    let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    return (writing, message, p.terminationReason, p.terminationStatus)
}

/// `shell`, throwing CommandFailed when the command fails, so that nothing after it reads what
/// was not made.
func sh(_ command: String, in dir: String) throws {
    let r = try shell(command, in: dir)
    guard r.status == 0 else { throw CommandFailed(command: command, status: r.status, stderr: r.stderr) }
}

/// A temporary directory removed at the end of the test (made traversable by anyone, so the
/// tests that drop privileges can reach it).
final class TempDir: Sendable {
    let path: String

    init(_ label: String = "sa") throws {
        var template = Array(
            ((NSTemporaryDirectory() as NSString).appendingPathComponent("\(label)-XXXXXX")).utf8CString)
        guard let p = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw SystemError(operation: "mkdtemp", path: NSTemporaryDirectory())
        }
        path = String(cString: p)
        chmod(path, 0o755)
    }

    deinit {
        // Restore permissions the tests took away, then remove, with rm: FileManager gives up on
        // trees deeper than PATH_MAX, which some tests build.
        _ = try? Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+rwX", path]).waitUntilExit()
        _ = try? Process.run(URL(fileURLWithPath: "/bin/rm"), arguments: ["-rf", path]).waitUntilExit()
    }

    func sub(_ relative: String) -> String { path + "/" + relative }
}

enum Fixture {
    /// The folders every test container starts with.
    static let standardFolders = [
        "Documents", "Library", "Library/Application Support", "Library/Caches", "Library/Preferences", "tmp",
    ]

    /// Makes an empty container with the standard folders at `root`.
    static func container(at root: String) throws {
        for f in standardFolders {
            try FileManager.default.createDirectory(atPath: root + "/" + f, withIntermediateDirectories: true)
        }
    }

    static func mkdirs(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes a file of `size` zero bytes (sparse: quick, whatever the size).
    static func file(_ path: String, size: Int, mtimeAgo: Double? = nil) throws {
        try mkdirs((path as NSString).deletingLastPathComponent)
        try write(path, size: size)
        if let ago = mtimeAgo { try setAge(path, ago) }
    }

    /// Small files hold `x`s; larger ones are sparse zeros.
    private static func write(_ path: String, size: Int) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw SystemError(operation: "create", path: path) }
        if size > 0 && size <= 64 {
            #if canImport(Glibc)
                _ = [UInt8](repeating: UInt8(ascii: "x"), count: size).withUnsafeBytes {
                    Glibc.write(fd, $0.baseAddress, size)
                }
            #else
                _ = [UInt8](repeating: UInt8(ascii: "x"), count: size).withUnsafeBytes {
                    Darwin.write(fd, $0.baseAddress, size)
                }
            #endif
        } else {
            ftruncate(fd, off_t(size))
        }
        close(fd)
    }

    static func setAge(_ path: String, _ ago: Double) throws {
        let t = Date().timeIntervalSince1970 - ago
        var times = [timespec(tv_sec: Int(t), tv_nsec: 0), timespec(tv_sec: Int(t), tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else {
            throw SystemError(operation: "utimensat", path: path)
        }
    }

    static func bytes(_ path: String, _ content: [UInt8]) throws {
        try mkdirs((path as NSString).deletingLastPathComponent)
        guard FileManager.default.createFile(atPath: path, contents: Data(content)) else {
            throw SystemError(operation: "create", path: path)
        }
    }

    /// A binary plist of a dictionary whose values are `Data` of the given sizes.
    static func plist(_ path: String, keys: [(key: String, size: Int)]) throws {
        var dictionary: [String: Any] = [:]
        for (key, size) in keys { dictionary[key] = Data(repeating: 0x61, count: size) }
        try bytes(
            path, Array(try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)))
    }

    /// `count` files of `size` bytes (sparse beyond 64) in `folder`, named `file-00000` …
    static func files(in folder: String, count: Int, size: Int) throws {
        try mkdirs(folder)
        for i in 0..<count {
            let name = String(i)
            try write(folder + "/file-" + String(repeating: "0", count: max(0, 5 - name.count)) + name, size: size)
        }
    }

    /// What macOS does when zipping `dir/App`: a copy at `dir/Zipped` (`cp -a`) without its
    /// attributes and `._` sidecars, and every backup attribute of the container in
    /// `dir/__MACOSX/App/…/._NAME`, as Finder and `ditto -c -k --sequesterRsrc` write them.
    static func finderZipTree(in dir: String) throws {
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = ["-a", dir + "/App", dir + "/Zipped"]
        try cp.run()
        cp.waitUntilExit()
        guard cp.terminationStatus == 0 else { throw SystemError(code: EIO, operation: "copy", path: dir + "/App") }
        try mkdirs(dir + "/__MACOSX")
        for e in try Audit.inventory(of: dir + "/App").entries where !e.entry.marks.isEmpty {
            var parsed = AppleDouble.Parsed()
            parsed.attributes = e.entry.marks.map { ($0.attribute.macName, $0.value) }
            let parent = e.path.parent.map { $0.isRoot ? "" : $0.display + "/" } ?? ""
            let sidecar = parent + "._" + ByteText.display(e.path.name)
            try bytes(dir + "/__MACOSX/App/" + sidecar, AppleDouble.build(parsed))
            let copy = Array((dir + "/Zipped/" + e.path.display).utf8)
            for name in try XAttr.names(.path(copy)) {
                try XAttr.remove(path: copy, name: String(decoding: name, as: UTF8.self))
            }
            try? FileManager.default.removeItem(atPath: dir + "/Zipped/" + sidecar)
        }
    }

    /// Builds a rule example on disk under `root` (a standard container plus the items).
    static func materialize(_ example: RuleExample, at root: String) throws {
        try container(at: root)
        for item in example.items {
            let path = root + "/" + item.path
            switch item.kind {
            case .file(let size): try file(path, size: size)
            case .directory: try mkdirs(path)
            case .symlink(let target):
                try mkdirs((path as NSString).deletingLastPathComponent)
                try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
            case .fifo:
                try mkdirs((path as NSString).deletingLastPathComponent)
                guard mkfifo(path, 0o644) == 0 else { throw SystemError(operation: "mkfifo", path: path) }
            case .hardLink(let other):
                guard link(root + "/" + other, path) == 0 else { throw SystemError(operation: "link", path: path) }
            case .bytes(let content): try bytes(path, content)
            case .plist(let keys): try plist(path, keys: keys)
            case .files(let count, let size): try files(in: path, count: count, size: size)
            }
            for mark in item.marks {
                switch mark.carrier {
                case .native: try BackupMarker.set(mark.attribute, value: mark.value, on: path, carrier: .native)
                case .sidecar: try BackupMarker.set(mark.attribute, value: mark.value, on: path, carrier: .sidecar)
                case .macosx:
                    try mkdirs(
                        root + "/" + AppleDouble.mirrorFolder + "/" + (item.path as NSString).deletingLastPathComponent)
                    try BackupMarker.set(mark.attribute, value: mark.value, on: path, carrier: .macosx)
                }
            }
            if let age = item.age { try setAge(path, age) }
        }
    }
}

/// Runs the built `sandbox-audit` executable.

/// Runs a Python snippet with arguments (in `cwd` when given), through `CLI.run` (both streams
/// read at once); returns stdout, failing the test on a non-zero exit.
@discardableResult
func python(
    _ script: String, _ arguments: [String] = [], in cwd: String? = nil, file: StaticString = #filePath,
    line: UInt = #line
) throws -> String {
    let r = try CLI.run(["python3", "-c", script] + arguments, cwd: cwd, via: "/usr/bin/env")
    XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
    return r.stdout
}

/// Runs the library pipeline on a directory.
func audit(
    _ root: String, settings: RuleSettings? = nil, policy: Policy = Policy(), baseline: Baseline? = nil,
    role: ContainerRole? = nil
) throws -> AuditResult {
    var policy = policy
    if let settings { policy.settings = settings }
    return try Audit.run(root, selection: ContainerSelection(role: role), policy: policy, baseline: baseline)
}
