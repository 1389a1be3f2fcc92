import SandboxAuditCore
import SandboxAuditSystem

/// What a team writes down in `.sandbox-audit.yml`: rule settings, ignored paths, path
/// policies and budgets. Documented in docs/policy-file.md.
public struct Policy: Sendable {
    /// The file it came from; nil for the built-in defaults.
    package var source: String?
    public var failOn: Severity?
    /// Thresholds for the rules (defaults merged).
    public var settings = RuleSettings()
    /// Rules switched off.
    package var disabledRules: Set<String> = []
    /// Severity overrides by rule id.
    package var severities: [String: Severity] = [:]
    /// Paths left out of the audit: no findings about them (they still count in totals).
    var ignore: [Glob] = []
    package var paths: [PathPolicy] = []
    var budgets: [Budget] = []
    var growth: GrowthBudget?
    /// The weakest data protection class allowed, by glob (`protection:`).
    var protection: [ProtectionRequirement] = []
    /// Who owns which paths (`owners:`), in file order: the last line covering a path wins.
    package var owners: [OwnerRule] = []
    /// App Group identifiers whose containers belong to the app (`appGroups:`).
    public var appGroups: [String] = []
    /// Findings accepted for a while, with a reason (`suppress:`), in file order.
    package var suppressions: [Suppression] = []
    /// The app's sources (`sources:`, as written: relative to the policy file's folder;
    /// `--sources` wins).
    public var sources: String?

    /// `sources:` as a path from the working folder: relative to the policy file's folder, as
    /// the file is read from anywhere. (Its folder cut at the last slash: NSString's
    /// deletingLastPathComponent traps on some names in swift-corelibs-foundation.)
    public var sourcesFolder: String? {
        guard let sources, !sources.hasPrefix("/") else { return sources }
        return (source.flatMap { s in s.lastIndex(of: "/").map { String(s[...$0]) } } ?? "") + sources
    }

    public init() {}

    func isIgnored(_ path: ContainerPath) -> Bool { ignore.contains { $0.covers(path) } }

    /// The rule runs: it is not switched off.
    func enables(_ ruleId: String) -> Bool { !disabledRules.contains(ruleId) }
}
