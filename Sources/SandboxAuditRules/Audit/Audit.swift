import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// The pipeline in one call: input → walk → classify → inventory → rules.
public enum Audit {
    /// The tool's version (`Project.version`, which the release stamps from its tag).
    public static var toolVersion: String { Project.version }

    /// Walks and classifies the container at `input` (a data container, an `.xcappdata`, or
    /// a tar or zip archive of one). `role` (`--kind`) overrides what the metadata and the
    /// folder say. Throws `InputError` for input that is not a container.
    public static func inventory(of input: String, role: ContainerRole? = nil) throws -> Inventory {
        try inventories(of: input, ContainerSelection(role: role))[0]
    }

    /// The inventories of every container `selection` names in `input`: the app's data
    /// container first, then its extensions', then its App Groups', each a backup domain.
    /// A backup folder (one holding Manifest.db) gives the domains it holds for the app.
    /// With `selection.simulator`, `input` is not read: the device found gives the containers.
    public static func inventories(of input: String, _ selection: ContainerSelection = ContainerSelection()) throws
        -> [Inventory]
    {
        let given = try InputKinds.detect(input, selection).read()
        let appInfo = try findAppInfo(given.containers.map(\.container), selection)
        // The walks go once the inventories hold what they need of them.
        return inventories(consume given, appInfo: appInfo).inventories
    }

    /// The inventories of what an input read gives, and what finding the containers had to say.
    /// `appInfo`: the app's own Info.plist; an App Clip's containers are classified as iOS
    /// treats them, none of them backed up (`skipsBackup`).
    /// The walks are handed over one by one, so that each inventory can let its walk's entries
    /// go as it reads them.
    static func inventories(_ read: consuming InputRead, appInfo: AppInfo? = nil) -> (
        inventories: [Inventory], notes: [String]
    ) {
        var notes = read.notes
        var containers = read.containers
        _ = consume read
        let skipped = containers.map { skipsBackup($0.container, appInfo) }
        if let appInfo,
            let note = appClipNote(appInfo, domains: zip(containers, skipped).filter(\.1).map(\.0.container.domain))
        {
            notes.append(note)
        }
        var inventories: [Inventory] = []
        for i in containers.indices {
            let walk = containers[i].walk
            containers[i].walk = WalkResult()
            inventories.append(
                Inventory(container: containers[i].container, walk: consume walk, skippedByBackup: skipped[i]))
        }
        return (inventories, notes)
    }

    /// Scans, checks every enabled rule, then applies the policy: severities, ignored paths,
    /// budgets and, with a baseline, suppression of known findings and the comparison. With
    /// `againstBackup` (a backup folder), the prediction is held against what the backup holds
    /// for the same app and App Groups.
    public static func run(
        _ input: String, selection: ContainerSelection = ContainerSelection(), policy: Policy = Policy(),
        baseline: Baseline? = nil, againstBackup: String? = nil, sources: String? = nil,
        scanTime: Double = Date().timeIntervalSince1970
    ) throws -> AuditResult {
        var selection = selection
        selection.appGroups += policy.appGroups.filter { !selection.appGroups.contains($0) }
        // Today, for the suppressions' expiry: a malformed SOURCE_DATE_EPOCH fails before the input is read.
        let today = try policy.suppressions.contains { $0.until != nil } ? CalendarDay.today() : nil
        // The sources first: a folder that cannot be read fails the run before the input is.
        let appSources = try sources.map(AppSources.read)
        let given = try InputKinds.detect(input, selection).read()
        let appInfo = try findAppInfo(given.containers.map(\.container), selection)
        // The path reports name (with --simulator, the app's data container found).
        let input = given.input
        // The walks go once the inventories hold what they need of them.
        let (inventories, notes) = inventories(consume given, appInfo: appInfo)
        var backup: BackupComparison?
        if let folder = againstBackup {
            guard let app = selection.app ?? inventories.first?.container.bundleIdentifier else {
                throw InputError(
                    "\(input) does not name its app's bundle identifier: add --app BUNDLE_ID to compare it with the "
                        + "backup \(folder)"
                )
            }
            // The backup side: the same app and App Groups, and the same password.
            var side = selection
            side.role = nil
            side.app = app
            let held = Audit.inventories(try BackupInput.open(folder, side).read()).inventories
            backup = BackupComparison(prediction: inventories, backup: held, folder: folder, app: app)
        }
        return run(
            input, inventories: inventories, selection: selection, policy: policy, baseline: baseline,
            backup: backup, notes: notes, scanTime: scanTime, appInfo: appInfo, today: today, sources: appSources)
    }

    /// The audit of inventories already read (`backup`: the prediction already held against a
    /// backup; `notes`: what reading the input had to say; `today`: the day suppressions expire
    /// against, by default `CalendarDay.today()`, else the scan time's day).
    static func run(
        _ input: String, inventories: [Inventory], selection: ContainerSelection, policy: Policy,
        baseline: Baseline?, backup: BackupComparison?, notes: [String] = [], scanTime: Double, appInfo: AppInfo? = nil,
        today: CalendarDay? = nil, sources: AppSources? = nil
    ) -> AuditResult {
        var notes = notes
        let today = today ?? (try? CalendarDay.today()) ?? CalendarDay(secondsSince1970: Int64(scanTime))
        let comparison = baseline.map { BaselineComparison(baseline: $0, inventories: inventories) }
        var context = RuleContext(settings: policy.settings, scanTime: scanTime)
        context.paths = policy.paths
        context.protection = policy.protection
        context.appInfo = appInfo
        let owners = OwnerMap(inventories, matcher: OwnerMatcher(rules: policy.owners))
        context.owners = owners
        context.budgets = Budgets.evaluate(
            policy.budgets, growth: policy.growth, inventories, comparison, owners: owners)
        context.baseline = baseline.map { BaselineFiles($0, primaryDomain: inventories[0].domain) }
        context.backupComparison = backup
        context.today = today
        context.expiredSuppressions = policy.suppressions.filter { $0.expired(today: today) }
        context.sources = sources
        if let note = sources?.skippedNote { notes.append(note) }

        // What the run's options give every container (the input kind gives the rest).
        var fromRun: Set<Observation> = []
        if appInfo != nil { fromRun.insert(.appInfo) }
        if baseline != nil { fromRun.insert(.baseline) }
        if backup != nil { fromRun.insert(.backupToCompare) }
        if !policy.paths.isEmpty { fromRun.insert(.policyPaths) }
        // Every measured limit: `budgets:` (churn among them) and `growth:`, alone or together.
        if !policy.budgets.isEmpty || policy.growth != nil { fromRun.insert(.policyBudgets) }
        if !policy.protection.isEmpty { fromRun.insert(.policyProtection) }
        if sources != nil { fromRun.insert(.sources) }

        // The rules are independent: run them side by side, each with its own content reader,
        // on every container whose role they apply to and that gives what they require; where it
        // does not, the rule is "not checked" there, with what it needs. Budgets are the app's:
        // checked once.
        let rules = RuleCatalogue.all.filter { policy.enables($0.id) }
        var jobs: [(rule: Int, container: Int)] = []
        var notChecked: [NotChecked] = []
        let observed = inventories.map { $0.container.observes.union(fromRun) }
        for r in rules.indices {
            for c in inventories.indices where rules[r].roles.contains(inventories[c].container.role) {
                let missing = rules[r].requirements.filter { !observed[c].contains($0) }
                if !missing.isEmpty {
                    notChecked.append(
                        NotChecked(
                            ruleId: rules[r].id, domain: inventories[c].domain, needs: missing, partly: nil,
                            lost: inventories[c].container.lost))
                    continue
                }
                for need in rules[r].needs where need.without != nil && !observed[c].contains(need.observation) {
                    notChecked.append(
                        NotChecked(
                            ruleId: rules[r].id, domain: inventories[c].domain, needs: [need.observation],
                            partly: need.without,
                            lost: inventories[c].container.lost))
                }
                jobs.append((r, c))
            }
        }
        let (checkJobs, checkInventories, checkContext, checkObserved) = (jobs, inventories, context, observed)
        let perJob = Parallel.map(jobs.count) { i -> (findings: [Finding], misses: [ContentMiss]) in
            let c = checkJobs[i].container
            let inventory = checkInventories[c]
            var own = checkContext
            if c > 0 {
                own.budgets = []
                own.expiredSuppressions = []
            }
            // File contents only where the input declares them (an archive's walk kept the
            // first bytes the rules need, and nothing else).
            let reader =
                checkObserved[c].contains(.fileContents)
                ? inventory.container.source.contentReader(for: inventory.container) : nil
            own.content = reader
            // One domain string shared by every finding (`domain` is made each time it is read).
            let domain = inventory.domain
            let findings = rules[checkJobs[i].rule].check(inventory, own).map {
                $0.located(domain: domain, container: c, in: inventory)
            }
            return (findings, reader?.misses ?? [])
        }
        // What the scan missed: every walk problem, then every entry whose contents a rule needed
        // and could not read: once per entry, naming every rule it left unchecked, also reported
        // as one unreadable-entry finding.
        var missed: [MissedItem] = []
        for inv in inventories {
            missed += inv.problems.map {
                MissedItem(path: $0.path, domain: inv.domain, what: $0.operation, why: $0.reason)
            }
        }
        var contentFindings: [Finding] = []
        var byEntry: [Int: [ContainerPath: [ContentMiss]]] = [:]
        for (i, misses) in perJob.map(\.misses).enumerated() {
            for m in misses { byEntry[jobs[i].container, default: [:]][m.path, default: []].append(m) }
        }
        for c in byEntry.keys.sorted() {
            let inventory = inventories[c]
            var absent = 0
            for (path, misses) in byEntry[c]!.sorted(by: { $0.key < $1.key }) {
                let lacksBytes = inventory.container.backup?.lacksBytes(path) ?? false
                if lacksBytes { absent += 1 }
                let unread = UnreadContent(
                    path: path, misses: misses, absentFromBackup: lacksBytes,
                    fromBackup: inventory.container.backup != nil)
                missed.append(MissedItem(path: path, domain: inventory.domain, what: unread.what, why: unread.why))
                guard policy.enables(RuleCatalogue.unreadableEntryID) else { continue }
                contentFindings.append(
                    RuleCatalogue.unreadContentFinding(unread).located(
                        domain: inventory.domain, container: c, in: inventory))
            }
            if absent > 0 {
                notes.append(
                    "the backup holds no bytes for \(absent) \(absent == 1 ? "file" : "files") of "
                        + "\(inventory.domain) (listed in Manifest.db, missing from the backup folder): the rules "
                        + "that read them did not check them (see unreadable-entry)"
                )
            }
        }
        let domainRank = Dictionary(inventories.enumerated().map { ($1.domain, $0) }, uniquingKeysWith: { a, _ in a })
        missed.sort { a, b in
            let da = domainRank[a.domain] ?? 0
            let db = domainRank[b.domain] ?? 0
            if da != db { return da < db }
            if a.path != b.path { return a.path < b.path }
            return (a.what, a.why) < (b.what, b.why)
        }
        // A finding about a file a framework writes (cookies, HTTP storages, WebKit data …) is the
        // system's: never an error by default. The policy's own rules keep what the policy says.
        let systemWritten = { (f: Finding) -> Bool in
            guard !f.ruleId.hasPrefix("policy-") else { return false }
            return owners.attribution(of: f)?.entry?.kind == .framework
        }
        let applied = PolicyApplication(
            policy, to: perJob.map(\.findings) + [contentFindings], domains: inventories.map(\.domain),
            baseline: baseline, today: today,
            systemWritten: systemWritten)
        for s in applied.unused {
            notes.append(
                "the suppression of \(s.label) in the policy file matched no finding: remove it if what it accepted "
                    + "is gone"
            )
        }
        for inv in inventories where inv.container.roleSource == "default" {
            if inv.entry(at: ContainerPath("Documents")) == nil && inv.entry(at: ContainerPath("tmp")) == nil {
                notes.append(
                    "\(inv.container.dataRoot) has no Documents or tmp folder and no metadata saying what it is: it "
                        + "was read as an app's data container; if it is an App Group container, add --kind group"
                )
            }
        }
        return AuditResult(
            inventories: inventories, findings: applied.reported, allFindings: applied.findings, context: context,
            ignoredFindings: applied.ignored, baselineFindings: applied.known, comparison: comparison, notes: notes,
            missed: missed,
            notChecked: notChecked, backupComparison: backup, policy: policy, suppressed: applied.suppressed)
    }
}

/// An inventory, what the rules found in it, and what the policy made of it.
public struct AuditResult: Sendable {
    /// One per container (backup domain): the app's data container first.
    public let inventories: [Inventory]
    /// The findings to report: after rule switches, severities, ignored paths and the baseline.
    public let findings: [Finding]
    /// Before baseline suppression: what a new baseline records.
    let allFindings: [Finding]
    package let context: RuleContext
    /// Findings dropped because their path is in `ignore`.
    package let ignoredFindings: Int
    /// Findings already in the baseline, not reported again.
    package let baselineFindings: Int
    package let comparison: BaselineComparison?
    /// What the user should know about the scan itself (containers left out …).
    public let notes: [String]
    /// What the scan could not read, in domain then path order: every walk problem of every
    /// container and every content read a rule needed and could not do. Empty when complete.
    package let missed: [MissedItem]
    /// The rules not run on a container, or run in part, because the input or the run did not
    /// give what they need: in catalogue order, then domain order.
    package let notChecked: [NotChecked]
    /// The prediction held against a real backup (`--against-backup`); nil when not asked.
    package let backupComparison: BackupComparison?
    /// The policy the audit ran with (its file, the rules it turned off).
    package let policy: Policy
    /// The findings a `suppress:` entry in force covers, in report order: not in `findings`,
    /// never failing the run; reports list them with the reason.
    package let suppressed: [SuppressedFinding]

    init(
        inventories: [Inventory], findings: [Finding], allFindings: [Finding], context: RuleContext,
        ignoredFindings: Int, baselineFindings: Int, comparison: BaselineComparison?, notes: [String],
        missed: [MissedItem] = [],
        notChecked: [NotChecked] = [], backupComparison: BackupComparison? = nil, policy: Policy = Policy(),
        suppressed: [SuppressedFinding] = []
    ) {
        self.suppressed = suppressed
        self.notChecked = notChecked
        self.backupComparison = backupComparison
        self.policy = policy
        self.inventories = inventories
        self.findings = findings
        self.allFindings = allFindings
        self.context = context
        self.ignoredFindings = ignoredFindings
        self.baselineFindings = baselineFindings
        self.comparison = comparison
        self.notes = notes
        self.missed = missed
        var index: [String: Int] = [:]
        for (i, inv) in inventories.enumerated() where index[inv.domain] == nil { index[inv.domain] = i }
        self.domainIndex = index
    }

    /// Each domain's place in `inventories` (the first, when two share one): a finding's
    /// container found in constant time (an app with 40,000 extension domains).
    package let domainIndex: [String: Int]

    /// The first container: the app's data container when several were scanned.
    package var inventory: Inventory { inventories[0] }
    /// Totals over every container of the app.
    package var total: ZoneTotals { inventories.reduce(ZoneTotals()) { $0 + $1.total } }
    /// Bytes an iCloud or computer backup carries for the app: every domain.
    public var backupFootprint: Int64 { inventories.byteSum(\.backupFootprint) }
    public var keptOnUpdate: Int64 { inventories.byteSum(\.keptOnUpdate) }
    public var keptOnRestore: Int64 { inventories.byteSum(\.keptOnRestore) }
    /// More than one container: reports name each finding's domain.
    package var isMultiDomain: Bool { inventories.count > 1 }

    /// Where a finding is, as reports show it: its path, after its domain when the app was
    /// scanned as several containers.
    package func place(_ f: Finding) -> String {
        let path = f.path?.display ?? "."
        return isMultiDomain ? "\(f.domain ?? inventory.domain): \(path)" : path
    }

    /// A missed item as reports show it: its line, after its domain when the app was scanned
    /// as several containers.
    package func place(_ m: MissedItem) -> String { isMultiDomain ? "\(m.domain): \(m.line)" : m.line }

    package var budgets: [BudgetResult] { context.budgets }

    // By index: iterating would copy every finding (tens of thousands on large containers).
    func count(_ severity: Severity) -> Int {
        var n = 0
        for i in findings.indices where findings[i].severity == severity { n += 1 }
        return n
    }

    /// True when a finding is at or above `level`.
    public func fails(at level: Severity) -> Bool { findings.indices.contains { findings[$0].severity >= level } }
}

extension Baseline {
    /// Records an audit: its containers and its findings before any baseline suppression.
    public init(_ result: AuditResult) {
        self.init(
            inventories: result.inventories, findings: result.allFindings, owners: result.context.owners,
            missed: result.missed)
    }
}
