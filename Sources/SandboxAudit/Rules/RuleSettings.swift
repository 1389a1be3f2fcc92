/// The thresholds rules take; `scan` options set them.
public struct RuleSettings: Sendable {
    /// `oversized-backed-up-file`: files this large or larger.
    public var oversizedFileSize: Int64 = 10_000_000
    /// `unexcluded-support-data`: files this large or larger.
    public var supportDataSize: Int64 = 1_000_000
    /// `stale-temporary-file`: files in tmp not modified for this many seconds.
    public var staleTemporaryAge: Double = 3 * 86_400
    /// `large-user-defaults`: a preferences plist this large is a warning (tvOS warns at 512 KiB).
    public var userDefaultsWarningSize: Int64 = 512 * 1024
    /// `large-user-defaults`: this large is an error (iOS 13+ rejects a domain of 4 MiB or more).
    public var userDefaultsErrorSize: Int64 = 4 * 1024 * 1024
    /// `many-backed-up-files`: a backed-up folder holding this many files or more.
    public var manyFilesThreshold: Int = 10_000

    public init() {}

    /// The large-user-defaults warning size is above its error size: a domain between the two
    /// would be an error without ever having been a warning, so such settings are refused.
    public var userDefaultsSizesConflict: Bool { userDefaultsWarningSize > userDefaultsErrorSize }

    /// One threshold a rule reads: its key under `rules.RULE_ID` in the policy file, the kind
    /// of value it takes, and the field it sets. Declared here, beside the fields: a new
    /// threshold is a field and a line of `thresholds`; the policy file, its starter and its
    /// validation read this table.
    struct Threshold: Sendable {
        enum Kind: Sendable { case size, age, count }
        let key: String
        let kind: Kind
        let set: @Sendable (inout RuleSettings, Double) -> Void
        let get: @Sendable (RuleSettings) -> Double
    }

    /// The thresholds, by rule id.
    static let thresholds: [String: [Threshold]] = [
        "oversized-backed-up-file": [Threshold(key: "size", kind: .size, set: { $0.oversizedFileSize = Int64($1) }, get: { Double($0.oversizedFileSize) })],
        "unexcluded-support-data": [Threshold(key: "size", kind: .size, set: { $0.supportDataSize = Int64($1) }, get: { Double($0.supportDataSize) })],
        "stale-temporary-file": [Threshold(key: "age", kind: .age, set: { $0.staleTemporaryAge = $1 }, get: { $0.staleTemporaryAge })],
        "large-user-defaults": [
            Threshold(key: "warningSize", kind: .size, set: { $0.userDefaultsWarningSize = Int64($1) }, get: { Double($0.userDefaultsWarningSize) }),
            Threshold(key: "errorSize", kind: .size, set: { $0.userDefaultsErrorSize = Int64($1) }, get: { Double($0.userDefaultsErrorSize) }),
        ],
        "many-backed-up-files": [Threshold(key: "count", kind: .count, set: { $0.manyFilesThreshold = Int($1) }, get: { Double($0.manyFilesThreshold) })],
    ]
}
