import ArgumentParser
import Foundation
import SandboxAudit

struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare two scans of an app (a pull request's base and head): footprint, paths and findings, before and after.",
        discussion: """
            BASE and HEAD are each a scan report (scan --format json) or a baseline (scan \
            --write-baseline). Shown: the backup footprint, kept-on-update bytes and file counts of the \
            whole app, per domain, zone and owner, before → after with the delta; the paths that grew \
            most, the new and the removed ones, those newly backed up or no longer backed up, and the \
            exclusions lost; the findings new in HEAD and those fixed since BASE. A \
            scan report records no per-path sizes and a baseline no kept-on-update bytes: what a side \
            lacks is said, not guessed. Formats text, markdown (a pull-request comment, always under \
            65,536 characters) and json (docs/compare-format.md). Read-only.

            Exit 0, or 1 when --fail-on-growth is given and the backup footprint grew by more, or when \
            a side's scan was incomplete (INCOMPLETE SCAN at the top) unless --allow-incomplete is \
            given; exit 2 when a file is missing, unreadable, not a report, or a field is not of its \
            documented type (naming the field).

            Examples:
              sandbox-audit compare base.json head.json
              sandbox-audit compare base-baseline.json head-baseline.json --format markdown
              sandbox-audit compare base.json head.json --fail-on-growth 5MB
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, markdown, json }

    @Argument(help: "The earlier scan: a scan report (scan --format json) or a baseline (scan --write-baseline).")
    var base: String

    @Argument(help: "The later scan, the same way.")
    var head: String

    @Option(help: "text, markdown or json.")
    var format: Format = .text

    @Option(name: .customLong("fail-on-growth"), help: ArgumentHelp("Exit 1 when the backup footprint grew by more than SIZE (\(ByteSize.accepted)).", valueName: "SIZE"),
            transform: { try SizeArgument.parse($0) })
    var failOnGrowth: SizeArgument?

    @Flag(name: .customLong("allow-incomplete"), help: "Exit 0 even when a side's scan was incomplete (it could not read everything); the report still says so.")
    var allowIncomplete = false

    func run() throws {
        let comparison = try ReportComparison.load(base: base, head: head)
        switch format {
        case .text: emit(ComparisonReport.text(comparison))
        case .markdown: emit(ComparisonReport.markdown(comparison))
        case .json: emit(ComparisonReport.json(comparison))
        }
        if let limit = failOnGrowth, comparison.grew(moreThan: limit.bytes) { throw ExitCode(1) }
        if comparison.incomplete && !allowIncomplete { throw ExitCode(1) }
    }
}
