import Foundation
import XCTest
@testable import SandboxAudit
@testable import SandboxAuditSystem
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditReport

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

    static let distributionFiles = ["README.md", "docs/distribution.md", "Formula/sandbox-audit.rb", "action.yml",
                                    ".github/workflows/ci.yml", ".github/workflows/release.yml", "scripts/setup.sh"]

    func testSwiftToolsVersionIsTheStatedMinimumEverywhere() throws {
        let manifest = try Self.text("Package.swift")
        XCTAssertTrue(manifest.hasPrefix("// swift-tools-version:6.1\n"), String(manifest.prefix(40)))
        XCTAssertFalse(manifest.contains("unsafeFlags"))
        let stated: [String: [String]] = [
            "README.md": ["Swift](https://www.swift.org/install/) 6.1 or later", "Xcode 16.3 or later", "Swift 6.1 or later; Xcode 16.3 on macOS"],
            "docs/distribution.md": ["Swift 6.1 or later (Xcode 16.3 on macOS)", "Xcode 16.3 or later (Swift 6.1)", "`swift-tools-version:6.1`"],
            "Formula/sandbox-audit.rb": ["depends_on xcode: [\"16.3\", :build] # swift-tools-version 6.1"],
            "action.yml": ["Swift 6.1 or later"],
            ".github/workflows/ci.yml": ["xcode: \"16.3\"", "container: swift:6.1-focal"],
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
            for stale in try Self.captures(#"(Swift [0-5]\.[0-9]+|Xcode 1[0-5]\.[0-9]+|swift-version: "?6\.0|swift:[0-5]\.)"#, in: text) {
                XCTFail("\(file) states \(stale)")
            }
        }
    }

    func testDependenciesArePinnedExactly() throws {
        let manifest = try Self.text("Package.swift")
        let pins = try Self.captures(#"\.package\(url: "https://github\.com/[^/]+/([^"]+)", exact: "([^"]+)"\)"#, in: manifest)
        let versions = try Self.captures(#"\.package\(url: "[^"]+", exact: "([^"]+)"\)"#, in: manifest)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: zip(pins, versions)),
                       ["swift-argument-parser": "1.8.2", "Yams": "6.2.2", "swift-crypto": "3.12.3"])
        XCTAssertEqual(manifest.components(separatedBy: ".package(url:").count - 1, 3, "every dependency pinned")
        for loose in ["from:", "branch:", "revision:", ".upToNextMajor", ".upToNextMinor", "\"1.8.2\"..."] {
            XCTAssertFalse(manifest.contains(loose), "Package.swift: \(loose)")
        }
        // The versions the documentation names are the pinned ones.
        let docs = try Self.text("docs/distribution.md").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(docs.contains("(swift-argument-parser 1.8.2, Yams 6.2.2, swift-crypto 3.12.3)"), "docs/distribution.md names the pins")
        // Package.resolved stays out of git.
        XCTAssertTrue(try Self.text(".gitignore").split(separator: "\n").contains("Package.resolved"))
    }

    func testOneRepositoryAndOneVersion() throws {
        XCTAssertEqual(References.repository, "https://github.com/" + Project.repository)
        XCTAssertEqual(Audit.toolVersion, Project.version)
        let repo = Project.repository, version = Project.version
        let install = try Self.text("scripts/install.sh")
        XCTAssertEqual(try Self.captures(#"^repository="([^"]+)""#, in: install), [repo])

        let formula = try Self.text("Formula/sandbox-audit.rb")
        XCTAssertEqual(try Self.captures(#"^  version "([^"]+)""#, in: formula), [version])
        XCTAssertEqual(try Self.captures(#"^  homepage "([^"]+)""#, in: formula), ["https://github.com/\(repo)"])
        let urls = try Self.captures(#"^ *url "([^"]+)""#, in: formula)
        XCTAssertEqual(urls, ["macos-universal", "linux-x86_64", "linux-aarch64"].map {
            "https://github.com/\(repo)/releases/download/v\(version)/sandbox-audit-\(version)-\($0).tar.gz"
        } + ["https://github.com/\(repo).git"])

        // Every GitHub address of the project, in every file a user reads, is the repository's.
        for file in Self.distributionFiles + ["docs/report-formats.md", "scripts/install.sh"] {
            let text = try Self.text(file)
            XCTAssertFalse(text.contains("OWNER"), "\(file) has a placeholder owner")
            for other in try Self.captures(#"github(?:usercontent)?\.com/([A-Za-z0-9_.-]+/sandbox-audit)\b"#, in: text) where other != repo {
                XCTFail("\(file) names \(other)")
            }
        }
        let readme = try Self.text("README.md")
        let uses = try Self.captures(#"uses: ([A-Za-z0-9_.-]+/sandbox-audit@v[^ `\n]+)"#, in: readme)
        XCTAssertFalse(uses.isEmpty)
        XCTAssertEqual(Set(uses), ["\(repo)@v\(version)"])
        let oneLines = try Self.captures(#"(https://raw\.githubusercontent\.com/\S+ \| sh -s -- \S+)"#, in: readme)
        XCTAssertFalse(oneLines.isEmpty)
        XCTAssertEqual(Set(oneLines), ["https://raw.githubusercontent.com/\(repo)/v\(version)/scripts/install.sh | sh -s -- \(version)"])
        XCTAssertEqual(Set(try Self.captures(#"sandbox-audit-([0-9][0-9A-Za-z.+]*)-(?:linux|macos)"#, in: readme)), [version])
    }

    func testRuntimePackagesAreListedOnceAndShownAlike() throws {
        let listed = try Self.text("scripts/runtime-packages.txt").split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("#") && !$0.isEmpty }
        XCTAssertEqual(listed, ["libc6", "libgcc-s1", "libstdc++6", "libattr1", "libarchive13", "libsqlite3-0"])
        let readme = try Self.text("README.md")
        let lines = try Self.captures(#"^ *apt-get install -y (lib[^\n`]*)$"#, in: readme)
        XCTAssertGreaterThanOrEqual(lines.count, 2, "the Install section and the Linux recipe")
        for line in lines { XCTAssertEqual(line.split(separator: " ").map(String.init), listed, "README: apt-get install -y \(line)") }
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
        XCTAssertGreaterThanOrEqual(workflows.count, 4, "the README's GitHub recipe and baseline recipe are whole workflows")
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
        let recipe = try XCTUnwrap(try Self.captures(#"```yaml\n(name: backup-footprint\n[\s\S]*?)```"#, in: readme).first)
        XCTAssertEqual(recipe.components(separatedBy: "xcodebuild test ").count - 1, 1, "the UI tests run once: \(recipe)")
        XCTAssertFalse(recipe.contains("matrix"), "no base and head jobs")
        XCTAssertEqual(Self.jobs(recipe).map(\.name), ["ui-tests"])
        XCTAssertTrue(recipe.contains("on:\n  push:\n    branches: [main]\n  pull_request:\n"), recipe)
        XCTAssertTrue(recipe.contains("uses: actions/upload-artifact@v4"), "main stores its scan")
        XCTAssertTrue(recipe.contains("gh run list --workflow \"$WORKFLOW\" --branch main --event push --status success --limit 1"), recipe)
        XCTAssertTrue(recipe.contains("gh run download \"$run\" --name sandbox-audit-scan --dir main"), recipe)
        XCTAssertTrue(recipe.contains("actions: read"), "gh run download needs it")
        XCTAssertTrue(recipe.contains("sandbox-audit compare main/baseline.json baseline.json --fail-on-growth 1MB"), recipe)
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
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(":") {
                jobs.append((String(line.dropFirst(2).dropLast()), ""))
            } else if !jobs.isEmpty, line.hasPrefix("   ") || line.isEmpty {
                jobs[jobs.count - 1].body += line + "\n"
            } else if !line.hasPrefix("#") {
                break
            }
        }
        return jobs
    }

    /// The release path runs before a release: on every push, ci.yml's macOS job on the oldest
    /// supported Xcode builds dist.sh's universal binary, uploads it and runs the formula's
    /// `test do` against it; every job of the workflows and of the README's recipes pins its
    /// permissions; the action caches a build from source, keyed by what it is built from.
    func testTheReleasePathRunsOnEveryPushAndEveryJobPinsItsPermissions() throws {
        let ci = try Self.text(".github/workflows/ci.yml")
        XCTAssertTrue(ci.contains("on:\n  push:\n"), "ci.yml runs on every push")
        XCTAssertTrue(ci.contains("- os: macos-15\n            xcode: \"16.3\"          # the oldest supported: swift-tools-version 6.1\n            dist: true"))
        let quickStart = try XCTUnwrap(Self.jobs(ci).first { $0.name == "quick-start" }?.body)
        for step in ["if: matrix.dist\n        run: |\n          scripts/dist.sh", "brew test sandbox-audit-ci/local/sandbox-audit",
                     "name: dist-macos", "lipo -archs", "scripts/setup.sh test"] {
            XCTAssertTrue(quickStart.contains(step), "ci.yml's quick-start job: \(step)")
        }
        XCTAssertFalse(quickStart.contains("startsWith(github.ref, 'refs/tags/')"), "the universal binary is built on pushes, not only on tags")
        // The formula's test block is what runs: `brew test` against the tap made from this formula.
        XCTAssertTrue(try Self.text("Formula/sandbox-audit.rb").contains("  test do\n"))

        var workflows = [("ci.yml", ci), ("release.yml", try Self.text(".github/workflows/release.yml"))]
        for (i, block) in try Self.captures(#"```yaml\n(name: [\s\S]*?)```"#, in: try Self.text("README.md")).enumerated() {
            workflows.append(("README workflow \(i + 1)", block))
        }
        for (name, text) in workflows {
            let jobs = Self.jobs(text)
            XCTAssertFalse(jobs.isEmpty, "\(name): no jobs read")
            for job in jobs { XCTAssertTrue(job.body.contains("\n    permissions:") || job.body.hasPrefix("    permissions:"), "\(name): job \(job.name) pins no permissions") }
        }

        let action = try Self.text("action.yml")
        XCTAssertTrue(action.contains("id: source-cache\n      uses: actions/cache/restore@v4"))
        XCTAssertTrue(action.contains("uses: actions/cache/save@v4\n      with:\n        path: ${{ steps.where.outputs.dir }}\n        key: ${{ steps.where.outputs.source-key }}"))
        XCTAssertTrue(action.contains("find Package.swift Sources -type f"), "the source build's key covers the manifest and the sources")
    }

    /// The README says whether a release exists: while the formula's checksums are zeros (the
    /// release workflow has not stamped it), the Install section says there is none and what
    /// works instead; scripts/stamp-version.sh removes that paragraph when it stamps a release.
    func testTheReadmeSaysWhetherAReleaseExists() throws {
        let formula = try Self.text("Formula/sandbox-audit.rb")
        let readme = try Self.text("README.md")
        let unreleased = formula.contains("sha256 \"\(String(repeating: "0", count: 64))\"")
        XCTAssertEqual(readme.contains("**There is no release yet.**"), unreleased)
        if unreleased {
            for words in ["brew install --HEAD sandbox-audit", "uses: sandbox-audit/sandbox-audit@main", "builds from source"] {
                XCTAssertTrue(readme.contains(words), words)
            }
        }
        // The stamp removes it: run on a copy of the README.
        let dir = try TempDir("stamp")
        try Fixture.bytes(dir.sub("README.md"), Array(readme.utf8))
        try sh("sed -i.bak -e '/^\\*\\*There is no release yet\\.\\*\\*/,/^<!-- no-release-yet/d' README.md", in: dir.path)
        let stamped = try String(contentsOfFile: dir.sub("README.md"), encoding: .utf8)
        XCTAssertFalse(stamped.contains("There is no release yet"))
        XCTAssertTrue(stamped.contains("## Install\n"))
        XCTAssertTrue(try Self.text("scripts/stamp-version.sh").contains("/^\\*\\*There is no release yet\\.\\*\\*/,/^<!-- no-release-yet/d"))
    }

    /// scripts/check-dist-deps.sh on a tarball `make dist` builds: minutes (a release build, then
    /// debootstrap), so opt-in: SANDBOX_AUDIT_CHECK_DIST_DEPS=1. Needs Linux, root, debootstrap
    /// and the Debian mirror.
    func testReleaseTarballRunsOnMinimalDebianWithTheListedPackages() throws {
        guard ProcessInfo.processInfo.environment["SANDBOX_AUDIT_CHECK_DIST_DEPS"] == "1" else {
            throw XCTSkip("opt-in (a release build and debootstrap take minutes): SANDBOX_AUDIT_CHECK_DIST_DEPS=1")
        }
        #if !os(Linux)
        throw XCTSkip("the Linux tarball's check")
        #else
        guard geteuid() == 0 else { throw XCTSkip("debootstrap and chroot need root") }
        try Tool.require("debootstrap", for: "the minimal Debian root (Debian: apt-get install debootstrap)")
        try sh("scripts/dist.sh > /dev/null", in: DocsTests.repo)
        var machine = utsname()
        uname(&machine)
        let arch = withUnsafeBytes(of: machine.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let name = "sandbox-audit-\(Project.version)-linux-\(arch == "arm64" ? "aarch64" : arch)"
        let r = try CLI.run([DocsTests.repo + "/dist/\(name).tar.gz"], via: DocsTests.repo + "/scripts/check-dist-deps.sh")
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("does not start"), r.stdout)
        XCTAssertTrue(r.stdout.contains("passed: \(name) runs on Debian"), r.stdout)
        #endif
    }
}
