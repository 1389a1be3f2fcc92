import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// Issue 34 item 4: `config show > p.yml; scan --config p.yml` gives the findings the policy
/// itself gives, on every sample and every policy the project ships (the samples' policies,
/// the `config init` starter, the policies in README.md and docs/policy-file.md, the defaults),
/// in the units the user wrote.
final class PolicyRoundTripTests: XCTestCase {
    static let samples = DocsTests.repo + "/sample-containers"

    /// Every shipped policy, by where it comes from.
    static func shippedPolicies() throws -> [(String, String)] {
        var out: [(String, String)] = [("the defaults", ""), ("config init", PolicyFile.starter)]
        for name in ["WellBehaved", "Misbehaving"] {
            out.append((name, try String(contentsOfFile: samples + "/\(name).sandbox-audit.yml", encoding: .utf8)))
        }
        // Each ```yaml block of the docs that is a policy file (others are workflows or baselines).
        for doc in ["README.md", "docs/policy-file.md"] {
            let text = try String(contentsOfFile: DocsTests.repo + "/" + doc, encoding: .utf8)
            var block: [Substring]?
            var n = 0
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if block == nil, line.hasPrefix("```yaml") {
                    block = []
                    continue
                }
                if block != nil, line.hasPrefix("```") {
                    n += 1
                    let yaml = block!.joined(separator: "\n")
                    if (try? PolicyFile.parse(yaml, source: "x")) != nil { out.append(("\(doc) block \(n)", yaml)) }
                    block = nil
                    continue
                }
                block?.append(line)
            }
        }
        return out
    }

    func findings(_ r: AuditResult) -> [String] {
        r.findings.map {
            "\($0.ruleId) \($0.severity.rawValue) \($0.path?.display ?? "-") \($0.domain ?? "") \($0.message)"
        }.sorted()
    }

    func testConfigShowGivesTheSameFindingsOnEverySampleAndShippedPolicy() throws {
        let policies = try Self.shippedPolicies()
        XCTAssertGreaterThanOrEqual(policies.count, 6, "\(policies.map(\.0))")
        var device = ContainerSelection()
        device.app = "com.example.misbehaving"
        device.appGroups = ["group.com.example.misbehaving"]
        let samples: [(String, ContainerSelection)] = [
            ("WellBehaved", ContainerSelection()), ("Misbehaving", ContainerSelection()),
            ("Example.xcappdata", ContainerSelection()),
            ("Example.xcappdata.tar.gz", ContainerSelection()), ("MisbehavingDevice", device),
        ]
        var compared = 0
        for (name, yaml) in policies {
            let policy = try PolicyFile.parse(yaml, source: name)
            let shown = PolicyFile.render(policy)
            let again = try PolicyFile.parse(shown, source: name + " shown")
            XCTAssertEqual(
                PolicyFile.render(again).split(separator: "\n").dropFirst(), shown.split(separator: "\n").dropFirst(),
                "\(name): config show is stable")
            for (sample, selection) in samples {
                // A policy naming App Groups cannot run on a lone container: the same error, then.
                func outcome(_ p: Policy) -> [String] {
                    do {
                        return findings(
                            try Audit.run(
                                Self.samples + "/" + sample, selection: selection, policy: p, scanTime: 1_800_000_000))
                    } catch { return ["error: \(error)"] }
                }
                let before = outcome(policy)
                let after = outcome(again)
                XCTAssertEqual(before, after, "\(sample) with \(name)\n\(shown)")
                compared += 1
            }
        }
        print("compared findings of \(compared) sample × policy pairs (\(policies.map(\.0).joined(separator: ", ")))")
    }

    /// Through the built binary: the rendered Misbehaving policy gives the same exit and
    /// findings, and keeps the units written.
    func testConfigShowThroughTheCLIKeepsUnitsAndFindings() throws {
        let dir = try TempDir("roundtrip")
        let original = Self.samples + "/Misbehaving.sandbox-audit.yml"
        let show = try CLI.run(["config", "show", "--config", original])
        XCTAssertEqual(show.status, 0, show.stderr)
        try Fixture.bytes(dir.sub("p.yml"), Array(show.stdout.utf8))
        XCTAssertTrue(show.stdout.contains("size: 10MB"), show.stdout)
        XCTAssertFalse(show.stdout.contains("10000000B"), show.stdout)
        for sample in ["Misbehaving", "WellBehaved"] {
            let a = try CLI.run(["scan", "--format", "json", "--config", original, Self.samples + "/" + sample])
            let b = try CLI.run(["scan", "--format", "json", "--config", dir.sub("p.yml"), Self.samples + "/" + sample])
            XCTAssertEqual(a.status, b.status, "\(sample): \(a.stderr) \(b.stderr)")
            func list(_ r: CLI.Result) -> [String] {
                let json = (try? JSONSerialization.jsonObject(with: r.stdoutBytes)) as? [String: Any]
                return ((json?["findings"] as? [[String: Any]]) ?? []).map {
                    "\($0["ruleId"] ?? "") \($0["severity"] ?? "") \($0["path"] ?? "")"
                }.sorted()
            }
            XCTAssertEqual(list(a), list(b), sample)
            XCTAssertFalse(list(a).isEmpty && sample == "Misbehaving")
        }
        XCTAssertEqual(PolicyFile.exactSize(10_000_000), "10MB")
        XCTAssertEqual(PolicyFile.exactSize(5 << 20), "5MiB")
        XCTAssertEqual(PolicyFile.exactSize(1500), "1500B")
        XCTAssertEqual(PolicyFile.exactSize(0), "0B")
        XCTAssertEqual(PolicyFile.exactSize(3_000_000_000), "3GB")
    }
}
