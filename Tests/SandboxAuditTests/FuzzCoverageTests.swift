import Foundation
import XCTest

@testable import SandboxAuditReport
@testable import SandboxAuditRules

/// No surface without a fuzz target, by construction (issue 45): the subcommands (from the
/// command's own help), the report formats (`ReportFormat.allCases`) and the policy file's
/// sections (`PolicySchema.top`) each have a target in scripts/fuzz.py, which declares what each
/// target exercises (`python3 scripts/fuzz.py --coverage`). A new one without a target fails here.
final class FuzzCoverageTests: XCTestCase {
    /// The subcommands `sandbox-audit --help` lists.
    func subcommands() throws -> [String] {
        let help = try CLI.run(["--help"]).stdout
        let section = try XCTUnwrap(help.range(of: "SUBCOMMANDS:\n"))
        // The section ends at its first empty line.
        let listing = help[section.upperBound...].components(separatedBy: "\n\n")[0]
        return listing.split(separator: "\n").compactMap { line -> String? in
            // A subcommand's line starts with two spaces and its name; wrapped help lines start deeper.
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first else {
                return nil
            }
            return String(name)
        }
    }

    func testEverySubcommandFormatAndPolicySectionHasAFuzzTarget() throws {
        try Tool.require("python3", for: "reads scripts/fuzz.py's coverage")
        let out = try python(
            "import runpy, sys; sys.argv = ['fuzz.py', '--coverage']; runpy.run_path('scripts/fuzz.py', "
                + "run_name='__main__')",
            in: PluginTests.repository)
        let coverage = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: [String: [String]]])
        let registries: [(String, [String])] = [
            ("subcommands", try subcommands()),
            ("formats", ReportFormat.allCases.map(\.rawValue)),
            ("policySections", PolicySchema.top.map(\.name)),
        ]
        for (kind, names) in registries {
            XCTAssertFalse(names.isEmpty, kind)
            let covered = coverage[kind] ?? [:]
            for name in names {
                XCTAssertFalse(
                    (covered[name] ?? []).isEmpty,
                    "\(kind) \(name) has no fuzz target in scripts/fuzz.py: add one (or name it in a target's coverage)"
                )
            }
        }
        XCTAssertTrue(try subcommands().contains("trend"), "the help's subcommands were read")
    }
}
