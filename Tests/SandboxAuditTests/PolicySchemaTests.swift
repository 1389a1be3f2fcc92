import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditRules
@testable import SandboxAuditSystem

/// Issue 37 item 5: the policy file's JSON Schema, generated from the tables the reader checks
/// keys against (`PolicySchema`), published as docs/policy.schema.json, named by the starter,
/// and accepting every policy the project ships while refusing what the reader refuses.
final class PolicySchemaTests: XCTestCase {
    static let published = DocsTests.repo + "/docs/policy.schema.json"

    /// docs/policy.schema.json is what `config schema` prints (kept current by `generate-docs`:
    /// DocsTests.testDerivedFilesAreCurrent).
    func testThePublishedSchemaIsTheGeneratedOne() throws {
        let generated = PolicyFile.schema
        let cli = try CLI.run(["config", "schema"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        XCTAssertEqual(cli.stdout, generated)

        // The schema's keys are the reader's, at every level it declares.
        let schema = try JSONSerialization.jsonObject(with: Data(generated.utf8)) as! [String: Any]
        let top = schema["properties"] as! [String: Any]
        XCTAssertEqual(Set(top.keys), Set(PolicyFile.topKeys))
        XCTAssertEqual(schema["$schema"] as? String, "https://json-schema.org/draft/2020-12/schema")
        XCTAssertEqual(
            schema["$id"] as? String,
            "https://raw.githubusercontent.com/\(Project.repository)/main/docs/policy.schema.json")
        let rules = ((top["rules"] as! [String: Any])["anyOf"] as! [[String: Any]])[1]["properties"] as! [String: Any]
        XCTAssertEqual(Set(rules.keys), Set(RuleCatalogue.all.map(\.id)))
    }

    /// The starter names the schema on its first line (the YAML language server reads it), its
    /// reference is a URL, and appGroups and suppress are there, commented.
    func testTheStarterNamesTheSchemaAndItsReferenceByURL() throws {
        let lines = PolicyFile.starter.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(
            lines.first.map(String.init),
            "# yaml-language-server: "
                + "$schema=https://raw.githubusercontent.com/sandbox-audit/sandbox-audit/main/docs/policy.schema.json"
        )
        XCTAssertTrue(
            PolicyFile.starter.contains(
                "# Reference: https://github.com/sandbox-audit/sandbox-audit/blob/main/docs/policy-file.md\n"))
        XCTAssertFalse(PolicyFile.starter.contains("Reference: docs/"))
        XCTAssertTrue(
            PolicyFile.starter.contains("\n# appGroups:\n#   - group.com.example.shared\n"), PolicyFile.starter)
        XCTAssertTrue(
            PolicyFile.starter.contains("\n# suppress:\n#   - rule: oversized-backed-up-file\n"), PolicyFile.starter)
        // Uncommented, the commented keys are a valid policy.
        let uncommented = PolicyFile.starter.split(separator: "\n", omittingEmptySubsequences: false).map {
            line -> Substring in
            for key in [
                "# appGroups:", "#   - group.", "# suppress:", "#   - rule:", "#     path:", "#     reason:",
                "#     until:",
            ] where line.hasPrefix(key) {
                return line.dropFirst(2)
            }
            return line
        }.joined(separator: "\n")
        let p = try PolicyFile.parse(uncommented, source: "starter")
        XCTAssertEqual(p.appGroups, ["group.com.example.shared"])
        XCTAssertEqual(p.suppressions.map(\.ruleId), ["oversized-backed-up-file"])
        // The repository named is the one the project uses everywhere (README, formula).
        let readme = try String(contentsOfFile: DocsTests.repo + "/README.md", encoding: .utf8)
        XCTAssertTrue(readme.contains(Project.repositoryURL))
    }

    /// Every shipped policy (the samples', the starter, README's and docs/policy-file.md's
    /// blocks, the benchmark's, every rule example's), written as a file, passes
    /// check-jsonschema against docs/policy.schema.json; policies the reader refuses fail it.
    func testEveryShippedPolicyValidatesAgainstTheSchema() throws {
        let checker = try Tool.path(
            "check-jsonschema", for: "the shipped policies are validated against docs/policy.schema.json")
        let dir = try TempDir("policy-schema")
        var shipped = try PolicyRoundTripTests.shippedPolicies().filter { !$0.1.isEmpty }
        shipped.append(
            (
                "scripts/bench/budgets-policy.yml",
                try String(contentsOfFile: DocsTests.repo + "/scripts/bench/budgets-policy.yml", encoding: .utf8)
            ))
        for rule in RuleCatalogue.all {
            for (i, example) in (rule.description.triggeringExamples + rule.description.nonTriggeringExamples)
                .enumerated()
            {
                if let yaml = example.policy { shipped.append(("\(rule.id) example \(i + 1)", yaml)) }
            }
        }
        var files: [String] = []
        for (i, (name, yaml)) in shipped.enumerated() {
            XCTAssertNoThrow(try PolicyFile.parse(yaml, source: name), name)
            let path = dir.sub(String(format: "p%03d.yml", i))
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            files.append(path)
        }
        XCTAssertGreaterThan(files.count, 20, "\(shipped.map(\.0))")
        let ok = try CLI.run(["--schemafile", Self.published] + files, via: checker)
        XCTAssertEqual(
            ok.status, 0,
            ok.stdout + ok.stderr + "\n"
                + shipped.enumerated().map { "p\($0.offset): \($0.element.0)" }.joined(separator: "\n"))
        print("check-jsonschema validated \(files.count) shipped policies")

        // What the reader refuses, the schema refuses too, each on its own.
        let refused = [
            "budget:\n  backup: 25MB\n",
            "budgets:\n  backup: 25 megabytes\n",
            "rules:\n  misplaced-at-rot: off\n",
            "rules:\n  oversized-backed-up-file: {size: big}\n",
            "paths:\n  - {backup: excluded}\n",
            "suppress:\n  - {rule: special-file, path: \"tmp/**\"}\n",
            "suppress:\n  - {rule: special-fil, path: \"tmp/**\", reason: x}\n",
            "suppress:\n  - {rule: special-file, path: \"tmp/**\", reason: x, until: next week}\n",
            "suppress:\n  - {rule: special-file, path: \"tmp/**\", reason: x, until: 2027-13-45}\n",
            "protection:\n  Documents: locked\n",
            "growth:\n  backup: ten\n",
            "budgets:\n  domains:\n    com.example.app: 1MB\n",
        ]
        for (i, yaml) in refused.enumerated() {
            XCTAssertThrowsError(try PolicyFile.parse(yaml, source: "refused \(i)"), yaml)
            let path = dir.sub("bad\(i).yml")
            try yaml.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try CLI.run(["--schemafile", Self.published, path], via: checker)
            XCTAssertEqual(r.status, 1, "the schema accepts what the reader refuses:\n\(yaml)\n\(r.stdout)\(r.stderr)")
        }
    }
}
