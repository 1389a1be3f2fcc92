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

/// `simulate --into` raced by another user (issue 15, "Hostile containers"): while the copy runs
/// as root, a process running as `nobody` swaps folders for symlinks to a folder outside, in
/// the source container (which it owns) and in the temporary tree. The copy must never read
/// or change anything outside its trees: each run either succeeds with the original data or
/// fails naming the path, leaving nothing at DIR.
///
/// The swapper watches DIR's parent for the temporary tree, so that it swaps while the copy
/// runs, not while the container is scanned. Every attempt is a fresh run of the built binary.
final class MaterializeRaceTests: XCTestCase {
    static let attempts = 25
    static let secret = "SECRET-outside-the-container"

    override func setUpWithError() throws {
        #if !os(Linux)
            throw XCTSkip("the swapper runs through setpriv (Linux)")
        #else
            guard geteuid() == 0 else {
                throw XCTSkip("the copy must run as root and the swapper as nobody: run the tests as root")
            }
            try Tool.require("setpriv", for: "runs the swapper as nobody")
        #endif
    }

    /// Python, as nobody: while a temporary tree `.out-*.sandbox-audit-*` exists in `parent`,
    /// swaps the folders named in `targets` (paths relative to `base`, or to the temporary tree
    /// when `base` is "TEMP"; the first one most often) for a symlink to `outside` and back, until `stop` exists.
    /// Prints
    /// how many swaps it tried and how many it made.
    static let swapper = """
        import os, sys, time, random
        parent, base, outside, stop = sys.argv[1:5]
        targets = sys.argv[5:]
        tried = made = 0
        while not os.path.exists(stop):
            temps = [n for n in os.listdir(parent) if n.startswith(".out-") and ".sandbox-audit-" in n]
            if not temps:
                time.sleep(0.0005)
                continue
            root = os.path.join(parent, temps[0]) if base == "TEMP" else base
            # The first target most of the time: a folder whose contents are still to come.
            t = os.path.join(root, targets[0] if random.random() < 0.9 else random.choice(targets))
            tried += 1
            try:
                os.rename(t, t + ".real")
            except OSError:
                time.sleep(0.0002)
                continue
            try:
                os.symlink(outside, t)
                made += 1
                time.sleep(random.choice([0, 0.0005, 0.002, 0.005]))
                os.unlink(t)
            except OSError:
                pass
            try:
                os.rename(t + ".real", t)
            except OSError:
                pass
        print(tried, made)
        """

    /// Starts the swapper as nobody; `finish` stops it and returns (tried, made).
    func startSwapper(parent: String, base: String, outside: String, targets: [String], stop: String) throws -> () -> (
        Int, Int
    ) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Tool.path("setpriv", for: "runs the swapper as nobody"))
        p.arguments =
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/env", "python3", "-c", Self.swapper,
                parent, base, outside, stop,
            ] + targets
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        return {
            _ = FileManager.default.createFile(atPath: stop, contents: Data())
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            let numbers = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap {
                Int($0)
            }
            return numbers.count == 2 ? (numbers[0], numbers[1]) : (0, 0)
        }
    }

    /// `Documents/x/y/dNN/fMMM`: `folders` × `files` files of 64 bytes (`original-NN-MMM`, padded).
    func makeTree(_ root: String, folders: Int, files: Int, fill: String) throws {
        try Fixture.container(at: root)
        for d in 0..<folders {
            let folder = String(format: "%@/Documents/x/y/d%02d", root, d)
            try Fixture.mkdirs(folder)
            for f in 0..<files {
                let text = String(format: "%@-%02d-%03d", fill, d, f)
                try Fixture.bytes(
                    String(format: "%@/f%03d", folder, f),
                    Array((text + String(repeating: ".", count: 64 - text.utf8.count)).utf8))
            }
        }
    }

    /// The regular files below `path` (symlinks not followed), by relative path.
    func regularFiles(under path: String) -> [String: Data] {
        var found: [String: Data] = [:]
        guard let e = FileManager.default.enumerator(atPath: path) else { return [:] }
        while let rel = e.nextObject() as? String {
            var st = stat()
            guard lstat(path + "/" + rel, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            found[rel] = FileManager.default.contents(atPath: path + "/" + rel) ?? Data()
        }
        return found
    }

    /// Regular files below `path` that contain `needle`.
    func filesContaining(_ needle: String, under path: String) -> [String] {
        regularFiles(under: path).filter { $0.value.range(of: Data(needle.utf8)) != nil }.keys.sorted()
    }

    /// The source side: the container's owner swaps `Documents/x` (or one of the folders below
    /// it) for a symlink to a folder of root's that mirrors its names and holds a secret in every
    /// file. `x/y` puts the swapped folder in the middle of the paths the copy goes on to use.
    func testSourceFoldersSwappedForSymlinksNeverLeakOutside() throws {
        let dir = try TempDir("race-src")
        let root = dir.sub("App")
        try makeTree(root, folders: 40, files: 8, fill: "original")
        // Outside: root's, mode 0700, the same names, every file holding the secret.
        let outside = dir.sub("outside")
        try makeTree(outside + "/tree", folders: 40, files: 8, fill: Self.secret)
        chmod(outside, 0o700)
        XCTAssertEqual(chown(root, 65534, 65534), 0)
        try python(
            "import os, sys\nfor d, ds, fs in os.walk(sys.argv[1]):\n    for n in ds + fs: os.lchown(os.path.join(d, "
                + "n), 65534, 65534)",
            [root])
        let targets = ["Documents/x"] + (0..<40).map { String(format: "Documents/x/y/d%02d", $0) }
        let finish = try startSwapper(
            parent: dir.path, base: root, outside: outside + "/tree/Documents/x", targets: targets,
            stop: dir.sub("stop"))
        var succeeded = 0
        var failed = 0
        var problems: [String] = []
        for i in 0..<Self.attempts {
            let out = dir.sub("out-\(i)")
            let r = try CLI.run(["simulate", "update", root, "--into", out])
            if r.status == 0 {
                succeeded += 1
                let leaked = filesContaining(Self.secret, under: out)
                if !leaked.isEmpty {
                    problems.append("attempt \(i): the output holds the secret in \(leaked.prefix(3))")
                }
                // The original data: every file copied holds its own bytes (a folder scanned
                // while it was a symlink is copied as that symlink, with nothing below it).
                let foreign = regularFiles(under: out).filter { $0.value.range(of: Data("original-".utf8)) == nil }
                if !foreign.isEmpty {
                    problems.append("attempt \(i): files that are not the original: \(foreign.keys.sorted().prefix(3))")
                }
            } else {
                failed += 1
                if r.status != 2 { problems.append("attempt \(i): exit \(r.status): \(r.stderr)") }
                if r.stderr.split(separator: "\n").count != 1 {
                    problems.append("attempt \(i): not one line: \(r.stderr)")
                }
                if !r.stderr.contains("nothing written to \(out)") || !r.stderr.contains("Documents/x") {
                    problems.append("attempt \(i): the error does not name the path: \(r.stderr)")
                }
                if FileManager.default.fileExists(atPath: out) {
                    problems.append("attempt \(i): something at DIR after a failure")
                }
            }
            problems += try leftovers(in: dir.path, attempt: i, out: out)
        }
        let (tried, made) = finish()
        print(
            "source race: \(Self.attempts) attempts, \(succeeded) succeeded, \(failed) failed naming the path; "
                + "swapper made \(made) swaps (\(tried) tried)"
        )
        XCTAssertEqual(problems, [])
        XCTAssertGreaterThan(made, 0, "the swapper never swapped a folder during a copy: the test proves nothing")
    }

    /// The destination side: a local user swaps folders of the temporary tree for symlinks to a
    /// folder of root's (mode 0700, with an attribute) that mirrors the tree's names; the source
    /// root is mode 0777, as in the issue. The folder outside never changes.
    func testTemporaryTreeFoldersSwappedForSymlinksChangeNothingOutside() throws {
        let dir = try TempDir("race-dst")
        let root = dir.sub("App")
        try makeTree(root, folders: 40, files: 8, fill: "original")
        try python(
            "import os, sys\nfor d, ds, fs in os.walk(sys.argv[1]):\n    os.chmod(d, 0o777); os.utime(d, "
                + "(1_500_000_000, 1_500_000_000))",
            [root])
        let victim = dir.sub("victim")
        try makeTree(victim, folders: 40, files: 8, fill: "victim")
        try python(
            """
            import os, sys
            for d, ds, fs in os.walk(sys.argv[1]):
                os.chmod(d, 0o700); os.setxattr(d, "user.victim", b"kept")
                os.utime(d, (1_400_000_000, 1_400_000_000))
            """, [victim])
        let before = try snapshot(victim)
        let targets = ["Documents", "Documents/x"] + (0..<40).map { String(format: "Documents/x/y/d%02d", $0) }
        let finish = try startSwapper(
            parent: dir.path, base: "TEMP", outside: victim + "/Documents", targets: targets, stop: dir.sub("stop"))
        var succeeded = 0
        var failed = 0
        var problems: [String] = []
        for i in 0..<Self.attempts {
            let out = dir.sub("out-\(i)")
            let r = try CLI.run(["simulate", "update", root, "--into", out])
            if r.status == 0 {
                succeeded += 1
            } else {
                failed += 1
                if r.status != 2 || !r.stderr.contains("nothing written to \(out)") {
                    problems.append("attempt \(i): exit \(r.status): \(r.stderr)")
                }
                if FileManager.default.fileExists(atPath: out) {
                    problems.append("attempt \(i): something at DIR after a failure")
                }
            }
            if i % 5 == 4 {  // a change stays: checked every fifth attempt
                let after = try snapshot(victim)
                if after != before {
                    problems.append(
                        "attempt \(i): the folder outside changed: "
                            + "\(after.filter { before[$0.key] != $0.value }.keys.sorted().prefix(5))"
                    )
                }
            }
            problems += try leftovers(in: dir.path, attempt: i, out: out)
        }
        let (tried, made) = finish()
        print(
            "destination race: \(Self.attempts) attempts, \(succeeded) succeeded, \(failed) failed; swapper tried "
                + "\(tried) swaps in the temporary trees, made \(made)"
        )
        XCTAssertEqual(problems, [])
        XCTAssertGreaterThan(tried, 0, "the swapper never saw a temporary tree: the test proves nothing")
    }

    /// A temporary tree left beside the attempts' destinations, as a problem; removes `out`.
    func leftovers(in folder: String, attempt i: Int, out: String) throws -> [String] {
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".sandbox-audit-") }
        try? FileManager.default.removeItem(atPath: out)
        return left.isEmpty ? [] : ["attempt \(i): temporary tree left: \(left)"]
    }

    /// Mode, modification time, attributes and contents of everything below `path`.
    func snapshot(_ path: String) throws -> [String: String] {
        try python(
            """
            import os, sys, hashlib
            root = sys.argv[1]
            for d, ds, fs in os.walk(root):
                for p in [d] + [os.path.join(d, n) for n in sorted(fs)]:
                    st = os.lstat(p)
                    x = sorted((n, os.getxattr(p, n, follow_symlinks=False)) for n in os.listxattr(p, \
            follow_symlinks=False))
                    data = hashlib.sha1(open(p, "rb").read()).hexdigest() if os.path.isfile(p) else \
            sorted(os.listdir(p))
                    print(os.path.relpath(p, root), oct(st.st_mode), st.st_mtime_ns, st.st_uid, x, data, sep="\\t")
            """, [path]
        ).split(separator: "\n").reduce(into: [:]) { out, line in
            let fields = line.split(separator: "\t", maxSplits: 1)
            out[String(fields[0])] = fields.count > 1 ? String(fields[1]) : ""
        }
    }
}
