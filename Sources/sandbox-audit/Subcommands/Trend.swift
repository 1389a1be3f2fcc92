import ArgumentParser
import Foundation
import SandboxAudit

struct TrendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trend",
        abstract:
            "The backup footprint over N scans in order (sessions of one UI-test run, or releases): per domain, "
            + "zone, owner and path, and the paths that grew at every step.",
        discussion: """
            Each FILE is a baseline (scan --write-baseline) or a scan report (scan --format json), \
            oldest first. Shown: the bytes backup carries at each point and the growth at each step, \
            for the whole app, per domain, zone and owner; the paths that grew at every step, \
            flagged grows-every-step with their likely cause (a SQLite -wal never checkpointed, web \
            view storage, a queue or log outside Library/Caches); the paths grown most. Paths need \
            baselines (a scan report records no per-path sizes). Formats text, markdown, json \
            (docs/trend-format.md) and html (one offline page with a line chart per domain and \
            owner). Read-only.

            Exit 0, or 1 when --fail-on-growth-per-step is given and the backup footprint grew by \
            more in some step, or when a scan was incomplete unless --allow-incomplete is given; \
            exit 2 when fewer than two files are given, a file cannot be read or is not a report, \
            or two files name different bundle identifiers (unless --allow-different-apps).

            Examples:
              sandbox-audit trend session-1.json session-2.json session-3.json
              sandbox-audit trend session-*.json --format html > trend.html
              sandbox-audit trend session-*.json --fail-on-growth-per-step 500kB
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, markdown, json, html }

    @Argument(help: "Two or more baselines or scan reports, oldest first.")
    var files: [String] = []

    @Option(help: "text, markdown, json or html.")
    var format: Format = .text

    @Option(
        name: .customLong("fail-on-growth-per-step"),
        help: ArgumentHelp(
            "Exit 1 when the backup footprint grew by more than SIZE in one step (\(ByteSize.accepted)).",
            valueName: "SIZE"),
        transform: { try SizeArgument.parse($0) })
    var failOnGrowthPerStep: SizeArgument?

    @Flag(
        name: .customLong("allow-incomplete"), help: "Exit 0 even when a scan was incomplete; the report still says so."
    )
    var allowIncomplete = false

    @Flag(
        name: .customLong("allow-different-apps"),
        help: "Read files that name different bundle identifiers (a note says so).")
    var allowDifferentApps = false

    func run() throws {
        var trend = try Trend.load(files, allowDifferentApps: allowDifferentApps)
        trend.stepLimit = failOnGrowthPerStep?.bytes
        emit(TrendReport.render(trend, as: format.rawValue) ?? "")
        if trend.failed { throw ExitCode(1) }
        if trend.incomplete && !allowIncomplete { throw ExitCode(1) }
    }
}
