/// Every output format of `scan`, rendered from one audit result.
public enum ReportFormat: String, CaseIterable, Sendable {
    case text, json, sarif, junit, github, markdown, html

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

        public init(failOn: Severity, color: Bool = false, pathPrefix: @escaping @Sendable (String) -> String = { _ in "." },
                    junitWarnings: JUnitWarnings = .skipped, allowIncomplete: Bool = false) {
            self.failOn = failOn
            self.color = color
            self.pathPrefix = pathPrefix
            self.junitWarnings = junitWarnings
            self.allowIncomplete = allowIncomplete
        }
    }

    public func render(_ result: AuditResult, _ options: Options) -> String {
        switch self {
        case .text: return TextReport(useColor: options.color, failOn: options.failOn, allowIncomplete: options.allowIncomplete).render(result)
        case .json: return JSONReport.scan(result, failOn: options.failOn, allowIncomplete: options.allowIncomplete).pretty + "\n"
        case .sarif: return SARIFReport.render(result).pretty + "\n"
        case .junit: return JUnitReport.render(result, failOn: options.failOn, warnings: options.junitWarnings, allowIncomplete: options.allowIncomplete)
        case .github: return GitHubReport.render(result, pathPrefix: options.pathPrefix, allowIncomplete: options.allowIncomplete)
        case .markdown: return MarkdownReport.render(result, failOn: options.failOn, allowIncomplete: options.allowIncomplete)
        case .html: return HTMLReport.render(result, failOn: options.failOn, allowIncomplete: options.allowIncomplete)
        }
    }
}
