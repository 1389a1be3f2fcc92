import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem
@testable import sandbox_audit

/// A rule's options are declared once (`RuleOption`, in the rule's file): the `scan` flags, the
/// policy file, the JSON `settings` and the docs follow the declarations, one to one.
final class RuleOptionTests: XCTestCase {
    var options: [(rule: String, option: RuleOption)] { RuleCatalogue.options }

    func testDeclarationsAreWellFormed() {
        XCTAssertGreaterThan(options.count, 0)
        for (rule, o) in options {
            XCTAssertNotNil(
                o.kind.parse(o.defaultText),
                "\(rule).\(o.key): the default '\(o.defaultText)' is not \(o.kind.expected)")
            XCTAssertEqual(
                RuleOption.of(o.setting).json, o.json,
                "\(rule).\(o.key): its RuleSettings property leads to another option")
            XCTAssertNotEqual(o.key, "severity", "\(rule): 'severity' is the rule's own key in the policy file")
        }
        for (what, names) in [
            ("flag", options.map(\.option.flag)), ("JSON name", options.map(\.option.json)),
            ("policy key", options.map { "\($0.rule).\($0.option.key)" }),
        ] {
            XCTAssertEqual(Set(names).count, names.count, "two options share a \(what): \(names)")
        }
    }

    /// Every declared option has exactly one `scan` flag, with its declared name and help, and
    /// every rule-option flag is a declared option's: a missing, extra or miswired flag fails.
    func testEveryDeclaredOptionHasExactlyOneScanFlag() throws {
        let line = try NSRegularExpression(pattern: #"^  --([a-z-]+) <([a-z-]+)>\s+(.*)$"#, options: .anchorsMatchLines)
        let help = RuleOptionFlags.helpMessage(columns: 10_000)
        var flags: [String: String] = [:]
        for m in line.matches(in: help, range: NSRange(help.startIndex..., in: help)) {
            let flag = String(help[Range(m.range(at: 1), in: help)!])
            guard flag != "help" else { continue }
            XCTAssertNil(flags[flag], "--\(flag) is listed twice")
            XCTAssertEqual(
                String(help[Range(m.range(at: 2), in: help)!]), flag, "--\(flag): its value is not named after it")
            flags[flag] = String(help[Range(m.range(at: 3), in: help)!])
        }
        XCTAssertEqual(
            Set(flags.keys), Set(options.map(\.option.flag)),
            "the rule-option flags of scan are not the declared options")
        for (rule, o) in options { XCTAssertEqual(flags[o.flag], o.help, "\(rule).\(o.key): --\(o.flag)'s help") }

        // The real binary's scan takes each exactly once.
        let scanHelp = try CLI.run(["scan", "--help"]).stdout
        for (_, o) in options {
            XCTAssertEqual(
                scanHelp.components(separatedBy: "  --\(o.flag) <").count - 1, 1,
                "scan --help lists --\(o.flag) other than once")
        }

        // Each flag sets its own option and nothing else (twice the default, under the other limits).
        for (rule, o) in options {
            let text: String
            switch o.defaultValue {
            case .size(let b): text = "\(2 * b)B"
            case .age(let a): text = "\(Int(2 * a))s"
            case .count(let n): text = "\(2 * n)"
            }
            var settings = RuleSettings()
            try RuleOptionFlags.parse(["--\(o.flag)", text]).apply(to: &settings)
            for (_, other) in options {
                XCTAssertEqual(
                    settings[other], other.json == o.json ? o.kind.parse(text) : other.defaultValue,
                    "--\(o.flag) \(text) (\(rule).\(o.key)): \(other.json)")
            }
        }
    }

    func testPolicyFileTakesEveryDeclaredOption() throws {
        let yaml =
            "rules:\n"
            + Dictionary(grouping: options, by: \.rule).map { rule, declared in
                "  \(rule):\n" + declared.map { "    \($0.option.key): \($0.option.defaultText)\n" }.joined()
            }.joined()
        let policy = try PolicyFile.parse(yaml, source: "test.yml")
        for (_, o) in options { XCTAssertEqual(policy.settings[o], o.defaultValue) }
        let json = try CLI.scanJSON([try emptyContainer()]).json
        let settings = try XCTUnwrap(json["settings"] as? [String: Any])
        XCTAssertEqual(
            Set(settings.keys), Set(options.map(\.option.json) + ["failOn"]),
            "the JSON settings are not the declared options")
    }

    func emptyContainer() throws -> String {
        let dir = try TempDir()
        try Fixture.container(at: dir.path)
        addTeardownBlock { _ = dir }
        return dir.path
    }
}
