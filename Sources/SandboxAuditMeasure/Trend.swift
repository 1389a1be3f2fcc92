import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// `trend FILE…`: N scans of an app in order (the sessions of one UI-test run, or releases),
/// each a baseline or a scan report read as `compare` reads a side (`ComparedReport.load`), and
/// the bytes backup carries at each point per domain, zone, owner and path, with the growth per
/// step; the paths that grew at every step are flagged (`grows-every-step`). Everything a
/// printer shows is decided here. Format: docs/trend-format.md.
public struct Trend: Sendable {
    /// The most points one run reads (docs/limits.md): the series hold one number per point.
    package static let maximumPoints = 1_000

    /// One file of the series.
    package struct Point: Sendable {
        package let location: String
        package let kind: ComparedReport.Kind
        package let bundleIdentifier: String?
        package let version: String?
        package let complete: Bool?
    }

    /// One line of a table or one chart: a figure at each point (nil where the point lacks the
    /// domain, zone, owner or path) and the change at each step.
    package struct Series: Sendable {
        /// The domain, zone title, owner or path as shown; nil for the owner row of files that
        /// name none.
        package let name: String?
        /// What machine formats name it by: the domain, the zone's id, the owner.
        package let id: String?
        package let values: [Int64?]

        package init(name: String?, id: String?, values: [Int64?]) {
            self.name = name
            self.id = id
            self.values = values
        }

        /// `values[i] - values[i-1]` (a missing value counts 0), one per step.
        package var steps: [Int64] { values.indices.dropFirst().map { (values[$0] ?? 0) - (values[$0 - 1] ?? 0) } }
        package var first: Int64 { values.first.flatMap { $0 } ?? 0 }
        package var last: Int64 { values.last.flatMap { $0 } ?? 0 }
        package var growth: Int64 { last - first }
        /// Present at every point and larger at each than at the one before.
        package var grewEveryStep: Bool {
            values.count >= 2 && values.allSatisfy { $0 != nil } && steps.allSatisfy { $0 > 0 }
        }
        /// The same value at every point.
        package var unchanged: Bool { values.dropFirst().allSatisfy { $0 == values.first! } }
    }

    /// A path across the points: its size at each (the file's bytes, backed up or not) and,
    /// from the last point that has it, whether backup carries it, its zone and owner.
    package struct PathSeries: Sendable {
        package let key: ComparedReport.PathKey
        package let series: Series
        package let backedUp: Bool
        package let zone: Zone
        package let owner: String?

        /// What usually makes such a file grow, from its name and zone (`GrowthCause`).
        package var cause: GrowthCause { GrowthCause(path: key.path, zone: zone, backedUp: backedUp) }
    }

    /// The usual causes of a file that grows at every session, each with its public source.
    package enum GrowthCause: String, Sendable, CaseIterable {
        case sqliteWAL, webViewStorage, outsideCaches, excluded, other

        init(path: ContainerPath, zone: Zone, backedUp: Bool = true) {
            let p = path.display
            if p.hasSuffix("-wal") || p.hasSuffix("-journal") || p.hasSuffix("-shm") {
                self = .sqliteWAL
            } else if p.hasPrefix("Library/WebKit/") || p.contains("/WebsiteData/") || p.contains("IndexedDB") {
                self = .webViewStorage
            } else if zone != .caches && zone != .tmp {
                self = backedUp ? .outsideCaches : .excluded
            } else {
                self = .other
            }
        }

        /// One sentence, with what to do.
        package var text: String {
            switch self {
            case .sqliteWAL:
                return
                    "a SQLite write-ahead log that no checkpoint resets: it grows while a reader or writer holds it "
                    + "open (SQLite, Write-Ahead Logging: \(GrowthRule.sqliteWAL)); checkpoint (PRAGMA "
                    + "wal_checkpoint(TRUNCATE)) or set journal_size_limit"
            case .webViewStorage:
                return
                    "web view storage (IndexedDB, local storage) that WebKit keeps under Library/WebKit and the "
                    + "backup carries (Apple, WKWebsiteDataStore: \(GrowthRule.websiteDataStore)); use a "
                    + "non-persistent data store or remove its records"
            case .outsideCaches:
                return
                    "a queue, log or cache kept where backup carries it: data that can be downloaded again or "
                    + "regenerated belongs in Library/Caches, or marked excluded (Apple, iOS Data Storage "
                    + "Guidelines: \(GrowthRule.dataStorageGuidelines)); trim or cap it"
            case .excluded:
                return
                    "a file excluded from backup that is never trimmed: backup does not carry it, but it fills the "
                    + "device, and only Library/Caches and tmp are purged when the device runs low on space "
                    + "(Apple, iOS Data Storage Guidelines: \(GrowthRule.dataStorageGuidelines)); trim or "
                    + "cap it"
            case .other:
                return
                    "a cache or temporary file that is never trimmed: backup does not carry it, but it fills the "
                    + "device (Apple, iOS Data Storage Guidelines: \(GrowthRule.dataStorageGuidelines))"
            }
        }
    }

    /// The rule the flagged paths are reported under.
    package enum GrowthRule {
        package static let id = "grows-every-step"
        package static let summary =
            "A file grew at every step of the series: it will keep growing in every user's backup"
        package static let sqliteWAL = "https://sqlite.org/wal.html"
        package static let websiteDataStore = "https://developer.apple.com/documentation/webkit/wkwebsitedatastore"
        package static let dataStorageGuidelines =
            "https://developer.apple.com/icloud/documentation/data-storage/index.html"
        /// Title and URL of each public source the causes cite.
        package static let references = [
            "SQLite, Write-Ahead Logging (Avoiding Excessively Large WAL Files): \(sqliteWAL)",
            "Apple, WKWebsiteDataStore: \(websiteDataStore)",
            "Apple, iOS Data Storage Guidelines: \(dataStorageGuidelines)",
        ]
    }

    package let points: [Point]
    /// The whole app's backup footprint.
    package let total: Series
    package let domains: [Series]
    package let zones: [Series]
    /// Per owner, largest last-point footprint first; nil with the reason in `ownersUnavailable`.
    package let owners: [Series]?
    package let ownersUnavailable: String?
    /// Paths present at every point and larger at each step, most growth first.
    package let grewEveryStep: [PathSeries]
    /// Paths whose size changed between the first and the last point, most growth first (the
    /// first `listLength`), and how many there are.
    package let grewMost: [PathSeries]
    package let grewCount: Int
    /// Why the path lists are empty: a point is a scan report.
    package let pathsUnavailable: String?
    package let notes: [String]

    /// How many paths `grewMost` keeps.
    package static let listLength = 100

    /// `--fail-on-growth-per-step SIZE`: the most the whole app's backup footprint may grow in
    /// one step.
    public var stepLimit: Int64? = nil

    /// A point's scan could not read everything: `trend` exits 1 unless `--allow-incomplete`.
    public var incomplete: Bool { points.contains { $0.complete == false } }

    /// The step that grew the most and by how much (the first such step on a tie).
    package var largestStep: (step: Int, growth: Int64) {
        total.steps.enumerated().reduce((step: 1, growth: Int64.min)) { best, s in
            s.element > best.growth ? (s.offset + 1, s.element) : best
        }
    }

    /// The footprint grew by more than `stepLimit` in some step: `trend` exits 1.
    public var failed: Bool { stepLimit.map { largestStep.growth > $0 } ?? false }

    /// Reads the files in order, one at a time (what each holds is folded into the series and
    /// dropped). An `InputError` names a file that cannot be read; fewer than two files, more
    /// than `maximumPoints`, or files naming different bundle identifiers (unless
    /// `allowDifferentApps`, which makes it a note) are refused the same way.
    public static func load(_ locations: [String], allowDifferentApps: Bool = false) throws -> Trend {
        guard locations.count >= 2 else {
            throw InputError("trend needs at least two files, in order (got \(locations.count))")
        }
        guard locations.count <= maximumPoints else {
            throw InputError("trend reads at most \(maximumPoints) files (got \(locations.count))")
        }
        var builder = Builder(count: locations.count)
        var first: ComparedReport?
        for (i, location) in locations.enumerated() {
            let side = try ComparedReport.load(location, as: "file \(i + 1)")
            if let f = first, let a = f.bundleIdentifier, let b = side.bundleIdentifier, a != b {
                let e = TerminalText.escaped
                let what =
                    "file 1 \(e(f.location)) is \(e(a)) and file \(i + 1) \(e(location)) is \(e(b)): two different apps"
                guard allowDifferentApps else { throw InputError(what + "; --allow-different-apps reads them anyway") }
                builder.notes.append(what + " (--allow-different-apps)")
            }
            if first == nil { first = side }
            try builder.add(side, at: i)
        }
        return builder.trend()
    }

    /// The most figures the domain and owner tables may hold (names × points): each is printed,
    /// so more would be a table nobody reads, at a cost quadratic in the input (docs/limits.md).
    package static let maximumTableFigures = 1_000_000

    /// Folds the points into per-name series. Domains, zones and owners are tables of one figure
    /// per point (bounded by `maximumTableFigures`); paths are kept sparse: one record per path a
    /// point holds, and a running tally per path, so memory follows the input, never paths ×
    /// points. Only the paths a report lists get their dense series, at the end.
    struct Builder {
        let count: Int
        var points: [Point] = []
        var total: [Int64?]
        var domainOrder: [String] = []
        var domains: [String: [Int64?]] = [:]
        var zones: [Zone: [Int64?]] = [:]
        var owners: [String?: [Int64?]] = [:]
        var lackingOwners: [Int] = []
        var paths = SparsePaths()
        var scanReports: [Int] = []
        var notes: [String] = []
        /// The points whose scan was incomplete, and how many items each missed.
        var incomplete: [(point: Int, missed: Int)] = []
        /// Per point: whether its file records the domains it audited.
        var recordsDomains: [Bool] = []

        init(count: Int) {
            self.count = count
            total = Array(repeating: nil, count: count)
        }

        mutating func add(_ side: ComparedReport, at i: Int) throws {
            points.append(
                Point(
                    location: side.location, kind: side.kind, bundleIdentifier: side.bundleIdentifier,
                    version: side.version, complete: side.complete))
            total[i] = side.total.backupFootprint
            // The domains the side audited (an empty one counts 0), or where it does not record
            // them (an older baseline), those its files name.
            recordsDomains.append(side.auditedDomains != nil)
            for d in side.auditedDomains ?? side.domains {
                if domains[d] == nil {
                    domainOrder.append(d)
                    domains[d] = Array(repeating: nil, count: count)
                }
                domains[d]![i] = side.perDomain[d]?.backupFootprint ?? (side.auditedDomains != nil ? 0 : nil)
            }
            for (z, f) in side.perZone where z != .system {
                zones[z, default: Array(repeating: nil, count: count)][i] = f.backupFootprint
            }
            if let o = side.perOwner {
                for (name, f) in o { owners[name, default: Array(repeating: nil, count: count)][i] = f.backupFootprint }
            } else {
                lackingOwners.append(i)
            }
            let figures = (domains.count + owners.count).multipliedReportingOverflow(by: count)
            if figures.overflow || figures.partialValue > Trend.maximumTableFigures {
                throw InputError(
                    "file \(i + 1) \(TerminalText.escaped(side.location)): \(domains.count) domains and "
                        + "\(owners.count) owners over \(count) files are more than \(Trend.maximumTableFigures) "
                        + "figures to tabulate; trend reads the series of one app (docs/limits.md)"
                )
            }
            if let p = side.paths {
                let links = p.files.hasLinks
                for row in p.order {
                    paths.add(
                        p.key(Int(row)), p.record(Int(row)), at: Int32(i), names: links ? p.linkKeys(Int(row)) : [])
                }
            } else {
                scanReports.append(i)
            }
            if side.complete == false { incomplete.append((i, side.missed.count)) }
        }

        func trend() -> Trend {
            let domainSeries = domainOrder.map { Series(name: $0, id: $0, values: domains[$0]!) }
            // A domain some files did not audit: the totals at those points leave it out.
            var notes = notes
            // Every incomplete point in one note: one cause, one banner.
            if !incomplete.isEmpty {
                let each = incomplete.prefix(10).map { i, n in
                    "file \(i + 1) (\(n == 0 ? "part of it" : "\(n) \(n == 1 ? "item" : "items")"))"
                }
                let more = incomplete.count > 10 ? " and \(incomplete.count - 10) more files" : ""
                notes.insert(
                    "INCOMPLETE SCAN: \(each.joined(separator: ", "))\(more) could not be read in full; the figures "
                        + "at \(incomplete.count == 1 ? "that point" : "those points") leave out what was not read "
                        + "(see unreadable-entry)",
                    at: 0)
            }
            for d in domainSeries {
                let missing = d.values.indices.filter { d.values[$0] == nil && recordsDomains[$0] }.map {
                    String($0 + 1)
                }
                guard !missing.isEmpty else { continue }
                let shown =
                    missing.count > 10
                    ? missing.prefix(10).joined(separator: ", ") + " and \(missing.count - 10) more"
                    : missing.joined(separator: ", ")
                notes.append(
                    "\(TerminalText.escaped(d.name ?? "")) was not audited in file \(shown): the app's totals there "
                        + "leave it out, so a step to or from it is no growth or saving of the app"
                )
            }
            let zoneSeries = Zone.allCases.compactMap { z in
                zones[z].map { Series(name: z.title, id: z.rawValue, values: $0) }
            }
            .filter { !$0.values.allSatisfy { ($0 ?? 0) == 0 } }
            let ownerSeries: [Series]?
            let ownersUnavailable: String?
            if lackingOwners.isEmpty {
                ownerSeries = owners.map { Series(name: $0.key, id: $0.key, values: $0.value) }
                    .sorted { ($0.last, $1.name ?? "") > ($1.last, $0.name ?? "") }
                ownersUnavailable = nil
            } else {
                ownerSeries = nil
                ownersUnavailable =
                    "file \(lackingOwners.map { String($0 + 1) }.joined(separator: ", ")) names no owner (a baseline "
                    + "records one for each file, a scan report its domains' owners, when sandbox-audit "
                    + "attributes paths to owners)"
            }
            var flagged: [Int] = []
            var changed: [Int] = []
            if scanReports.isEmpty {
                for p in paths.tallies.indices {
                    let t = paths.tallies[p]
                    guard !t.unchanged(count) else { continue }
                    if t.grewEveryStep(count) { flagged.append(p) }
                    if t.growth(count) != 0 { changed.append(p) }
                }
            }
            func mostFirst(_ a: Int, _ b: Int) -> Bool {
                (paths.tallies[a].growth(count), paths.keys[b]) > (paths.tallies[b].growth(count), paths.keys[a])
            }
            flagged.sort(by: mostFirst)
            changed.sort(by: mostFirst)
            let listed = Array(changed.prefix(Trend.listLength))
            let series = paths.series(of: Set(flagged).union(listed), points: count)
            return Trend(
                points: points, total: Series(name: nil, id: nil, values: total), domains: domainSeries,
                zones: zoneSeries,
                owners: ownerSeries, ownersUnavailable: ownersUnavailable,
                grewEveryStep: flagged.map { series[$0]! }, grewMost: listed.map { series[$0]! },
                grewCount: changed.count,
                pathsUnavailable: scanReports.isEmpty
                    ? nil
                    : "file \(scanReports.map { String($0 + 1) }.joined(separator: ", ")) "
                        + (scanReports.count == 1
                            ? "is a scan report, which records" : "are scan reports, which record")
                        + " no per-path sizes; record baselines (scan --write-baseline) to follow paths",
                notes: notes)
        }
    }
}
