import Foundation
import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// One output format of `scan`, rendered from one audit result. The formats are declared once,
/// in `allCases` below: the `scan` help, `--format` and `--output` parsing, their error messages
/// and the tests all derive from that list, and `docs/report-formats.md` is checked against it.
public struct ReportFormat: RawRepresentable, CaseIterable, Hashable, Sendable {
    /// The name `--format` and `--output NAME=PATH` take.
    public let rawValue: String
    /// What `scan --help` says of it after its name ("workflow annotations"), if anything.
    public let help: String?
    /// Its section of `docs/report-formats.md`, as a Markdown heading anchor.
    public let documentation: String
    /// Text every report in this format carries when the scan is incomplete, and only then:
    /// how it shows that part of the container was not read.
    public let incompleteMarker: String
    /// The sections of the report model it does not print, each with why (`ReportSection`):
    /// every other section is in its output, which `ReportSectionTests` checks for every format.
    public let leavesOut: [ReportSection: String]
    let printer: @Sendable (ScanReport, Options) -> String
    /// For a JSON format: the document, which `write` streams.
    let document: (@Sendable (ScanReport, Options) -> JSON)?

    init(
        _ name: String, help: String? = nil, documentation: String, incompleteMarker: String,
        leavesOut: [ReportSection: String], document: (@Sendable (ScanReport, Options) -> JSON)? = nil,
        printer: @escaping @Sendable (ScanReport, Options) -> String
    ) {
        self.rawValue = name
        self.help = help
        self.documentation = documentation
        self.incompleteMarker = incompleteMarker
        self.leavesOut = leavesOut
        self.printer = printer
        self.document = document
    }

    /// A JSON format: printed as `document`'s indented form and a newline.
    init(
        _ name: String, help: String? = nil, documentation: String, incompleteMarker: String,
        leavesOut: [ReportSection: String], document: @escaping @Sendable (ScanReport, Options) -> JSON
    ) {
        self.init(
            name, help: help, documentation: documentation, incompleteMarker: incompleteMarker, leavesOut: leavesOut,
            document: document
        ) { document($0, $1).prettyLine }
    }

    /// Every format, in the order help and errors list them.
    public static let allCases: [ReportFormat] = [
        .text, .json, .sarif, .junit, .github, .markdown, .html, .ncdu, .xcode, .codeclimate, .appReview, .metrics,
    ]

    /// What the formats made for a tool's own view (annotations, issue lines) leave out: the
    /// figures and tables, which the tool has no place for.
    static let figuresElsewhere = "the figures and tables are in the text, JSON, Markdown and HTML reports"

    /// What a format that annotates a tool's view (GitHub, Xcode, GitLab) leaves out: the
    /// figures, and `own`'s sections with their reasons.
    static func toolView(_ own: [ReportSection: String]) -> [ReportSection: String] {
        let figures: [ReportSection] = [.census, .headline, .protection, .owners, .growth, .backupComparison]
        return own.merging(figures.map { ($0, figuresElsewhere) }) { mine, _ in mine }
    }

    public static let text = ReportFormat(
        "text", documentation: "text-text", incompleteMarker: "INCOMPLETE SCAN:", leavesOut: [:]
    ) { r, o in
        TextReport(useColor: o.color).render(r)
    }
    public static let json = ReportFormat(
        "json", documentation: "json-json", incompleteMarker: "\"complete\": false", leavesOut: [:],
        document: { r, _ in JSONReport.scan(r) })
    public static let sarif = ReportFormat(
        "sarif", documentation: "sarif-210-sarif", incompleteMarker: "\"executionSuccessful\": false",
        leavesOut: [
            .census: figuresElsewhere, .owners: "each result names its owner; the totals are in the other reports",
            .budgets: "an exceeded budget is a budget-exceeded result", .growth: figuresElsewhere,
            .backupComparison: figuresElsewhere,
            .verdict: "code scanning decides from the results' levels",
        ],
        document: { r, _ in SARIFReport.render(r) })
    public static let junit = ReportFormat(
        "junit", documentation: "junit-xml-junit", incompleteMarker: "INCOMPLETE SCAN:",
        leavesOut: [
            .census: figuresElsewhere, .headline: figuresElsewhere, .owners: figuresElsewhere,
            .growth: figuresElsewhere, .backupComparison: figuresElsewhere,
            .suppressions: "a suppressed finding is no test case", .verdict: "the failed test cases are the verdict",
        ]
    ) { r, o in
        JUnitReport.render(r, warnings: o.junitWarnings)
    }
    public static let github = ReportFormat(
        "github", help: "workflow annotations", documentation: "github-actions-github",
        incompleteMarker: "title=incomplete scan (sandbox-audit)::",
        leavesOut: toolView([
            .scan: "the annotations are on the step that ran the scan",
            .budgets: "an exceeded budget is a budget-exceeded annotation",
            .suppressions: "a suppressed finding is not annotated", .verdict: "the step's exit status is the verdict",
        ])
    ) { r, o in
        GitHubReport.render(r, pathPrefix: o.pathPrefix)
    }
    public static let markdown = ReportFormat(
        "markdown", documentation: "markdown-markdown", incompleteMarker: "INCOMPLETE SCAN:", leavesOut: [:]
    ) { r, _ in
        MarkdownReport.render(r)
    }
    public static let html = ReportFormat(
        "html", documentation: "html-html", incompleteMarker: "INCOMPLETE SCAN:", leavesOut: [:]
    ) { r, o in
        HTMLReport.render(r, date: o.date)
    }
    public static let ncdu = ReportFormat(
        "ncdu", help: "an export for ncdu -f and gdu -f", documentation: "ncdu-export-ncdu",
        incompleteMarker: "\"read_error\":true",
        leavesOut: Dictionary(
            uniqueKeysWithValues: ReportSection.allCases.filter { ![.census, .scan, .incomplete].contains($0) }.map {
                ($0, "ncdu's export holds the file tree and its sizes alone")
            })
    ) { r, _ in
        NcduReport.render(r)
    }
    package static let appReview = ReportFormat(
        "app-review", help: "the backup figure in App Review's words", documentation: "app-review-app-review",
        incompleteMarker: "INCOMPLETE SCAN:",
        leavesOut: [
            .census: "it answers App Review's one question: what is backed up, and by whom",
            .owners: "it lists the owners of backed-up bytes alone",
            .protection: "App Review asks about backup, not data protection", .budgets: figuresElsewhere,
            .growth: figuresElsewhere, .backupComparison: figuresElsewhere, .findings: figuresElsewhere,
            .suppressions: figuresElsewhere, .verdict: "it is a reply to App Review, not a gate",
        ]
    ) { r, _ in
        AppReviewReport.render(r)
    }
    package static let metrics = ReportFormat(
        "metrics", help: "MetricKit's terms, flat JSON", documentation: "metrickit-metrics-metrics",
        incompleteMarker: "\"complete\": false",
        leavesOut: Dictionary(
            uniqueKeysWithValues: ReportSection.allCases.filter { ![.headline, .incomplete].contains($0) }.map {
                ($0, "it holds MetricKit's storage figures alone, to chart beside the app's own")
            }),
        document: { r, _ in MetricsReport.document(r) })

    // Registered by name (`ReportFormat(rawValue: "xcode")`): the stage's public surface is kept small.
    static let xcode = ReportFormat(
        "xcode", help: "issue lines for Xcode", documentation: "xcode-xcode",
        incompleteMarker: XcodeReport.incompleteTitle,
        leavesOut: toolView([
            .scan: "Xcode shows the issues of the build that ran the scan",
            .budgets: "an exceeded budget is a budget-exceeded issue",
            .suppressions: "a suppressed finding is no issue",
            .notChecked: XcodeReport.notCheckedLeftOut, .verdict: "the build's result is the verdict",
        ])
    ) { r, _ in
        XcodeReport.render(r)
    }
    static let codeclimate = ReportFormat(
        "codeclimate", help: "GitLab Code Quality", documentation: "gitlab-code-quality-codeclimate",
        incompleteMarker: "\"check_name\": \"\(CodeClimateReport.incompleteCheck)\"",
        leavesOut: toolView([
            .scan: "GitLab shows the issues on the merge request",
            .budgets: "an exceeded budget is a budget-exceeded issue",
            .suppressions: "a suppressed finding is no issue",
            .notChecked: XcodeReport.notCheckedLeftOut, .verdict: "the job's exit status is the verdict",
        ]),
        document: { r, _ in CodeClimateReport.render(r) })

    public init?(rawValue: String) {
        guard let f = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = f
    }

    public static func == (a: ReportFormat, b: ReportFormat) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    /// The formats as help lists them: "text, json, …, github (workflow annotations), markdown or html".
    public static var helpList: String {
        let names = allCases.map { f in f.help.map { "\(f.rawValue) (\($0))" } ?? f.rawValue }
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    public struct Options: Sendable {
        var failOn: Severity
        var color: Bool
        /// For `github`: given a container's data root, what is prepended to its paths so
        /// annotations point at repository files.
        var pathPrefix: @Sendable (String) -> String
        /// For `junit`: how findings below `failOn` appear.
        var junitWarnings: JUnitWarnings
        /// `--allow-incomplete`: a scan that missed something does not fail by that alone.
        var allowIncomplete: Bool
        /// The date a report shows (seconds since 1970): `SOURCE_DATE_EPOCH`, else none, so
        /// that a report is the same bytes at every run over the same container.
        var date: Double?

        public init(
            failOn: Severity, color: Bool = false, pathPrefix: @escaping @Sendable (String) -> String = { _ in "." },
            junitWarnings: JUnitWarnings = .skipped, allowIncomplete: Bool = false
        ) {
            self.failOn = failOn
            self.color = color
            self.pathPrefix = pathPrefix
            self.junitWarnings = junitWarnings
            self.allowIncomplete = allowIncomplete
            self.date = ReportFormat.sourceDateEpoch()
        }
    }

    /// The report's date: `SOURCE_DATE_EPOCH` when set (`SourceDateEpoch`; the command line
    /// refuses a malformed value before anything runs), else none, so that two runs over the
    /// same container give the same bytes.
    static func sourceDateEpoch(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Double? {
        (try? SourceDateEpoch.seconds(environment)).flatMap { $0 }.map(Double.init)
    }

    /// An input or usage error as a GitHub Actions workflow command, for `--format github`:
    /// `::error title=sandbox-audit: input error::MESSAGE`, escaped as GitHub documents (GitHub
    /// Docs, "Workflow commands for GitHub Actions",
    /// https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions), so the
    /// checks UI shows why the step failed.
    package static func githubError(_ message: String) -> String {
        "::error title=\(GitHubReport.property("sandbox-audit: input error"))::\(GitHubReport.data(message))"
    }

    /// The report model of `result` under `options`: built once, whatever prints it.
    static func model(_ result: AuditResult, _ options: Options) -> ScanReport {
        ScanReport(result, failOn: options.failOn, allowIncomplete: options.allowIncomplete)
    }

    public func render(_ result: AuditResult, _ options: Options) -> String {
        printer(Self.model(result, options), options)
    }

    /// `render`'s bytes handed to `sink` as they are made: a JSON format in parts of about a
    /// megabyte (a large container's report is never held whole), the others at once.
    /// `sink` gets the text's own bytes when `text` is given (not copied), else each part.
    public func write(
        _ result: AuditResult, _ options: Options, to sink: ([UInt8]) -> Void, text: ((String) -> Void)? = nil
    ) {
        let report = Self.model(result, options)
        if let document {
            document(report, options).writePrettyLine(to: sink)
        } else if let text {
            text(printer(report, options))
        } else {
            sink(Array(printer(report, options).utf8))
        }
    }
}
