import ArgumentParser
import SandboxAudit

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan a data container and report backup size, update and restore survival, and findings.",
        discussion: "Read-only: the scan writes nothing into the container. PATH is a data container directory or an .xcappdata package.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "The data container or .xcappdata package.")
    var path: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding is at or above this severity: error, warning or note.")
    var failOn: Severity = .error

    @Option(name: .customLong("oversized-file-size"), help: "oversized-backed-up-file threshold (B, kB, MB, GB, KiB, MiB, GiB).")
    var oversizedFileSize: SizeArgument?

    @Option(name: .customLong("support-data-size"), help: "unexcluded-support-data threshold.")
    var supportDataSize: SizeArgument?

    @Option(name: .customLong("stale-tmp-age"), help: "stale-temporary-file age: 3d, 12h, 90m, 3600s.")
    var staleTmpAge: DurationArgument?

    func run() throws {
        var settings = RuleSettings()
        if let s = oversizedFileSize { settings.oversizedFileSize = s.bytes }
        if let s = supportDataSize { settings.supportDataSize = s.bytes }
        if let s = staleTmpAge { settings.staleTemporaryAge = s.seconds }
        let result = try Audit.run(path, context: RuleContext(settings: settings))
        switch format {
        case .text: emit(TextReport(useColor: colorWanted(), failOn: failOn).render(result))
        case .json: emit(JSONReport.scan(result, failOn: failOn).pretty + "\n")
        }
        if result.fails(at: failOn) { throw ExitCode(1) }
    }
}
