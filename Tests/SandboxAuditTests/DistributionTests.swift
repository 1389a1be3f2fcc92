import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// What the distribution files state agrees with the one place it is written: the toolchain floor
/// (Package.swift's swift-tools-version), the pinned dependency versions, the repository and
/// version (Support/Project.swift) and the Linux runtime packages (scripts/runtime-packages.txt).
/// And, opt-in, the minimal-Debian check of a freshly built release tarball.
final class DistributionTests: XCTestCase {
    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: DocsTests.repo + "/" + path, encoding: .utf8)
    }

    /// Every match of `pattern`'s first capture group in `text`.
    static func captures(_ pattern: String, in text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { m in
            Range(m.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    static let distributionFiles = [
        "README.md", "docs/distribution.md", "Formula/sandbox-audit.rb", "action.yml",
        ".github/workflows/ci.yml", ".github/workflows/release.yml", "scripts/setup.sh",
    ]

    func testSwiftToolsVersionIsTheStatedMinimumEverywhere() throws {
        let manifest = try Self.text("Package.swift")
        XCTAssertTrue(manifest.hasPrefix("// swift-tools-version:6.1\n"), String(manifest.prefix(40)))
        XCTAssertFalse(manifest.contains("unsafeFlags"))
        let stated: [String: [String]] = [
            "README.md": [
                "Swift](https://www.swift.org/install/) 6.1 or later", "Xcode 16.3 or later",
                "Swift 6.1 or later; Xcode 16.3 on macOS",
            ],
            "docs/distribution.md": [
                "Swift 6.1 or later (Xcode 16.3 on macOS)", "Xcode 16.3 or later (Swift 6.1)",
                "`swift-tools-version:6.1`",
            ],
            "Formula/sandbox-audit.rb": ["depends_on xcode: [\"16.3\", :build] # swift-tools-version 6.1"],
            "action.yml": ["Swift 6.1 or later"],
            ".github/workflows/ci.yml": ["/Applications/Xcode_16.3.app", "container: swift:6.1-focal"],
            ".github/workflows/release.yml": ["container: swift:6.1-focal", "Xcode_16.3.app"],
            "scripts/setup.sh": ["Swift 6.1 or later (Xcode 16.3 on macOS)"],
        ]
        for (file, needles) in stated {
            let text = try Self.text(file)
            for needle in needles { XCTAssertTrue(text.contains(needle), "\(file) does not say \(needle)") }
        }
        // No other floor is stated anywhere.
        for file in Self.distributionFiles {
            let text = try Self.text(file)
            for stale in try Self.captures(
                #"(Swift [0-5]\.[0-9]+|Xcode 1[0-5]\.[0-9]+|swift-version: "?6\.0|swift:[0-5]\.)"#, in: text)
            {
                XCTFail("\(file) states \(stale)")
            }
        }
    }

    func testDependenciesArePinnedExactly() throws {
        let manifest = try Self.text("Package.swift")
        let pins = try Self.captures(
            #"\.package\(url: "https://github\.com/[^/]+/([^"]+)", exact: "([^"]+)"\)"#, in: manifest)
        let versions = try Self.captures(#"\.package\(url: "[^"]+", exact: "([^"]+)"\)"#, in: manifest)
        XCTAssertEqual(
            Dictionary(uniqueKeysWithValues: zip(pins, versions)),
            ["swift-argument-parser": "1.8.2", "Yams": "6.2.2", "swift-crypto": "3.12.3", "swift-syntax": "603.0.1"])
        XCTAssertEqual(manifest.components(separatedBy: ".package(url:").count - 1, 4, "every dependency pinned")
        for loose in ["from:", "branch:", "revision:", ".upToNextMajor", ".upToNextMinor", "\"1.8.2\"..."] {
            XCTAssertFalse(manifest.contains(loose), "Package.swift: \(loose)")
        }
        // The versions the documentation names are the pinned ones.
        let docs = try Self.text("docs/distribution.md").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(
            docs.contains("(swift-argument-parser 1.8.2, Yams 6.2.2, swift-crypto 3.12.3, swift-syntax 603.0.1)"),
            "docs/distribution.md names the pins")
        // Package.resolved stays out of git.
        XCTAssertTrue(try Self.text(".gitignore").split(separator: "\n").contains("Package.resolved"))
    }

    func testOneRepositoryAndOneVersion() throws {
        XCTAssertEqual(References.repository, "https://github.com/" + Project.repository)
        XCTAssertEqual(Audit.toolVersion, Project.version)
        let repo = Project.repository
        let version = Project.version
        let install = try Self.text("scripts/install.sh")
        XCTAssertEqual(try Self.captures(#"^repository="([^"]+)""#, in: install), [repo])

        let formula = try Self.text("Formula/sandbox-audit.rb")
        XCTAssertEqual(try Self.captures(#"^  version "([^"]+)""#, in: formula), [version])
        XCTAssertEqual(try Self.captures(#"^  homepage "([^"]+)""#, in: formula), ["https://github.com/\(repo)"])
        let urls = try Self.captures(#"^ *url "([^"]+)""#, in: formula)
        XCTAssertEqual(
            urls,
            ["macos-universal", "linux-x86_64", "linux-aarch64"].map {
                "https://github.com/\(repo)/releases/download/v\(version)/sandbox-audit-\(version)-\($0).tar.gz"
            } + ["https://github.com/\(repo).git"])

        // Every GitHub address of the project, in every file a user reads, is the repository's.
        for file in Self.distributionFiles + ["docs/report-formats.md", "scripts/install.sh"] {
            let text = try Self.text(file)
            XCTAssertFalse(text.contains("OWNER"), "\(file) has a placeholder owner")
            for other in try Self.captures(#"github(?:usercontent)?\.com/([A-Za-z0-9_.-]+/sandbox-audit)\b"#, in: text)
            where other != repo {
                XCTFail("\(file) names \(other)")
            }
        }
        let readme = try Self.text("README.md")
        let uses = try Self.captures(#"uses: ([A-Za-z0-9_.-]+/sandbox-audit@v[^ `\n]+)"#, in: readme)
        XCTAssertFalse(uses.isEmpty)
        XCTAssertEqual(Set(uses), ["\(repo)@v\(version)"])
        let oneLines = try Self.captures(#"(https://raw\.githubusercontent\.com/\S+ \| sh -s -- \S+)"#, in: readme)
        XCTAssertFalse(oneLines.isEmpty)
        XCTAssertEqual(
            Set(oneLines),
            ["https://raw.githubusercontent.com/\(repo)/v\(version)/scripts/install.sh | sh -s -- \(version)"])
        XCTAssertEqual(
            Set(try Self.captures(#"sandbox-audit-([0-9][0-9A-Za-z.+]*)-(?:linux|macos)"#, in: readme)), [version])
    }

    /// MIT, as SwiftLint, Periphery and Danger: one LICENSE, the plugin package's copy (published
    /// as a repository of its own) the same bytes, the formula's SPDX identifier, the README's line.
    /// That each artifact carries it is checked where it is made (InstallScriptTests: the tarball;
    /// PluginTests: the bundle) and by the release rehearsal.
    func testTheLicenceIsMITAndThePluginPackageCarriesTheSameOne() throws {
        let licence = try Self.text("LICENSE")
        XCTAssertTrue(
            licence.hasPrefix("MIT License\n\nCopyright (c) 2026 The sandbox-audit authors\n\n"),
            String(licence.prefix(80)))
        XCTAssertEqual(try Self.text("Plugin/LICENSE"), licence)
        XCTAssertEqual(
            try Self.captures(#"^  license "([^"]+)"$"#, in: try Self.text("Formula/sandbox-audit.rb")), ["MIT"])
        XCTAssertTrue(try Self.text("README.md").contains("MIT — see [LICENSE](LICENSE)."))
    }

    func testRuntimePackagesAreListedOnceAndShownAlike() throws {
        let listed = try Self.text("scripts/runtime-packages.txt").split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
        XCTAssertEqual(listed, ["libc6", "libgcc-s1", "libstdc++6", "libattr1", "libarchive13", "libsqlite3-0"])
        // The README's Install section and docs/ci.md's Linux job.
        let lines = try ["README.md", "docs/ci.md"].flatMap {
            try Self.captures(#"^ *apt-get install -y (lib[^\n`]*)$"#, in: try Self.text($0))
        }
        XCTAssertGreaterThanOrEqual(lines.count, 2, "the Install section and the Linux recipe")
        for line in lines {
            XCTAssertEqual(line.split(separator: " ").map(String.init), listed, "apt-get install -y \(line)")
        }
        let formula = try Self.text("Formula/sandbox-audit.rb")
        let caveat = try Self.captures(#"apt-get install -y ([^\n]+)$"#, in: formula)
        XCTAssertEqual(caveat.map { $0.split(separator: " ").map(String.init) }, [listed])
        XCTAssertTrue(try Self.text("docs/distribution.md").contains("`" + listed.joined(separator: " ") + "`"))
    }

    /// The workflows, the action and every whole workflow the README shows validate against
    /// GitHub's published schemas (check-jsonschema's vendored copies, offline).
    func testWorkflowsAndActionMatchGitHubsSchemas() throws {
        let check = try Tool.path("check-jsonschema", for: "GitHub's workflow and action schemas")
        let dir = try TempDir("workflows")
        let readme = try Self.text("README.md")
        var workflows = [".github/workflows/ci.yml", ".github/workflows/release.yml"].map { DocsTests.repo + "/" + $0 }
        for (i, block) in try Self.captures(#"```yaml\n(name: [\s\S]*?)```"#, in: readme).enumerated() {
            try Fixture.bytes(dir.sub("readme-\(i).yml"), Array(block.utf8))
            workflows.append(dir.sub("readme-\(i).yml"))
        }
        XCTAssertGreaterThanOrEqual(
            workflows.count, 4, "the README's GitHub recipe and baseline recipe are whole workflows")
        let w = try CLI.run(["--builtin-schema", "vendor.github-workflows"] + workflows, via: check)
        XCTAssertEqual(w.status, 0, w.stdout + w.stderr)
        let a = try CLI.run(["--builtin-schema", "vendor.github-actions", DocsTests.repo + "/action.yml"], via: check)
        XCTAssertEqual(a.status, 0, a.stdout + a.stderr)
    }

    /// The README's pull-request recipe runs the UI tests once per push: main stores its scan as
    /// an artifact, a pull request downloads main's latest and compares with a verdict and a link
    /// (the schema check above validates it as a workflow).
    func testThePullRequestRecipeRunsTheUITestsOnceAndComparesWithMainsStoredScan() throws {
        let readme = try Self.text("README.md")
        let recipe = try XCTUnwrap(
            try Self.captures(#"```yaml\n(name: backup-footprint\n[\s\S]*?)```"#, in: readme).first)
        XCTAssertEqual(
            recipe.components(separatedBy: "xcodebuild test ").count - 1, 1, "the UI tests run once: \(recipe)")
        XCTAssertFalse(recipe.contains("matrix"), "no base and head jobs")
        XCTAssertEqual(Self.jobs(recipe).map(\.name), ["ui-tests"])
        XCTAssertTrue(recipe.contains("on:\n  push:\n    branches: [main]\n  pull_request:\n"), recipe)
        XCTAssertTrue(recipe.contains("uses: actions/upload-artifact@v4"), "main stores its scan")
        XCTAssertTrue(
            recipe.contains(
                "gh run list --workflow \"$WORKFLOW\" --branch main --event push --status success --limit 1"), recipe)
        XCTAssertTrue(recipe.contains("gh run download \"$run\" --name sandbox-audit-scan --dir main"), recipe)
        XCTAssertTrue(recipe.contains("actions: read"), "gh run download needs it")
        // The gate is the policy's budgets and growth, against main's baseline; compare writes the comment.
        XCTAssertTrue(recipe.contains("--baseline main/baseline.json"), recipe)
        XCTAssertTrue(
            recipe.contains("sandbox-audit compare main/baseline.json baseline.json --format markdown"), recipe)
        XCTAssertTrue(recipe.contains("--report-url \"$REPORT_URL\""), recipe)
        XCTAssertTrue(recipe.contains("REPORT_URL: ${{ steps.store.outputs.artifact-url }}"), recipe)
        // What it stores is what it compares: the scan writes baseline.json, the artifact holds it.
        XCTAssertTrue(recipe.contains("--write-baseline baseline.json"), recipe)
        XCTAssertTrue(recipe.contains("            baseline.json\n"), recipe)
    }

    /// The jobs of `text` (a workflow): each job's name and its lines, by indentation under `jobs:`.
    static func jobs(_ text: String) -> [(name: String, body: String)] {
        guard let start = text.range(of: "\njobs:\n") else { return [] }
        var jobs: [(name: String, body: String)] = []
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  #") {
                continue  // a comment between jobs
            } else if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                jobs.append((String(line.dropFirst(2).dropLast()), ""))
            } else if !jobs.isEmpty, line.hasPrefix("   ") || line.isEmpty {
                jobs[jobs.count - 1].body += line + "\n"
            } else if !line.hasPrefix("#") {
                break
            }
        }
        return jobs
    }

    /// The release path runs before a release: on every push, ci.yml runs the release rehearsal
    /// (scripts/release.sh VERSION --dry-run) in its macOS job, which uploads the universal
    /// tarball and runs the stamped formula's `test do` against it, and in its Linux job `dist`
    /// (the release's swift:6.1-focal); every job of the workflows and of the README's recipes
    /// pins its permissions; the action caches a build from source, keyed by what it is built from.
    func testTheReleasePathRunsOnEveryPushAndEveryJobPinsItsPermissions() throws {
        let ci = try Self.text(".github/workflows/ci.yml")
        XCTAssertTrue(ci.contains("on:\n  push:\n"), "ci.yml runs on every push")
        XCTAssertTrue(ci.contains("- os: macos-latest       # the runner's default Xcode\n            dist: true"))
        let quickStart = try XCTUnwrap(Self.jobs(ci).first { $0.name == "quick-start" }?.body)
        for step in [
            "if: matrix.dist\n        run: |\n", "scripts/release.sh \"$version\" --dry-run",
            "brew test sandbox-audit-ci/local/sandbox-audit",
            ".build-rehearsal/stamped/Formula/sandbox-audit.rb", "name: dist-macos", "lipo -archs",
            "scripts/setup.sh test",
        ] {
            XCTAssertTrue(quickStart.contains(step), "ci.yml's quick-start job: \(step)")
        }
        let dist = try XCTUnwrap(Self.jobs(ci).first { $0.name == "dist" }?.body)
        for step in [
            "container: swift:6.1-focal", "scripts/release.sh \"$version\" --dry-run", "path: .build-rehearsal/dist/",
        ] {
            XCTAssertTrue(dist.contains(step), "ci.yml's dist job: \(step)")
        }
        XCTAssertFalse(
            quickStart.contains("startsWith(github.ref, 'refs/tags/')"),
            "the universal binary is built on pushes, not only on tags")
        // The formula's test block is what runs: `brew test` against the tap made from this formula.
        XCTAssertTrue(try Self.text("Formula/sandbox-audit.rb").contains("  test do\n"))

        var workflows = [("ci.yml", ci), ("release.yml", try Self.text(".github/workflows/release.yml"))]
        for (i, block) in try Self.captures(#"```yaml\n(name: [\s\S]*?)```"#, in: try Self.text("README.md"))
            .enumerated()
        {
            workflows.append(("README workflow \(i + 1)", block))
        }
        for (name, text) in workflows {
            let jobs = Self.jobs(text)
            XCTAssertFalse(jobs.isEmpty, "\(name): no jobs read")
            for job in jobs {
                XCTAssertTrue(
                    job.body.contains("\n    permissions:") || job.body.hasPrefix("    permissions:"),
                    "\(name): job \(job.name) pins no permissions")
            }
        }

        let action = try Self.text("action.yml")
        XCTAssertTrue(action.contains("id: source-cache\n      uses: actions/cache/restore@v4"))
        XCTAssertTrue(
            action.contains(
                "uses: actions/cache/save@v4\n      with:\n        path: ${{ steps.where.outputs.dir "
                    + "}}\n        key: ${{ steps.where.outputs.source-key }}"
            ))
        XCTAssertTrue(
            action.contains("find Package.swift Sources -type f"),
            "the source build's key covers the manifest and the sources")
    }

    /// Every build uses the runner's default Xcode; the stated minimum (Xcode 16.3, whose Swift is
    /// Package.swift's swift-tools-version) is selected only by each workflow's job `minimum`, which
    /// checks it, and a release is published only after it.
    func testBuildsUseTheRunnersXcodeAndTheMinimumIsCheckedApart() throws {
        for file in [".github/workflows/ci.yml", ".github/workflows/release.yml"] {
            let jobs = Self.jobs(try Self.text(file))
            XCTAssertEqual(
                jobs.filter { $0.body.contains("xcode-select") || $0.body.contains("Xcode_") }.map(\.name), ["minimum"],
                file)
            let minimum = try XCTUnwrap(jobs.first { $0.name == "minimum" }?.body, file)
            for line in [
                "runs-on: macos-15", "sudo xcode-select -s /Applications/Xcode_16.3.app",
                "tools=$(sed -n '1s#^// swift-tools-version:##p' Package.swift)", "grep \"Swift version $tools \"",
            ] {
                XCTAssertTrue(minimum.contains(line), "\(file), job minimum: \(line)")
            }
        }
        let publish = try XCTUnwrap(
            Self.jobs(try Self.text(".github/workflows/release.yml")).first { $0.name == "publish" }?.body)
        XCTAssertTrue(publish.contains("needs: [linux, linux-deps, macos, minimum]"), publish)
    }

    /// scripts/release.sh refuses before building anything, each time in one line and exit 2: no
    /// version, a version that is none, an unknown option, and publishing (no --dry-run) without
    /// the tag vVERSION on this commit, which only the repository's owner makes.
    func testTheReleaseScriptRefusesBadInputAndPublishingWithoutTheTag() throws {
        let script = DocsTests.repo + "/scripts/release.sh"
        let usage =
            "release: usage: scripts/release.sh VERSION --dry-run | scripts/release.sh VERSION (the repository's "
            + "owner, on the commit tagged vVERSION)\n"
        var cases: [([String], String)] = [
            ([], usage), (["--dry-run"], usage), (["0.1.0", "--publish"], usage), (["0.1.0", "0.2.0"], usage),
            (["1.2", "--dry-run"], "release: not a version: 1.2 (MAJOR.MINOR.PATCH)\n"),
        ]
        if FileManager.default.fileExists(atPath: DocsTests.repo + "/.git"), Tool.find("git") != nil {
            cases.append(
                (
                    ["v99.0.0"],
                    "release: publishing 99.0.0 needs the tag v99.0.0 on this commit, made by the repository's owner "
                        + "(docs/distribution.md, Publishing); --dry-run rehearses without it\n"
                ))
        }
        for (arguments, message) in cases {
            let r = try CLI.run(arguments, via: script)
            XCTAssertEqual(r.status, 2, "\(arguments): \(r.stdout)\(r.stderr)")
            XCTAssertEqual(r.stderr, message, "\(arguments)")
            XCTAssertEqual(r.stdout, "", "\(arguments)")
        }
    }

    /// The release rehearsal end to end (scripts/release.sh VERSION --dry-run): a release build in
    /// .build-rehearsal/src, the whole of one the first time, so opt-in:
    /// SANDBOX_AUDIT_RELEASE_REHEARSAL=1. It passes, says what it built and checked, and leaves
    /// what git sees of the work tree as it was.
    func testTheReleaseRehearsalPassesAndLeavesTheWorkTreeAsItWas() throws {
        guard ProcessInfo.processInfo.environment["SANDBOX_AUDIT_RELEASE_REHEARSAL"] == "1" else {
            throw XCTSkip(
                "opt-in (a release build takes minutes, the first time a whole one): SANDBOX_AUDIT_RELEASE_REHEARSAL=1")
        }
        try Tool.require(
            "git", "python3", "tar", "zip",
            for: "the rehearsal copies what git tracks, serves the tarball with python3 and makes a zip")
        guard Tool.find("curl") != nil || Tool.find("wget") != nil else {
            throw XCTSkip("install.sh downloads with curl or wget; neither is installed")
        }
        let git = Tool.find("git")!
        let status = { try CLI.run(["-C", DocsTests.repo, "status", "--porcelain"], via: git).stdout }
        let before = try status()
        let r = try CLI.run([Project.version, "--dry-run"], via: DocsTests.repo + "/scripts/release.sh")
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.stderr, "", "no check failed")
        XCTAssertTrue(
            r.stdout.contains(
                "release: passed: sandbox-audit-\(Project.version)-\(PluginTests.platform).tar.gz and "
                    + "sandbox-audit.artifactbundle.zip (\(PluginTests.platform)) installed and checked"
            ), r.stdout)
        XCTAssertEqual(try status(), before, "the work tree as git sees it")
        let dist = DocsTests.repo + "/.build-rehearsal/dist"
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: dist).sorted(),
            [
                "sandbox-audit-\(Project.version)-\(PluginTests.platform).tar.gz",
                "sandbox-audit-\(Project.version)-\(PluginTests.platform).tar.gz.sha256",
                "sandbox-audit.artifactbundle.zip", "sandbox-audit.artifactbundle.zip.sha256",
            ])
    }
}
