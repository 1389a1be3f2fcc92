import ArgumentParser
import Foundation
import SandboxAudit
import SandboxAuditRules

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract:
            "Compare two scans of an app (a pull request's base and head): footprint, paths and findings, before and "
            + "after.",
        discussion: """
            BASE and HEAD are each a scan report (scan --format json) or a baseline (scan \
            --write-baseline). Shown: the backup footprint, kept-on-update bytes and file counts of the \
            whole app, per domain, zone and owner, before → after with the delta; the paths that grew \
            most, the new and the removed ones, those newly backed up or no longer backed up, and the \
            exclusions lost; the findings new in HEAD and those fixed since BASE. A \
            scan report records no per-path sizes and a baseline no kept-on-update bytes: what a side \
            lacks is said, not guessed. Formats text, markdown (a pull-request comment, always under \
            65,536 characters) and json (docs/compare-format.md). Read-only.

            With --fail-on-growth every format states the verdict: the limit, the growth and \
            PASSED or FAILED (a ✅/❌ row in Markdown, growthCheck in JSON). Rows of the domain, \
            zone and owner tables whose figures did not change are folded (--show-unchanged lists \
            them). Two files naming different bundle identifiers are refused unless \
            --allow-different-apps is given (then a note says so).

            Exit 0, or 1 when --fail-on-growth is given and the backup footprint grew by more, or when \
            a side's scan was incomplete (INCOMPLETE SCAN at the top) unless --allow-incomplete is \
            given; exit 2 when a file is missing, unreadable, not a report, or a field is not of its \
            documented type (naming the field), or BASE and HEAD are two different apps.

            Examples:
              sandbox-audit compare base.json head.json
              sandbox-audit compare base-baseline.json head-baseline.json --format markdown
              sandbox-audit compare base.json head.json --fail-on-growth 5MB
              sandbox-audit compare base.json head.json --format markdown --report-url "$ARTIFACT_URL"
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, markdown, json }

    @Argument(help: "The earlier scan: a scan report (scan --format json) or a baseline (scan --write-baseline).")
    var base: String

    @Argument(help: "The later scan, the same way.")
    var head: String

    @Option(help: "text, markdown or json.")
    var format: Format = .text

    @Option(
        name: .customLong("fail-on-growth"),
        help: ArgumentHelp(
            "Exit 1 when the backup footprint grew by more than SIZE (\(ByteSize.accepted)).", valueName: "SIZE"),
        transform: { try SizeArgument.parse($0) })
    var failOnGrowth: SizeArgument?

    @Flag(
        name: .customLong("allow-incomplete"),
        help: "Exit 0 even when a side's scan was incomplete (it could not read everything); the report still says so.")
    var allowIncomplete = false

    @Flag(
        name: .customLong("show-unchanged"),
        help: "List the domain, zone and owner rows whose figures did not change (folded by default).")
    var showUnchanged = false

    @Flag(
        name: .customLong("allow-different-apps"),
        help: "Compare BASE and HEAD even when they name different bundle identifiers (a note says so).")
    var allowDifferentApps = false

    @Option(
        name: .customLong("report-url"),
        help: ArgumentHelp(
            "Link the HTML report at URL (an http or https URL, such as the CI artifact of HEAD's scan) in the text, "
                + "Markdown and JSON.",
            valueName: "URL"))
    var reportURL: String?

    func validate() throws {
        if let url = reportURL {
            let scheme = url.lowercased()
            guard scheme.hasPrefix("https://") || scheme.hasPrefix("http://"),
                !url.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
            else {
                throw ValidationError(
                    "--report-url \(TerminalText.escaped(url)) is not an http or https URL without spaces")
            }
        }
    }

    @Option(help: sourcesHelp)
    var sources: String?

    func run() throws {
        // Read first: a folder that cannot be read fails the run before the reports are read.
        let appSources = try sources.map(AppSources.read)
        if let note = appSources?.skippedNote { FileHandle.standardError.write(Data("note: \(note)\n".utf8)) }
        var comparison = try ReportComparison.load(base: base, head: head, allowDifferentApps: allowDifferentApps)
        comparison.growthLimit = failOnGrowth?.bytes
        comparison.sources = appSources
        emit(
            ComparisonReport.render(comparison, as: format.rawValue, showUnchanged: showUnchanged, reportURL: reportURL)
                ?? "")
        if comparison.failed { throw ExitCode(1) }
        if comparison.incomplete && !allowIncomplete { throw ExitCode(1) }
    }
}
