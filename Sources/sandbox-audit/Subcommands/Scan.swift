import ArgumentParser
import Foundation
import SandboxAudit

extension ReportFormat: ExpressibleByArgument {}
extension JUnitWarnings: ExpressibleByArgument {}

/// `--output FORMAT=PATH`; PATH `-` is standard output.
struct OutputArgument {
    let format: ReportFormat
    let path: String
    var toStandardOutput: Bool { path == "-" }

    static func parse(_ argument: String) throws -> OutputArgument {
        let formats = ReportFormat.allCases.map(\.rawValue).joined(separator: ", ")
        guard let eq = argument.firstIndex(of: "=") else {
            throw ValidationError("write FORMAT=PATH, FORMAT one of \(formats), PATH a file or - for standard output")
        }
        let name = String(argument[..<eq])
        guard let f = ReportFormat(rawValue: name) else {
            throw ValidationError("'\(name)' is not a format; formats: \(formats)")
        }
        let p = String(argument[argument.index(after: eq)...])
        guard !p.isEmpty else { throw ValidationError("no PATH after '='; give a file, or - for standard output") }
        return OutputArgument(format: f, path: p)
    }

    /// The file the path names, for telling two spellings of one file apart.
    var normalizedPath: String { URL(fileURLWithPath: path).standardizedFileURL.path }
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

/// Appends to the GitHub job summary file (GitHub creates it; appending is its documented use),
/// creating it when it is missing. The summary is a courtesy: when it cannot be written, one
/// warning goes to stderr and the scan's verdict and exit code stay what they are.
func appendJobSummary(_ markdown: String, to path: String) {
    do {
        try AppendedFile.append(Array(markdown.utf8), to: path)
    } catch {
        FileHandle.standardError.write(
            Data("sandbox-audit: warning: cannot write the job summary \(path): \(error.reason)\n".utf8))
    }
}

/// The rules' options (`RuleOption`): each flag's name and help come from its declaration,
/// which `RuleOptionTests` holds one to one with these. Last among scan's options.
struct RuleOptionFlags: ParsableArguments {
    static let oversizedFileSize = RuleOption.of(\.oversizedFileSize)
    static let supportDataSize = RuleOption.of(\.supportDataSize)
    static let staleTemporaryAge = RuleOption.of(\.staleTemporaryAge)
    static let userDefaultsWarningSize = RuleOption.of(\.userDefaultsWarningSize)
    static let userDefaultsErrorSize = RuleOption.of(\.userDefaultsErrorSize)
    static let manyFilesThreshold = RuleOption.of(\.manyFilesThreshold)

    @Option(
        name: .customLong(Self.oversizedFileSize.flag), help: ArgumentHelp(Self.oversizedFileSize),
        transform: { try SizeArgument.parse($0) })
    var oversizedFileSize: SizeArgument?

    @Option(
        name: .customLong(Self.supportDataSize.flag), help: ArgumentHelp(Self.supportDataSize),
        transform: { try SizeArgument.parse($0) })
    var supportDataSize: SizeArgument?

    @Option(
        name: .customLong(Self.staleTemporaryAge.flag), help: ArgumentHelp(Self.staleTemporaryAge),
        transform: { try AgeArgument.parse($0) })
    var staleTemporaryAge: AgeArgument?

    @Option(
        name: .customLong(Self.userDefaultsWarningSize.flag), help: ArgumentHelp(Self.userDefaultsWarningSize),
        transform: { try SizeArgument.parse($0) })
    var userDefaultsWarningSize: SizeArgument?

    @Option(
        name: .customLong(Self.userDefaultsErrorSize.flag), help: ArgumentHelp(Self.userDefaultsErrorSize),
        transform: { try SizeArgument.parse($0) })
    var userDefaultsErrorSize: SizeArgument?

    @Option(
        name: .customLong(Self.manyFilesThreshold.flag), help: ArgumentHelp(Self.manyFilesThreshold),
        transform: { try CountArgument.parse($0) })
    var manyFilesThreshold: CountArgument?

    /// Sets what the flags give over `settings` (the policy's), and refuses a large-user-defaults
    /// warning size above its error size, saying where each came from.
    func apply(to settings: inout RuleSettings) throws {
        let fromPolicy = settings
        if let s = oversizedFileSize { settings.oversizedFileSize = s.bytes }
        if let s = supportDataSize { settings.supportDataSize = s.bytes }
        if let s = staleTemporaryAge { settings.staleTemporaryAge = s.seconds }
        if let s = userDefaultsWarningSize { settings.userDefaultsWarningSize = s.bytes }
        if let s = userDefaultsErrorSize { settings.userDefaultsErrorSize = s.bytes }
        if let n = manyFilesThreshold { settings.manyFilesThreshold = n.count }
        guard settings.userDefaultsSizesConflict else { return }
        func source(_ flag: SizeArgument?, _ option: RuleOption, _ setting: KeyPath<RuleSettings, Int64>) -> String {
            flag != nil
                ? "--\(option.flag)"
                : fromPolicy[keyPath: setting] != RuleSettings()[keyPath: setting] ? "the policy file" : "the default"
        }
        let warning = source(userDefaultsWarningSize, Self.userDefaultsWarningSize, \.userDefaultsWarningSize)
        let error = source(userDefaultsErrorSize, Self.userDefaultsErrorSize, \.userDefaultsErrorSize)
        throw InputError(
            "the large-user-defaults warning size \(ByteSize.format(settings.userDefaultsWarningSize)) (\(warning)) "
                + "is above the error size \(ByteSize.format(settings.userDefaultsErrorSize)) (\(error)): the "
                + "warning size must be at most the error size"
        )
    }
}

extension ArgumentHelp {
    /// A rule option's help, with its value named after its flag.
    init(_ option: RuleOption) { self.init(option.help, valueName: option.flag) }
}

struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Scan a data container and report backup size, update and restore survival, budgets and findings.",
        discussion: """
            \(inputKindsHelp)

            Read-only: the scan writes nothing into the container. The policy file is --config, or the \
            first .sandbox-audit.yml found from the working directory up to the repository root; options \
            given here win over it. Only --write-baseline (which refuses to overwrite without --force) and \
            --output write files; each one's folder must exist and be writable, which is checked before the \
            container is read. --output FORMAT=- and --write-baseline - write to standard output instead of \
            the console format: at most one of them may go there, and not with --format. While the container \
            is read, a progress line is shown on standard error after one second, only when it is a terminal. \
            Exit 1 when a finding is at or above --fail-on, or when part of the container could not be read \
            (an incomplete scan; --allow-incomplete accepts it); exit 2 for usage and input errors. With \
            --write-baseline the exit code says whether the baseline was written: 0 when it was, whatever \
            the findings; 2 when it could not be written or the input was bad.

            Examples:
              sandbox-audit scan MyApp.xcappdata
              sandbox-audit scan container.tgz --fail-on warning --output sarif=audit.sarif
              sandbox-audit scan DEVICE_FOLDER --app com.example.app --output json=-
              sandbox-audit scan --simulator booted --app com.example.app --app-group group.com.example
              sandbox-audit scan BACKUP_FOLDER --app com.example.app --format json
              sandbox-audit scan MyApp.xcappdata --against-backup ~/Library/Application\\ Support/MobileSync/Backup/UDID
            """)

    @Argument(help: ArgumentHelp(inputArgumentHelp))
    var path: String?

    @OptionGroup var containers: ContainerOptions

    @Option(help: ArgumentHelp("Console format: \(ReportFormat.helpList) (default: text)."))
    var format: ReportFormat?

    @Option(
        name: .customLong("output"),
        help: ArgumentHelp(
            "WRITES: also write FORMAT to PATH, from the same scan (repeatable); PATH - is standard output, in place "
                + "of the console format. Each file is written to a temporary file renamed into place.",
            valueName: "FORMAT=PATH"), transform: { try OutputArgument.parse($0) })
    var outputs: [OutputArgument] = []

    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            "Exit 1 when a finding is at or above this severity: error, warning or note (default: the policy's "
                + "failOn, else error).")
    )
    var failOn: Severity?

    @Option(
        name: .customLong("junit-warnings"),
        help: ArgumentHelp(
            "JUnit: findings below --fail-on become skipped cases (default), failure, or pass (passing cases with "
                + "the finding as output).")
    )
    var junitWarnings: JUnitWarnings = .skipped

    @Option(
        help:
            "Colour the console report: auto (only on a terminal, not with NO_COLOR set or TERM=dumb), always or never."
    )
    var color: ColorMode = .auto

    @Option(help: "The policy file (default: .sandbox-audit.yml found from the working directory upward).")
    var config: String?

    @Option(
        help: ArgumentHelp(
            "Compare with this baseline: findings in it are not reported again; deltas, churn and growth are "
                + "measured (default: none).")
    )
    var baseline: String?

    @Option(
        name: .customLong("against-backup"),
        help: ArgumentHelp(
            "Hold the prediction against a real device backup (a Finder or idevicebackup2 folder holding "
                + "Manifest.db): for every domain scanned, the paths predicted backed up and the paths the backup "
                + "holds are compared, and each mismatch is reported (backup-prediction-mismatch) with why it "
                + "was predicted. The backup side is the app's domain (--app when the container does not "
                + "name its bundle) and the same --app-group domains.",
            valueName: "BACKUP_DIR"))
    var againstBackup: String?

    @Option(help: sourcesHelp)
    var sources: String?

    @Option(
        name: .customLong("write-baseline"),
        help: ArgumentHelp(
            "WRITES: record this scan as a baseline file for later comparisons (- for standard output); the exit "
                + "code is then 0 when it was written, whatever the findings, and 2 when it could not be.")
    )
    var writeBaseline: String?

    @Flag(help: "Let --write-baseline replace an existing file.")
    var force = false

    @Flag(
        name: .customLong("allow-incomplete"),
        help: ArgumentHelp(
            "Do not fail (exit 1) because part of the container could not be read; the reports still say the scan is "
                + "incomplete and list what was missed.")
    )
    var allowIncomplete = false

    @OptionGroup var ruleOptions: RuleOptionFlags

    /// `--write-baseline -`: the baseline goes to standard output, in place of the console format.
    var baselineToStandardOutput: Bool { writeBaseline == "-" }

    func validate() throws {
        if force && writeBaseline == nil {
            throw ValidationError("--force only applies to --write-baseline FILE, which is not given")
        }
        let toStdout =
            outputs.filter(\.toStandardOutput).map { "--output \($0.format.rawValue)=-" }
            + (baselineToStandardOutput ? ["--write-baseline -"] : [])
        if toStdout.count > 1 {
            throw ValidationError(
                "only one output can go to standard output (-); got \(toStdout.joined(separator: " and "))")
        }
        if let format, let out = toStdout.first {
            throw ValidationError(
                "\(out) writes to standard output, where --format \(format.rawValue) goes: give one of them")
        }
        var seen: [String: String] = [:]
        for (file, option) in files {
            if let earlier = seen[file.normalizedPath] {
                throw ValidationError("\(earlier) and \(option) write the same file: give each its own path")
            }
            seen[file.normalizedPath] = option
        }
    }

    /// Every file the scan writes, with the option that names it (standard output left out).
    var files: [(OutputArgument, String)] {
        outputs.filter { !$0.toStandardOutput }.map { ($0, "--output \($0.format.rawValue)=\($0.path)") }
            + (writeBaseline.flatMap {
                $0 == "-" ? nil : [(OutputArgument(format: .json, path: $0), "--write-baseline \($0)")]
            } ?? [])
    }

    func run() throws {
        var policy = try PolicyFile.resolve(config: config)
        try ruleOptions.apply(to: &policy.settings)
        let failLevel = failOn ?? policy.failOn ?? .error
        let previous = try baseline.map(Baseline.load)
        // Before the container is read: a scan of many minutes must not end in "no such folder".
        for (file, option) in files {
            try OutputDestination.check(
                file.path, option: option, replaces: writeBaseline != file.path || force, force: "--force")
        }

        let result = try ProgressLine.during {
            try Audit.run(
                try containers.input(path), selection: try containers.selection(policy), policy: policy,
                baseline: previous, againstBackup: againstBackup, sources: sources ?? policy.sourcesFolder)
        }
        keptUntilExit = result
        let baselineText = writeBaseline.map { _ in Baseline(result).json.prettyLine }
        if let target = writeBaseline, let baselineText, target != "-" {
            try AtomicFile.write(Array(baselineText.utf8), to: target, overwrite: force)
        }
        let prefix: @Sendable (String) -> String = { githubPathPrefix($0) }
        for output in outputs where !output.toStandardOutput {
            let text = output.format.render(
                result,
                .init(
                    failOn: failLevel, color: false, pathPrefix: prefix, junitWarnings: junitWarnings,
                    allowIncomplete: allowIncomplete))
            try AtomicFile.write(Array(text.utf8), to: output.path)
        }
        // The console report: --format, or the one --output (or the baseline) sent to standard output.
        let console = outputs.first(where: \.toStandardOutput)?.format ?? format ?? .text
        if baselineToStandardOutput, let baselineText {
            emit(baselineText)
        } else {
            console.write(
                result,
                .init(
                    failOn: failLevel, color: colorWanted(color), pathPrefix: prefix, junitWarnings: junitWarnings,
                    allowIncomplete: allowIncomplete), to: emit, text: emit)
        }
        if console == .github, let summary = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"],
            !summary.isEmpty
        {
            appendJobSummary(
                ReportFormat.markdown.render(
                    result, ReportFormat.Options(failOn: failLevel, allowIncomplete: allowIncomplete)),
                to: summary)
        }
        // Recording a baseline is the run's purpose then: it succeeded (exit 0) once written, so
        // that a CI step need not hide every failure (exit 2 too) behind `|| true`. The report's
        // verdict may still read FAILED: say what was done, and why the exit is 0.
        if let target = writeBaseline {
            let files = groupedDigits(Int64(result.inventories.reduce(0) { $0 + $1.entries.count }))
            let verdict =
                result.fails(at: failLevel, allowIncomplete: allowIncomplete)
                ? "; exit 0 whatever the verdict above: --write-baseline records the scan" : ""
            Terminal.write(
                "sandbox-audit: note: baseline written to "
                    + "\(target == "-" ? "standard output" : TerminalText.escaped(target)) (\(files) "
                    + "entries)\(verdict)\n",
                to: .error)
        }
        if writeBaseline == nil, result.fails(at: failLevel, allowIncomplete: allowIncomplete) { throw ExitCode(1) }
    }
}
