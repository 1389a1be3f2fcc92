import ArgumentParser
import Foundation
import SandboxAudit

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan a data container and report backup size, update and restore survival, budgets and findings.",
        discussion: """
            Read-only: the scan writes nothing into the container. PATH is a data container directory or \
            an .xcappdata package. The policy file is --config, or the first .sandbox-audit.yml found from \
            the working directory up to the repository root; options given here win over it. \
            --write-baseline is the only thing that writes, and it refuses to overwrite without --force.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "The data container or .xcappdata package.")
    var path: String

    @Option(help: "Output format: text or json.")
    var format: Format = .text

    @Option(name: .customLong("fail-on"), help: "Exit 1 when a finding is at or above this severity: error, warning or note (default: the policy's failOn, else error).")
    var failOn: Severity?

    @Option(help: "The policy file (default: .sandbox-audit.yml found from the working directory upward).")
    var config: String?

    @Option(help: "Compare with this baseline: findings in it are not reported again; deltas, churn and growth are measured.")
    var baseline: String?

    @Option(name: .customLong("write-baseline"), help: "WRITES: record this scan as a baseline file for later comparisons.")
    var writeBaseline: String?

    @Flag(help: "Let --write-baseline replace an existing file.")
    var force = false

    @Option(name: .customLong("oversized-file-size"), help: "oversized-backed-up-file threshold (B, kB, MB, GB, KiB, MiB, GiB).")
    var oversizedFileSize: SizeArgument?

    @Option(name: .customLong("support-data-size"), help: "unexcluded-support-data threshold.")
    var supportDataSize: SizeArgument?

    @Option(name: .customLong("stale-tmp-age"), help: "stale-temporary-file age: 3d, 12h, 90m, 3600s.")
    var staleTmpAge: AgeArgument?

    @Option(name: .customLong("user-defaults-warning-size"), help: "large-user-defaults warning threshold.")
    var userDefaultsWarningSize: SizeArgument?

    @Option(name: .customLong("user-defaults-error-size"), help: "large-user-defaults error threshold.")
    var userDefaultsErrorSize: SizeArgument?

    @Option(name: .customLong("many-files"), help: "many-backed-up-files threshold (files in one backed-up folder).")
    var manyFiles: Int?

    func run() throws {
        var policy = try PolicyFile.resolve(config: config)
        if let s = oversizedFileSize { policy.settings.oversizedFileSize = s.bytes }
        if let s = supportDataSize { policy.settings.supportDataSize = s.bytes }
        if let s = staleTmpAge { policy.settings.staleTemporaryAge = s.seconds }
        if let s = userDefaultsWarningSize { policy.settings.userDefaultsWarningSize = s.bytes }
        if let s = userDefaultsErrorSize { policy.settings.userDefaultsErrorSize = s.bytes }
        if let n = manyFiles { policy.settings.manyFilesThreshold = n }
        let failLevel = failOn ?? policy.failOn ?? .error
        let previous = try baseline.map(Baseline.load)

        let result = try Audit.run(path, policy: policy, baseline: previous)
        if let target = writeBaseline {
            try AtomicFile.write(Array((Baseline(result).json.pretty + "\n").utf8), to: target, overwrite: force)
        }
        switch format {
        case .text: emit(TextReport(useColor: colorWanted(), failOn: failLevel).render(result))
        case .json: emit(JSONReport.scan(result, failOn: failLevel).pretty + "\n")
        }
        if result.fails(at: failLevel) { throw ExitCode(1) }
    }
}
