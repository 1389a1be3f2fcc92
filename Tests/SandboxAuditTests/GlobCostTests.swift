import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 35 items 3 and 4: the policy's globs cost time linear in what they read, a policy's
/// total work is bounded, and a policy file another user could have written is not taken
/// without `--config`. Issue 34: catalogue globs name vendor files exactly.
final class GlobCostTests: XCTestCase {
    /// The matcher before issue 35 (recursive backtracking), as the reference for what a glob
    /// matches.
    static func reference(_ globs: ArraySlice<[UInt8]>, _ parts: ArraySlice<[UInt8]>) -> Bool {
        guard let g = globs.first else { return parts.isEmpty }
        if g == Array("**".utf8) {
            let rest = globs.dropFirst()
            if rest.isEmpty { return !parts.isEmpty }
            var p = parts
            while true {
                if reference(rest, p) { return true }
                guard !p.isEmpty else { return false }
                p = p.dropFirst()
            }
        }
        guard let part = parts.first, component(g[...], part[...]) else { return false }
        return reference(globs.dropFirst(), parts.dropFirst())
    }

    static func component(_ g: ArraySlice<UInt8>, _ s: ArraySlice<UInt8>) -> Bool {
        guard let c = g.first else { return s.isEmpty }
        switch c {
        case UInt8(ascii: "*"):
            var rest = s
            while true {
                if component(g.dropFirst(), rest) { return true }
                guard !rest.isEmpty else { return false }
                rest = rest.dropFirst()
            }
        case UInt8(ascii: "?"):
            guard !s.isEmpty else { return false }
            return component(g.dropFirst(), s.dropFirst())
        case UInt8(ascii: "["):
            guard let ch = s.first, let close = g.dropFirst(2).firstIndex(of: UInt8(ascii: "]")) else { return false }
            var set = g[(g.startIndex + 1)..<close]
            let negate = set.first == UInt8(ascii: "!") || set.first == UInt8(ascii: "^")
            if negate { set = set.dropFirst() }
            var hit = false
            var i = set.startIndex
            while i < set.endIndex {
                if i + 2 < set.endIndex, set[i + 1] == UInt8(ascii: "-") {
                    if set[i] <= ch && ch <= set[i + 2] { hit = true }
                    i += 3
                } else {
                    if set[i] == ch { hit = true }
                    i += 1
                }
            }
            guard hit != negate else { return false }
            return component(g[(close + 1)...], s.dropFirst())
        default:
            guard s.first == c else { return false }
            return component(g.dropFirst(), s.dropFirst())
        }
    }

    /// Random globs and paths over a small alphabet: the linear matcher agrees with the
    /// reference on `matches` and `covers`.
    func testLinearMatcherAgreesWithTheBacktrackingOne() throws {
        var rng = SystemRandomNumberGenerator()
        let pieces = ["a", "b", "*", "?", "[ab]", "[!a]", "[a-c]", "ab", "*a*", "[]"]
        var checked = 0
        for _ in 0..<20_000 {
            let globParts = (0..<Int.random(in: 1...4, using: &rng)).map { _ -> String in
                if Int.random(in: 0..<4, using: &rng) == 0 { return "**" }
                return (0..<Int.random(in: 1...3, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            }
            guard let glob = try? Glob(globParts.joined(separator: "/")) else { continue }
            let path = (0..<Int.random(in: 1...5, using: &rng)).map { _ in
                String((0..<Int.random(in: 1...4, using: &rng)).map { _ in "abc]".randomElement(using: &rng)! })
            }
            let p = ContainerPath(path.joined(separator: "/"))
            let parts = path.map { Array($0.utf8) }
            XCTAssertEqual(
                glob.matches(p), Self.reference(glob.patterns[...], parts[...]), "\(glob.pattern) on \(p.display)")
            let covered = (1...parts.count).contains { Self.reference(glob.patterns[...], parts[0..<$0]) }
            XCTAssertEqual(glob.covers(p), covered, "covers: \(glob.pattern) on \(p.display)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10_000)
    }

    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    /// A 12-star glob on a 201-byte name and three `**` on a 1,000-deep chain: each under
    /// 0.1 s (the backtracking matcher took over 60 s and over 30 s).
    func testHostileGlobsCostUnderATenthOfASecond() throws {
        let name = "Documents/" + String(repeating: "a", count: 201)
        let stars = try Glob("Documents/" + String(repeating: "*a", count: 11) + "*c*b")
        var t = seconds {
            XCTAssertFalse(stars.matches(ContainerPath(name)))
            XCTAssertFalse(stars.covers(ContainerPath(name)))
        }
        print("measured 12-star glob on a 201-byte name: \(t) s")
        XCTAssertLessThan(t, 0.1)
        let chain = (0..<1_000).map { _ in "d" }.joined(separator: "/")
        let deep = try Glob("**/d/**/d/**/x")
        t = seconds {
            XCTAssertFalse(deep.matches(ContainerPath(chain)))
            XCTAssertFalse(deep.covers(ContainerPath(chain)))
        }
        print("measured three ** on a 1,000-deep chain: \(t) s")
        XCTAssertLessThan(t, 0.1)
    }

    /// The same through the built binary, on real folders: a policy with the hostile globs in
    /// `owners:`, `paths:`, `budgets.paths:`, `ignore:` and `protection:`.
    func testHostileGlobsInEveryPolicyKeyAreCheapThroughTheCLI() throws {
        let dir = try TempDir("glob")
        let root = dir.sub("c")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/" + String(repeating: "a", count: 201), size: 1)
        var chain = root + "/Library"
        for _ in 0..<300 { chain += "/d" }
        try Fixture.file(chain + "/f", size: 1)
        let star = "Documents/" + String(repeating: "*a", count: 11) + "*c*b"
        let deep = "**/d/**/d/**/x"
        let policy = """
            ignore: ["\(star)", "\(deep)"]
            paths:
              - {path: "\(star)", forbidden: true}
              - {path: "\(deep)", maxSize: 1B}
            budgets:
              paths:
                - {path: "\(star)", max: 1B}
                - {path: "\(deep)", max: 1B}
            owners:
              "\(star)": a
              "\(deep)": b
            protection:
              "\(star)": complete
            """
        try Fixture.bytes(dir.sub("p.yml"), Array(policy.utf8))
        let m = try Measured.run(["scan", "--format", "json", "--config", dir.sub("p.yml"), root])
        XCTAssertEqual(m.result.status, 0, m.result.stderr)  // the hostile globs match no file: no policy finding
        print("measured hostile globs in every policy key: \(m.seconds) s, \(m.peakMB) MB")
        XCTAssertLessThan(m.seconds, 10)
    }

    /// A policy's globs are bounded in number and bytes, aliases counted at each use: one
    /// 100 kB glob referenced 9,000 times is refused at once with the limit named.
    func testPolicyGlobsAreBoundedAliasesCountedAtEachUse() throws {
        let dir = try TempDir("glob")
        try Fixture.container(at: dir.sub("c"))
        var y = "ignore:\n  - &g \"" + String(repeating: "a", count: 100_000) + "\"\n"
        for _ in 0..<9_000 { y += "  - *g\n" }
        try Fixture.bytes(dir.sub("alias.yml"), Array(y.utf8))
        let small = "ignore:\n  - &g \"Documents/x\"\n" + String(repeating: "  - *g\n", count: 2_000)
        try Fixture.bytes(dir.sub("many.yml"), Array(small.utf8))
        for (file, limit) in [
            ("alias.yml", "\(PolicyFile.maximumGlobBytes) bytes of globs"),
            ("many.yml", "\(PolicyFile.maximumGlobs) globs"),
        ] {
            let m = try Measured.run(["scan", "--config", dir.sub(file), dir.sub("c")])
            XCTAssertEqual(m.result.status, 2, m.result.stderr)
            XCTAssertTrue(
                m.result.stderr.contains(limit) && m.result.stderr.contains("aliases counted at each use"),
                m.result.stderr)
            XCTAssertEqual(m.result.stderr.split(separator: "\n").count, 1, m.result.stderr)
            print("measured \(file): \(m.seconds) s, \(m.peakMB) MB")
            XCTAssertLessThan(m.seconds, 10)
            XCTAssertLessThan(m.peakMB, 300)
        }
        // At the limits, a policy still loads.
        let fits = "ignore:\n" + String(repeating: "  - \"Documents/x\"\n", count: PolicyFile.maximumGlobs)
        XCTAssertEqual(try PolicyFile.parse(fits, source: "fits").ignore.count, PolicyFile.maximumGlobs)
    }

    /// Budgets and path policies found in one pass agree with each glob's own `covers`.
    func testGlobSetAgreesWithEachGlob() throws {
        let dir = try TempDir("glob")
        let root = dir.sub("c")
        try Fixture.container(at: root)
        let paths = [
            "Documents/notes.txt", "Documents/a/b/c/d.txt", "Documents/x.db", "Library/Caches/app/Cache.db",
            "Library/Caches/a/b/deep/f", "Library/Application Support/x1.bin", "tmp/apple", "tmp/zebra",
            "tmp/cache/1/2/file.tmp", "Library/Preferences/p.plist", "rootfile",
        ]
        for p in paths { try Fixture.file(root + "/" + p, size: 1) }
        let inventory = try Audit.inventory(of: root)
        let globs = try [
            "Documents", "Documents/*.txt", "**/*.db", "Library/**", "Library/**/x?.bin", "**/cache/**/*.tmp",
            "tmp/[a-c]*", "*/Caches/*/Cache.db", "**", "Library/Caches/**/deep", "Documents/a/b/c", "tmp/**",
            "Library", "tmp", "rootfile", "*file",
        ].map(Glob.init)
        let set = GlobSet(globs)
        let coverage = set.coverage(inventory.entries)
        for (i, e) in inventory.entries.enumerated() {
            let got = coverage.covering(i).map { Int($0.glob) }
            XCTAssertEqual(got, globs.indices.filter { globs[$0].covers(e.path) }, e.path.display)
            XCTAssertEqual(set.anyCovers(e.path), !got.isEmpty)
            for c in coverage.covering(i) {
                let top = inventory.entries[Int(c.top)].path
                XCTAssertTrue(
                    globs[Int(c.glob)].matches(top) && (e.path == top || e.path.isWithin(top)),
                    "\(globs[Int(c.glob)]) \(e.path.display) top \(top.display)")
            }
        }
    }

    /// Mixpanel's legacy archives are named as the SDK names them: an app's own file that
    /// starts like them has no owner.
    func testMixpanelOwnsItsArchivesNotAnAppFileNamedLikeThem() throws {
        let matcher = OwnerMatcher()
        for own in [
            "Library/mixpanel-TOKEN-events", "Library/mixpanel-TOKEN-People", "Library/mixpanel-TOKEN-optOutStatus",
            "Library/TOKEN_MPDB.sqlite",
        ] {
            XCTAssertEqual(matcher.attribution(of: ContainerPath(own))?.name, "Mixpanel", own)
        }
        for app in [
            "Library/mixpanel-export.csv", "Library/mixpanel-notes", "Library/mixpanel-TOKEN-events-backup.zip",
        ] {
            XCTAssertNil(matcher.attribution(of: ContainerPath(app))?.name, app)
        }
        // And through the binary, on a real container.
        let dir = try TempDir("glob")
        try Fixture.container(at: dir.path)
        try Fixture.file(dir.sub("Library/mixpanel-export.csv"), size: 10)
        let r = try CLI.run(["inventory", dir.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = r.stdout.split(separator: "\n").first { $0.contains("mixpanel-export.csv") }
        XCTAssertNotNil(line, r.stdout)
        XCTAssertFalse(line?.contains("Mixpanel") ?? true, String(line ?? ""))
    }

    // MARK: whose policy file

    /// A container whose scan fails (an oversized file) unless the policy's `ignore: ["**"]`
    /// is taken.
    func policyCase(_ dir: TempDir) throws -> String {
        let root = dir.sub("work/c")
        try Fixture.container(at: root)
        try Fixture.file(root + "/Library/Application Support/model.bin", size: 12_000_000)
        try Fixture.bytes(dir.sub("work/.sandbox-audit.yml"), Array("ignore: [\"**\"]\n".utf8))
        return root
    }

    func testAPolicyFileOfAnotherUserOrInAFolderOthersCanWriteIsSkippedWithANote() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to give a file to another user") }
        let dir = try TempDir("owner")
        let root = try policyCase(dir)
        chmod(dir.path, 0o755)
        chmod(dir.sub("work"), 0o755)
        let policy = dir.sub("work/.sandbox-audit.yml")
        // Ours: taken.
        let ours = try CLI.run(["scan", root], cwd: dir.sub("work"))
        XCTAssertEqual(ours.status, 0, ours.stderr)
        XCTAssertFalse(ours.stderr.contains("skipped"), ours.stderr)
        // Another user's (uid 65534): skipped with a note, the scan fails as without a policy.
        XCTAssertEqual(chown(policy, 65534, 65534), 0)
        let theirs = try CLI.run(["scan", root], cwd: dir.sub("work"))
        XCTAssertEqual(theirs.status, 1, theirs.stderr)
        XCTAssertTrue(
            theirs.stderr.contains(
                "note: skipped the policy file \(policy): it is owned by user 65534, not by you (root) or root; give "
                    + "it with --config to use it"
            ), theirs.stderr)
        let shown = try CLI.run(["config", "show"], cwd: dir.sub("work"))
        XCTAssertTrue(
            shown.stdout.contains("no policy file") && shown.stderr.contains("skipped"), shown.stdout + shown.stderr)
        // Named with --config: taken.
        let named = try CLI.run(["scan", "--config", policy, root], cwd: dir.sub("work"))
        XCTAssertEqual(named.status, 0, named.stderr)
        // Ours again, but in a folder anyone can write: skipped.
        XCTAssertEqual(chown(policy, 0, 0), 0)
        chmod(dir.sub("work"), 0o777)
        let open = try CLI.run(["scan", root], cwd: dir.sub("work"))
        XCTAssertEqual(open.status, 1, open.stderr)
        XCTAssertTrue(open.stderr.contains("others can write its folder (mode 777)"), open.stderr)
        // With the sticky bit no one else can replace it: taken.
        chmod(dir.sub("work"), 0o1777)
        XCTAssertEqual(try CLI.run(["scan", root], cwd: dir.sub("work")).status, 0)
        // A file others can write: skipped.
        chmod(dir.sub("work"), 0o755)
        chmod(policy, 0o666)
        let writable = try CLI.run(["scan", root], cwd: dir.sub("work"))
        XCTAssertTrue(writable.stderr.contains("others can write it (mode 666)"), writable.stderr)
        XCTAssertEqual(writable.status, 1)
        // Another user's symbolic link to root's own policy, in a folder with the sticky bit
        // (as /tmp): the link chooses the policy, so it is skipped.
        chmod(policy, 0o644)
        try FileManager.default.moveItem(atPath: policy, toPath: dir.sub("root-policy.yml"))
        chmod(dir.sub("work"), 0o1777)
        XCTAssertEqual(symlink(dir.sub("root-policy.yml"), policy), 0)
        XCTAssertEqual(lchown(policy, 65534, 65534), 0)
        let linked = try CLI.run(["scan", root], cwd: dir.sub("work"))
        XCTAssertEqual(linked.status, 1, linked.stderr)
        XCTAssertTrue(
            linked.stderr.contains(
                "note: skipped the policy file \(policy): it is a symbolic link owned by user 65534, not by you "
                    + "(root) or root"
            ), linked.stderr)
        // Our own link to it: taken.
        XCTAssertEqual(lchown(policy, 0, 0), 0)
        XCTAssertEqual(try CLI.run(["scan", root], cwd: dir.sub("work")).status, 0)
    }

    /// Run as another user (nobody): root's policy file is taken; one owned by a third user
    /// (uid 1, daemon) is skipped.
    func testARunAsAnotherUserTakesRootsPolicyButNotAThirdUsers() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to drop privileges and give files away") }
        let dir = try TempDir("owner")
        let root = try policyCase(dir)
        for p in [dir.path, dir.sub("work")] { chmod(p, 0o755) }
        try sh("chmod -R a+rX '\(dir.path)'", in: dir.path)
        let policy = dir.sub("work/.sandbox-audit.yml")
        let roots = try CLI.run(["scan", root], asNobody: true, cwd: dir.sub("work"))
        XCTAssertEqual(roots.status, 0, roots.stderr)
        XCTAssertEqual(chown(policy, 1, 1), 0)
        let third = try CLI.run(["scan", root], asNobody: true, cwd: dir.sub("work"))
        XCTAssertEqual(third.status, 1, third.stderr)
        XCTAssertTrue(third.stderr.contains("it is owned by user 1, not by you (user 65534) or root"), third.stderr)
    }
}
