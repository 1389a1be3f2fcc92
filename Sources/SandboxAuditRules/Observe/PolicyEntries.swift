import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// What the policy file says of paths and bytes, as plain values: the path entries the policy
/// rules check and the budgets measured before the rules run. The policy file (Policy/) parses
/// them; the rules read them.

/// A policy on the paths a glob matches.
package struct PathPolicy: Sendable {
    package enum Backup: String, Sendable, CaseIterable { case excluded, included }
    package var glob: Glob
    /// `excluded`: re-creatable content; a finding when any of it is backed up.
    /// `included`: data that must survive a restore; a finding when any of it is not backed up.
    package var backup: Backup?
    /// Must not exist.
    var forbidden = false
    /// Each matching item (a folder with everything in it) may not be larger.
    var maxSize: Int64?

    init(glob: Glob) { self.glob = glob }
}

/// A limit on bytes.
package struct Budget: Sendable {
    package enum Scope: Sendable, Hashable {
        /// The backup footprint.
        case backup
        /// Backed-up bytes new or changed since the baseline.
        case churn
        case zone(Zone)
        case glob(Glob)
        /// The backup footprint of one backup domain (`AppDomainGroup-group.…`).
        case domain(String)
        /// Growth of the backup footprint since the baseline (from `growth:`).
        case growth
        /// The bytes one owner (a catalogue owner or a team of `owners:`) has, in every container.
        case owner(String)
    }
    /// Which bytes count: what backup carries, or every byte.
    package enum Measure: String, Sendable, CaseIterable { case backedUp, size }

    package var scope: Scope
    package var measure: Measure
    var limit: Int64

    init(scope: Scope, measure: Measure = .backedUp, limit: Int64) {
        self.scope = scope
        self.measure = measure
        self.limit = limit
    }

    /// How the budget is named in reports and findings.
    package var name: String {
        switch scope {
        case .backup: return "backup footprint"
        case .churn: return "backup churn"
        case .zone(let z): return "\(z.title)" + (measure == .size ? " (all bytes)" : " (backed up)")
        case .glob(let g): return "\(g.pattern)" + (measure == .size ? " (all bytes)" : " (backed up)")
        case .domain(let d): return "\(d) backup footprint"
        case .growth: return "backup growth since the baseline"
        case .owner(let o): return "\(o)'s backup footprint"
        }
    }
}

/// Growth of the backup footprint since the baseline: relative, with an absolute floor.
/// `growth: {backup: "10%", min: "1 MB"}` allows max(10% of the baseline footprint, 1 MB).
struct GrowthBudget: Sendable {
    var percent: Double
    var minimum: Int64

    init(percent: Double, minimum: Int64) {
        self.percent = percent
        self.minimum = minimum
    }

    func allowance(baseline: Int64) -> Int64 {
        max(Int64((Double(baseline) * percent / 100).rounded(.down)), minimum)
    }
}

/// A `suppress:` entry: the findings of one rule under a glob are not counted toward the fail
/// level, and reports show them as suppressed with the reason, until the day it names (if any).
package struct Suppression: Sendable, Hashable {
    package let ruleId: String
    package let glob: Glob
    /// Why the findings are accepted (required: a suppression without a reason is refused).
    package let reason: String
    /// The last day it holds (UTC); nil when it does not expire.
    package let until: CalendarDay?

    init(ruleId: String, glob: Glob, reason: String, until: CalendarDay?) {
        self.ruleId = ruleId
        self.glob = glob
        self.reason = reason
        self.until = until
    }

    /// It covers `finding`: the same rule, and a path the glob covers (the path or a folder
    /// above it); a finding about no entry (a budget's) only when the glob is `**`.
    func covers(_ finding: Finding) -> Bool {
        guard finding.ruleId == ruleId else { return false }
        guard let path = finding.path, !path.isRoot else { return glob.pattern == "**" }
        return glob.covers(path)
    }

    /// Its day has passed: `until` is before `today`.
    func expired(today: CalendarDay) -> Bool { until.map { $0 < today } ?? false }

    /// How reports name it: `special-file on "tmp/**"`.
    package var label: String { "\(ruleId) on \"\(glob.pattern)\"" }
}

/// A day of the proleptic Gregorian calendar, UTC, as `YYYY-MM-DD` (ISO 8601's calendar date):
/// what a suppression's `until` says, and today, which is compared with it.
package struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Days since 1970-01-01.
    package let days: Int64

    init(days: Int64) { self.days = days }

    /// `YYYY-MM-DD`, exactly: four digits, two, two, a real day of that month; nil otherwise.
    init?(_ text: String) {
        let b = Array(text.utf8)
        guard b.count == 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-") else { return nil }
        func number(_ r: Range<Int>) -> Int64? {
            var n: Int64 = 0
            for i in r {
                guard (48...57).contains(b[i]) else { return nil }
                n = n * 10 + Int64(b[i] - 48)
            }
            return n
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m), d >= 1 else {
            return nil
        }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let lengths: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard d <= lengths[Int(m - 1)] else { return nil }
        days = Self.daysFromCivil(y, m, d)
    }

    /// The day holding `seconds` since 1970 (UTC).
    init(secondsSince1970 seconds: Int64) {
        days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
    }

    /// Howard Hinnant's `days_from_civil` (http://howardhinnant.github.io/date_algorithms.html).
    static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// `YYYY-MM-DD` (`civil_from_days`, same source).
    package var description: String {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func pad(_ v: Int64, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    package static func < (a: CalendarDay, b: CalendarDay) -> Bool { a.days < b.days }

    /// The environment variable that sets today for reproducible runs and tests: seconds since
    /// 1970 (https://reproducible-builds.org/specs/source-date-epoch/).
    package static let epochVariable = SourceDateEpoch.variable

    /// Today (UTC): from `SOURCE_DATE_EPOCH` when set, else the clock. A value that is not a
    /// whole number of seconds in range is an input error (`SourceDateEpoch`).
    package static func today(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        now: Double = Date().timeIntervalSince1970
    ) throws -> CalendarDay {
        if let seconds = try SourceDateEpoch.seconds(environment) { return CalendarDay(secondsSince1970: seconds) }
        return CalendarDay(secondsSince1970: Int64(now.rounded(.down)))
    }
}
