import ArgumentParser
import Foundation
import SandboxAudit

extension ReportFormat: ExpressibleByArgument {}

/// `--output FORMAT=PATH`.
struct OutputArgument: ExpressibleByArgument {
    let format: ReportFormat
    let path: String
    init?(argument: String) {
        guard let eq = argument.firstIndex(of: "="), let f = ReportFormat(rawValue: String(argument[..<eq])) else { return nil }
        let p = String(argument[argument.index(after: eq)...])
        guard !p.isEmpty else { return nil }
        format = f
        path = p
    }
}

/// The scan's result, kept so that exit does not spend time freeing hundreds of thousands of
/// entries one by one: the process is ending anyway.
nonisolated(unsafe) var keptUntilExit: Any?

/// Annotations name files relative to the working directory (the repository) when the
/// container lies inside it.
func githubPathPrefix(_ dataRoot: String) -> String {
    let cwd = FileManager.default.currentDirectoryPath
    if dataRoot == cwd { return "." }
    return dataRoot.hasPrefix(cwd + "/") ? String(dataRoot.dropFirst(cwd.count + 1)) : dataRoot
}

/// Appends to the GitHub job summary file (GitHub creates it; appending is its documented use).
func appendJobSummary(_ markdown: String, to path: String) throws {
    guard let handle = FileHandle(forWritingAtPath: path) else { throw InputError("cannot write the job summary \(path)") }
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(markdown.utf8))
}

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan a data container and report backup size, update and restore survival, budgets and findings.",
        discussion: """
            Read-only: the scan writes nothing into the container. PATH is a data container directory or \
            an .xcappdata package. The policy file is --config, or the first .sandbox-audit.yml found from \
            the working directory up to the repository root; options given here win over it. \
            --write-baseline is the only thing that writes, and it refuses to overwrite without --force. \
            Exit 1 when a finding is at or above --fail-on, or when part of the container could not be read \
            (an incomplete scan; --allow-incomplete accepts it); exit 2 for usage and input errors.
            """)

    @Argument(help: "The data container, .xcappdata package, tar or zip archive of one, or with --app a Simulator device folder.")
    var path: String

    @OptionGroup var containers: ContainerOptions

    @Option(help: "Console format: text, json, sarif, junit, github (workflow annotations), markdown or html.")
    var format: ReportFormat = .text

    @Option(name: .customLong("output"), help: ArgumentHelp("WRITES: also write FORMAT to PATH, from the same scan (repeatable). Written to a temporary file renamed into place.", valueName: "FORMAT=PATH"))
    var outputs: [OutputArgument] = []

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

    @Flag(name: .customLong("allow-incomplete"), help: "Do not fail (exit 1) because part of the container could not be read; the reports still say the scan is incomplete and list what was missed.")
    var allowIncomplete = false

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

        let result = try Audit.run(path, selection: containers.selection(policy), policy: policy, baseline: previous)
        keptUntilExit = result
        if let target = writeBaseline {
            try AtomicFile.write(Array((Baseline(result).json.pretty + "\n").utf8), to: target, overwrite: force)
        }
        let prefix: @Sendable (String) -> String = githubPathPrefix
        for output in outputs {
            let text = output.format.render(result, .init(failOn: failLevel, color: false, pathPrefix: prefix, allowIncomplete: allowIncomplete))
            try AtomicFile.write(Array(text.utf8), to: output.path)
        }
        emit(format.render(result, .init(failOn: failLevel, color: colorWanted(), pathPrefix: prefix, allowIncomplete: allowIncomplete)))
        if format == .github, let summary = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty {
            try appendJobSummary(MarkdownReport.render(result, failOn: failLevel), to: summary)
        }
        if result.fails(at: failLevel, allowIncomplete: allowIncomplete) { throw ExitCode(1) }
    }
}
