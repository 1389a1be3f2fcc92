/// What a team writes down in `.sandbox-audit.yml`: rule settings, ignored paths, path
/// policies and budgets. Documented in docs/policy-file.md.
public struct Policy: Sendable {
    /// The file it came from; nil for the built-in defaults.
    public var source: String?
    public var failOn: Severity?
    /// Thresholds for the rules (defaults merged).
    public var settings = RuleSettings()
    /// Rules switched off.
    public var disabledRules: Set<String> = []
    /// Severity overrides by rule id.
    public var severities: [String: Severity] = [:]
    /// Paths left out of the audit: no findings about them (they still count in totals).
    public var ignore: [Glob] = []
    public var paths: [PathPolicy] = []
    public var budgets: [Budget] = []
    public var growth: GrowthBudget?
    /// App Group identifiers whose containers belong to the app (`appGroups:`).
    public var appGroups: [String] = []

    public init() {}

    public func isIgnored(_ path: ContainerPath) -> Bool { ignore.contains { $0.covers(path) } }
}
