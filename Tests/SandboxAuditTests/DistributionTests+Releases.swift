import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

extension DistributionTests {
    /// The README says whether a release exists: while the formula's checksums are zeros (the
    /// release workflow has not stamped it), the Install section says there is none and what
    /// works instead; scripts/stamp-version.sh removes that paragraph when it stamps a release.
    func testTheReadmeSaysWhetherAReleaseExists() throws {
        let formula = try Self.text("Formula/sandbox-audit.rb")
        let readme = try Self.text("README.md")
        let unreleased = formula.contains("sha256 \"\(String(repeating: "0", count: 64))\"")
        XCTAssertEqual(readme.contains("**There is no release yet.**"), unreleased)
        if unreleased {
            for words in [
                "brew install --HEAD sandbox-audit", "uses: sandbox-audit/sandbox-audit@main", "builds from source",
            ] {
                XCTAssertTrue(readme.contains(words), words)
            }
        }
        // The stamp removes it: run on a copy of the README.
        let dir = try TempDir("stamp")
        try Fixture.bytes(dir.sub("README.md"), Array(readme.utf8))
        try sh(
            "sed -i.bak -e '/^\\*\\*There is no release yet\\.\\*\\*/,/^<!-- no-release-yet/d' README.md", in: dir.path)
        let stamped = try String(contentsOfFile: dir.sub("README.md"), encoding: .utf8)
        XCTAssertFalse(stamped.contains("There is no release yet"))
        XCTAssertTrue(stamped.contains("## Install\n"))
        XCTAssertTrue(
            try Self.text("scripts/stamp-version.sh").contains(
                "/^\\*\\*There is no release yet\\.\\*\\*/,/^<!-- no-release-yet/d"))
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
            let r = try CLI.run(
                [DocsTests.repo + "/dist/\(name).tar.gz"], via: DocsTests.repo + "/scripts/check-dist-deps.sh")
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
            XCTAssertTrue(r.stdout.contains("does not start"), r.stdout)
            XCTAssertTrue(r.stdout.contains("passed: \(name) runs on Debian"), r.stdout)
        #endif
    }
}
