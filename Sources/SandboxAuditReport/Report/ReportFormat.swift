import Foundation
import SandboxAuditCore
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
    let printer: @Sendable (AuditResult, Options) -> String
    /// For a JSON format: the document, which `write` streams.
    let document: (@Sendable (AuditResult, Options) -> JSON)?

    init(
        _ name: String, help: String? = nil, documentation: String, incompleteMarker: String,
        document: (@Sendable (AuditResult, Options) -> JSON)? = nil,
        printer: @escaping @Sendable (AuditResult, Options) -> String
    ) {
        self.rawValue = name
        self.help = help
        self.documentation = documentation
        self.incompleteMarker = incompleteMarker
        self.printer = printer
        self.document = document
    }

    /// A JSON format: printed as `document`'s indented form and a newline.
    init(
        _ name: String, help: String? = nil, documentation: String, incompleteMarker: String,
        document: @escaping @Sendable (AuditResult, Options) -> JSON
    ) {
        self.init(
            name, help: help, documentation: documentation, incompleteMarker: incompleteMarker, document: document
        ) { document($0, $1).prettyLine }
    }

    /// Every format, in the order help and errors list them.
    public static let allCases: [ReportFormat] = [
        .text, .json, .sarif, .junit, .github, .markdown, .html, .ncdu, .xcode, .codeclimate, .appReview, .metrics,
    ]

    public static let text = ReportFormat("text", documentation: "text-text", incompleteMarker: "INCOMPLETE SCAN:") {
        TextReport(useColor: $1.color, failOn: $1.failOn, allowIncomplete: $1.allowIncomplete).render($0)
    }
    public static let json = ReportFormat(
        "json", documentation: "json-json", incompleteMarker: "\"complete\": false",
        document: {
            JSONReport.scan($0, failOn: $1.failOn, allowIncomplete: $1.allowIncomplete)
        })
    public static let sarif = ReportFormat(
        "sarif", documentation: "sarif-210-sarif", incompleteMarker: "\"executionSuccessful\": false",
        document: { r, _ in
            SARIFReport.render(r)
        })
    public static let junit = ReportFormat(
        "junit", documentation: "junit-xml-junit", incompleteMarker: "INCOMPLETE SCAN:"
    ) {
        JUnitReport.render($0, failOn: $1.failOn, warnings: $1.junitWarnings, allowIncomplete: $1.allowIncomplete)
    }
    public static let github = ReportFormat(
        "github", help: "workflow annotations", documentation: "github-actions-github",
        incompleteMarker: "title=incomplete scan (sandbox-audit)::"
    ) {
        GitHubReport.render($0, pathPrefix: $1.pathPrefix, allowIncomplete: $1.allowIncomplete)
    }
    public static let markdown = ReportFormat(
        "markdown", documentation: "markdown-markdown", incompleteMarker: "INCOMPLETE SCAN:"
    ) {
        MarkdownReport.render($0, failOn: $1.failOn, allowIncomplete: $1.allowIncomplete)
    }
    public static let html = ReportFormat("html", documentation: "html-html", incompleteMarker: "INCOMPLETE SCAN:") {
        HTMLReport.render($0, failOn: $1.failOn, allowIncomplete: $1.allowIncomplete, date: $1.date)
    }
    public static let ncdu = ReportFormat(
        "ncdu", help: "an export for ncdu -f and gdu -f", documentation: "ncdu-export-ncdu",
        incompleteMarker: "\"read_error\":true"
    ) { r, _ in
        NcduReport.render(r)
    }
    package static let appReview = ReportFormat(
        "app-review", help: "the backup figure in App Review's words", documentation: "app-review-app-review",
        incompleteMarker: "INCOMPLETE SCAN:"
    ) { r, _ in
        AppReviewReport.render(r)
    }
    package static let metrics = ReportFormat(
        "metrics", help: "MetricKit's terms, flat JSON", documentation: "metrickit-metrics-metrics",
        incompleteMarker: "\"complete\": false", document: { r, _ in MetricsReport.document(r) }
    ) { r, _ in
        MetricsReport.document(r).prettyLine
    }

    // Registered by name (`ReportFormat(rawValue: "xcode")`): the stage's public surface is kept small.
    static let xcode = ReportFormat(
        "xcode", help: "issue lines for Xcode", documentation: "xcode-xcode",
        incompleteMarker: XcodeReport.incompleteTitle
    ) { r, o in
        XcodeReport.render(r, allowIncomplete: o.allowIncomplete)
    }
    static let codeclimate = ReportFormat(
        "codeclimate", help: "GitLab Code Quality", documentation: "gitlab-code-quality-codeclimate",
        incompleteMarker: "\"check_name\": \"\(CodeClimateReport.incompleteCheck)\"",
        document: { r, o in
            CodeClimateReport.render(r, allowIncomplete: o.allowIncomplete)
        })

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

    public func render(_ result: AuditResult, _ options: Options) -> String { printer(result, options) }

    /// `render`'s bytes handed to `sink` as they are made: a JSON format in parts of about a
    /// megabyte (a large container's report is never held whole), the others at once.
    /// `sink` gets the text's own bytes when `text` is given (not copied), else each part.
    public func write(
        _ result: AuditResult, _ options: Options, to sink: ([UInt8]) -> Void, text: ((String) -> Void)? = nil
    ) {
        if let document {
            document(result, options).writePrettyLine(to: sink)
        } else if let text {
            text(render(result, options))
        } else {
            sink(Array(render(result, options).utf8))
        }
    }
}
