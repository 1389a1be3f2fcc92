import Foundation
import SandboxAuditCore
import SandboxAuditSystem

public enum Severity: String, Comparable, CaseIterable, Sendable, Codable {
    case note, warning, error

    public static func < (a: Severity, b: Severity) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Where a finding is: its container's place among the audit's inventories, and its entry's
/// place in that inventory (nil when the finding names no entry the inventory lists).
package struct FindingSite: Sendable, Hashable {
    package let container: Int
    package let entry: Int?
}

/// One thing a rule found.
public struct Finding: Sendable, Hashable {
    public let ruleId: String
    public let severity: Severity
    /// The entry concerned (nil for findings about the container as a whole).
    public let path: ContainerPath?
    public let message: String
    /// Bytes concerned, where a size is relevant.
    public let size: Int64?
    /// The backup domain of the container it is about (`AppDomain-ID` …), set by the audit.
    public let domain: String?
    /// How to fix this finding, when it can be said better than the rule's generic `fix`
    /// (the carrier the scan saw, a command that fixes it); reports print it instead.
    public let fix: String?
    /// Where the audit found it: the container (its place among the result's inventories) and
    /// the entry there (nil for a finding about no entry, or a path the inventory does not
    /// list), so that reports reach its entry and owner without looking for it again.
    package let site: FindingSite?

    init(
        ruleId: String, severity: Severity, path: ContainerPath?, message: String, size: Int64? = nil,
        domain: String? = nil, fix: String? = nil, site: FindingSite? = nil
    ) {
        self.ruleId = ruleId
        self.severity = severity
        self.path = path
        self.message = message
        self.size = size
        self.domain = domain
        self.fix = fix
        self.site = site
    }

    func with(severity: Severity) -> Finding {
        Finding(
            ruleId: ruleId, severity: severity, path: path, message: message, size: size, domain: domain, fix: fix,
            site: site)
    }

    /// The finding placed in container `container` (`inventory`, of backup domain `domain`),
    /// its entry found once.
    func located(domain: String, container: Int, in inventory: Inventory) -> Finding {
        let entry = path.flatMap { $0.isRoot ? nil : inventory.index(of: $0) }
        return Finding(
            ruleId: ruleId, severity: severity, path: path, message: message, size: size, domain: domain,
            fix: fix, site: FindingSite(container: container, entry: entry))
    }

    /// What reports print as the fix: this finding's own, else its rule's.
    public var fixText: String? { fix ?? RuleCatalogue.fixes[ruleId] }

    /// Byte order of the path, then rule id.
    static func ordered(_ a: Finding, _ b: Finding) -> Bool {
        let pa = a.path ?? .root
        let pb = b.path ?? .root
        if pa != pb { return pa < pb }
        if a.ruleId != b.ruleId { return a.ruleId < b.ruleId }
        return a.message < b.message
    }

    /// The indices of `findings` in report order: domain in the order of `domains` (a domain
    /// not among them first, as the first), then `ordered`. The same order as sorting the
    /// findings themselves, without copying a finding per comparison: the runs each rule gives in
    /// path order are merged as they come.
    static func reportOrder(_ findings: [Finding], domains: [String]) -> [Int] {
        reportOrder(count: findings.count, domains: domains, { findings[$0].domain }, { findings[$0].path }) { a, b in
            findings[a].ruleId != findings[b].ruleId
                ? findings[a].ruleId < findings[b].ruleId : findings[a].message < findings[b].message
        }
    }

    /// The same for `count` findings read through `domain` and `path`; `tie` orders two of one
    /// domain and path (by rule id, then message).
    static func reportOrder(
        count: Int, domains: [String], _ domain: (Int) -> String?, _ path: (Int) -> ContainerPath?,
        tie: (Int, Int) -> Bool
    ) -> [Int] {
        let domainOrder = Dictionary(domains.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var rank: [Int] = []
        var paths: [ContainerPath] = []
        rank.reserveCapacity(count)
        paths.reserveCapacity(count)
        // Findings come in runs of one domain: its rank looked up once per run.
        var lastDomain: String?
        var lastRank = 0
        for i in 0..<count {
            let d = domain(i) ?? ""
            if d != lastDomain {
                lastDomain = d
                lastRank = domainOrder[d] ?? 0
            }
            rank.append(lastRank)
            paths.append(path(i) ?? .root)
        }
        return (0..<count).sorted { a, b in
            if rank[a] != rank[b] { return rank[a] < rank[b] }
            // Two comparisons in place rather than one through slices, which retain the paths.
            if paths[a] < paths[b] { return true }
            if paths[b] < paths[a] { return false }
            return tie(a, b)
        }
    }
}

/// What a rule sees besides the inventory.
public struct RuleContext: Sendable {
    package var settings: RuleSettings
    /// When the scan started (seconds since 1970).
    package var scanTime: Double
    /// File contents, for the rules that look inside (nil when the inventory has no data
    /// root on disk to read from).
    var content: ContentReader?
    /// The policy file's path entries (the policy rules check them).
    var paths: [PathPolicy] = []
    /// Budgets measured for this scan (budget-exceeded reports the exceeded ones).
    var budgets: [BudgetResult] = []
    /// The last release's files (`--baseline`), for the rules that compare two observations.
    var baseline: BaselineFiles?
    /// The prediction held against a real backup (`--against-backup`).
    var backupComparison: BackupComparison?
    /// The policy's `protection:` requirements (protection-below-policy checks them).
    var protection: [ProtectionRequirement] = []
    /// The app's own Info.plist, when the scan has it (user-visible-documents reads it).
    var appInfo: AppInfo?
    /// Every entry's owner (the policy's `owners:`, then the catalogue); nil outside a scan.
    package var owners: OwnerMap?
    /// The day the scan runs (UTC), and the policy's `suppress:` entries whose `until` is
    /// before it (suppression-expired reports them).
    var today = CalendarDay(days: 0)
    var expiredSuppressions: [Suppression] = []
    /// The app's sources (`--sources`), for the rules that read the code and for the reports'
    /// source lines.
    package var sources: AppSources?

    init(
        settings: RuleSettings = RuleSettings(), scanTime: Double = Date().timeIntervalSince1970,
        content: ContentReader? = nil
    ) {
        self.settings = settings
        self.scanTime = scanTime
        self.content = content
    }
}

/// A rule's documentation: everything the catalogue, `rules` and the reports show.
public struct RuleDescription: Sendable {
    /// Stable: baselines, suppressions and SARIF results refer to it.
    public let id: String
    public let name: String
    public let summary: String
    /// Why it matters, citing public sources by title and URL (`References`).
    public let rationale: String
    /// How to fix what it finds, in one line.
    public let fix: String
    public let defaultSeverity: Severity
    /// Where the rule uses more than one severity, what decides ("error outside Documents …").
    package let severityNote: String?
    package let triggeringExamples: [RuleExample]
    package let nonTriggeringExamples: [RuleExample]
}

/// One thing a rule needs of the scan (`Rule.needs`): an `Observation` the input kind or the
/// run's options must give. Without it, a rule that `requires` it is not run on that container
/// and the report says "not checked: needs …"; a rule that only `reads` it runs, and the report
/// says what it left out.
public struct RuleNeed: Sendable, Hashable {
    package let observation: Observation
    /// Nil: the rule cannot run without it. Else what the rule leaves out without it.
    package let without: String?

    /// The rule cannot be checked without `observation`.
    package static func requires(_ observation: Observation) -> RuleNeed {
        RuleNeed(observation: observation, without: nil)
    }
    /// The rule runs without `observation`, and leaves out what `without` says.
    package static func reads(_ observation: Observation, without: String) -> RuleNeed {
        RuleNeed(observation: observation, without: without)
    }
}

public protocol Rule: Sendable {
    var description: RuleDescription { get }
    /// The containers the rule checks (all by default): a rule about an app's own folders
    /// does not apply to a group container, whose root is backed up whole.
    var roles: Set<ContainerRole> { get }
    /// Its options (thresholds), each declared in its file (`RuleOption`); none by default.
    var options: [RuleOption] { get }
    /// What it needs of the scan, declared in its file beside its id (`RuleNeed`): the audit
    /// runs it only where the input and the run give what it `requires`. None by default.
    var needs: [RuleNeed] { get }
    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding]
}

extension Rule {
    public var id: String { description.id }
    var roles: Set<ContainerRole> { Set(ContainerRole.allCases) }
    var options: [RuleOption] { [] }
    var needs: [RuleNeed] { [] }
    /// The observations it cannot run without.
    var requirements: [Observation] { needs.filter { $0.without == nil }.map(\.observation) }

    func finding(
        _ path: ContainerPath?, _ message: String, size: Int64? = nil, severity: Severity? = nil, fix: String? = nil
    ) -> Finding {
        Finding(
            ruleId: description.id, severity: severity ?? description.defaultSeverity, path: path, message: message,
            size: size, fix: fix)
    }
}

/// Every rule, in catalogue order.
public enum RuleCatalogue {
    public static let all: [any Rule] = [
        MisplacedAtRoot(),
        OversizedBackedUpFile(),
        UnexcludedSupportData(),
        RecreatableInDocuments(),
        RecreatableInDocumentsCode(),
        RecreatableBackedUp(),
        ExcludedUserData(),
        ExcludedContainerDirectory(),
        RedundantExclusion(),
        LegacyExclusionAttribute(),
        UnrecognisedExclusionValue(),
        OrphanSidecar(),
        StaleTemporaryFile(),
        UnreadableEntry(),
        SymlinkEscapesContainer(),
        SpecialFile(),
        LargeUserDefaults(),
        SplitStoreBackup(),
        VolatileStore(),
        ManyBackedUpFiles(),
        PolicyBackupExcluded(),
        PolicyBackupIncluded(),
        PolicyForbidden(),
        PolicyMaxSize(),
        BudgetExceeded(),
        SuppressionExpired(),
        ExclusionLost(),
        BackupPredictionMismatch(),
        ProtectionBelowPolicy(),
        StoreProtectionMismatch(),
        SharedStoreCompleteProtection(),
        UnprotectedStore(),
        ScopedExclusionAttribute(),
        UserVisibleDocuments(),
    ]

    public static func rule(id: String) -> (any Rule)? { byID[id] }

    /// Every rule's options, in catalogue order, with the id of the rule that declares each.
    package static let options: [(rule: String, option: RuleOption)] = all.flatMap { r in r.options.map { (r.id, $0) } }

    /// Reports look a rule up once per finding.
    private static let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
    /// Each rule's fix text by its id: `Finding.fixText`, once per finding, without copying
    /// the rule's description each time.
    static let fixes = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0.description.fix) })
}
