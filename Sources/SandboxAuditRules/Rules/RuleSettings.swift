import SandboxAuditCore
import SandboxAuditSystem

/// The values of the rules' options (`RuleOption`): storage only, read and written through the
/// declarations. An option never set holds its declared default.
public struct RuleSettings: Sendable {
    /// By option (its JSON name, unique).
    private var values: [String: RuleOption.Value] = [:]

    public init() {}

    package subscript(option: RuleOption) -> RuleOption.Value {
        get { values[option.json] ?? option.defaultValue }
        set { values[option.json] = newValue }
    }
}

/// One option of a rule (a threshold), declared once, in the rule's file under
/// `Rules/Catalogue`, and listed by the rule's `options`. Everything else is derived from it:
/// the policy file's key under `rules.RULE_ID` (its parsing, validation, `config show` and the
/// `config init` starter), the `scan` flag's name and help, the JSON report's `settings` field,
/// and the tables of docs/policy-file.md and docs/json-format.md (checked by `RuleOptionTests`).
public struct RuleOption: Sendable {
    package enum Kind: Sendable, CaseIterable {
        /// Bytes: `10MB`, `512KiB`, `2048`.
        case size
        /// Seconds: `3d`, `12h`, `90m`, `3600s`.
        case age
        /// A positive whole number.
        case count
    }

    package enum Value: Sendable, Equatable {
        case size(Int64)
        case age(Double)
        case count(Int)

        package var bytes: Int64 {
            if case .size(let v) = self { return v }
            preconditionFailure("\(self) is not a size")
        }
        package var seconds: Double {
            if case .age(let v) = self { return v }
            preconditionFailure("\(self) is not an age")
        }
        package var number: Int {
            if case .count(let v) = self { return v }
            preconditionFailure("\(self) is not a count")
        }
    }

    /// Its key under `rules.RULE_ID` in the policy file.
    package let key: String
    /// The `scan` option that sets it, without the dashes.
    public let flag: String
    /// Its field in the JSON report's `settings`: the name of its `RuleSettings` property.
    package let json: String
    /// That property, by which the command line finds the option (`RuleOption.of`).
    let setting: PartialKeyPath<RuleSettings> & Sendable
    package let kind: Kind
    /// The default as a user writes it (`10MB`, `3d`, `10000`): the help, the starter and the
    /// docs show this text; the value is read from it.
    package let defaultText: String
    /// What it sets, as `scan --help` says it; the default is added (`help`).
    let what: String
    /// Written, with its default, in the `config init` starter.
    package let inStarter: Bool
    /// What a count counts (`files`), for the docs.
    let counted: String?

    init(
        key: String, flag: String, json: String, setting: PartialKeyPath<RuleSettings> & Sendable, kind: Kind,
        default text: String,
        counts counted: String? = nil, inStarter: Bool = false, help: String
    ) {
        self.key = key
        self.flag = flag
        self.json = json
        self.setting = setting
        self.kind = kind
        self.defaultText = text
        self.inStarter = inStarter
        self.what = help
        self.counted = counted
    }

    /// Its unit, as docs/json-format.md names it: bytes, seconds, or what a count counts.
    package var unit: String {
        switch kind {
        case .size: return "bytes"
        case .age: return "seconds"
        case .count: return counted ?? "a count"
        }
    }

    /// The `scan` option's help.
    public var help: String { "\(what) (default: the policy's, else \(defaultText))." }

    package var defaultValue: Value { kind.parse(defaultText)! }

    /// The declaration of a `RuleSettings` property.
    public static func of(_ setting: PartialKeyPath<RuleSettings>) -> RuleOption {
        guard let option = RuleCatalogue.options.first(where: { $0.option.setting == setting }) else {
            preconditionFailure("no rule declares an option for \(setting)")
        }
        return option.option
    }
}

extension RuleOption.Kind {
    /// Reads a value as a policy file or the command line writes it; nil when it is not one.
    package func parse(_ text: String) -> RuleOption.Value? {
        switch self {
        case .size: return ByteSize.parse(text).map { .size($0) }
        case .age: return Age.parse(text).map { .age($0) }
        case .count: return Int(text).flatMap { $0 > 0 ? .count($0) : nil }
        }
    }

    /// What a wrong value is told, after "'VALUE' is not ".
    package var expected: String {
        switch self {
        case .size: return "a size; \(ByteSize.accepted)"
        case .age: return "an age; write e.g. 3d, 12h, 90m"
        case .count: return "a positive whole number"
        }
    }
}
