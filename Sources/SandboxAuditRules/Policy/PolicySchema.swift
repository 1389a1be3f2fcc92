import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// What a value of the policy file may be. Declared once, in `PolicySchema`'s tables: the
/// parser's key checks (`PolicyFile.topKeys` and the others) and the JSON Schema
/// (`PolicySchema.json`, docs/policy.schema.json) are both read from them.
package indirect enum PolicyValue: Sendable {
    /// `error`, `warning`, `note`; with `allowOff`, also `off` (or `false`).
    case severity(allowOff: Bool)
    /// `25MB`, `512KiB`, `2048` (`ByteSize.parse`).
    case size
    /// `3d`, `12h`, `90m`, `3600s` (`Age.parse`).
    case age
    /// A positive whole number.
    case count
    /// A glob relative to the data root (`Glob`).
    case glob
    /// Any text; `nonEmpty`: with something besides spaces.
    case text(nonEmpty: Bool)
    case boolean
    /// `YYYY-MM-DD` (`CalendarDay`).
    case date
    /// `"10%"`.
    case percent
    case choice([String])
    case list(PolicyValue)
    /// A mapping with these keys, the `required` ones present.
    case record([PolicyKey], required: [String])
    /// A mapping whose keys the user chooses (`keys`), each to a `value`.
    case map(keys: MapKeys, value: PolicyValue)
    /// One of these.
    case either([PolicyValue])
    /// `rules:`: each rule id of the catalogue to a severity, `off`, or its options.
    case ruleSwitches
    /// A rule id of the catalogue that a suppress: entry may name (not suppression-expired).
    case ruleId

    /// The keys of a `map`.
    package enum MapKeys: Sendable {
        case glob, name, backupDomain
        case choice([String])
    }
}

/// One key of a mapping of the policy file.
package struct PolicyKey: Sendable {
    package let name: String
    package let value: PolicyValue
    package let help: String

    init(_ name: String, _ value: PolicyValue, _ help: String) {
        self.name = name
        self.value = value
        self.help = help
    }
}

/// The policy file's keys, as the parser checks them and the JSON Schema states them
/// (docs/policy-file.md says what each means).
package enum PolicySchema {
    static let zoneNames = Zone.allCases.filter { $0 != .system }.map(\.rawValue)
    static let measures = PolicyValue.choice(Budget.Measure.allCases.map(\.rawValue))

    static let pathEntry: [PolicyKey] = [
        PolicyKey("path", .glob, "The paths the entry is about (a glob relative to the data root)."),
        PolicyKey(
            "backup", .choice(PathPolicy.Backup.allCases.map(\.rawValue)),
            "excluded: must not be backed up; included: must be backed up (policy-backup-excluded, "
                + "policy-backup-included)."
        ),
        PolicyKey("forbidden", .boolean, "true: must not exist (policy-forbidden)."),
        PolicyKey("maxSize", .size, "Each matching item may not be larger (policy-max-size)."),
    ]
    static let budgetPathEntry: [PolicyKey] = [
        PolicyKey("path", .glob, "The files the budget counts (a glob)."),
        PolicyKey("max", .size, "The limit."),
        PolicyKey("measure", measures, "backedUp (default): the bytes backup carries; size: every byte."),
    ]
    static let zoneBudget: [PolicyKey] = [
        PolicyKey("max", .size, "The limit."),
        PolicyKey("measure", measures, "backedUp (default): the bytes backup carries; size: every byte."),
    ]
    static let budgets: [PolicyKey] = [
        PolicyKey("backup", .size, "The backup footprint: every byte backup carries for the app."),
        PolicyKey("churn", .size, "Backed-up bytes new or changed since --baseline."),
        PolicyKey(
            "zones", .map(keys: .choice(zoneNames), value: .either([.size, .record(zoneBudget, required: ["max"])])),
            "A zone's backed-up bytes, or {max, measure: size} for every byte."),
        PolicyKey(
            "paths", .list(.record(budgetPathEntry, required: ["path", "max"])),
            "The bytes of the files under a "
                + "glob."),
        PolicyKey(
            "domains", .map(keys: .backupDomain, value: .size),
            "One backup domain's backed-up bytes (AppDomain-ID, AppDomainPlugin-ID, AppDomainGroup-ID)."),
        PolicyKey(
            "owners", .map(keys: .name, value: .size),
            "An owner's backed-up bytes (a catalogue owner, or a team of owners:)."),
    ]
    static let growth: [PolicyKey] = [
        PolicyKey("backup", .percent, "Growth allowed, as a percentage of the baseline's backup footprint (\"10%\")."),
        PolicyKey("min", .size, "Growth always allowed, whatever the percentage gives."),
    ]
    static let suppressEntry: [PolicyKey] = [
        PolicyKey("rule", .ruleId, "The rule whose findings are suppressed."),
        PolicyKey("path", .glob, "The paths (a glob; ** also covers a finding about no path, such as a budget's)."),
        PolicyKey("reason", .text(nonEmpty: true), "Why the findings are accepted: reports show it."),
        PolicyKey(
            "until", .date, "The last day it holds (YYYY-MM-DD, UTC); after it, suppression-expired fails the run."),
    ]
    /// The top level, in the order error messages list the keys.
    static let top: [PolicyKey] = [
        PolicyKey(
            "failOn", .severity(allowOff: false), "Exit 1 when a finding is at or above this severity (--fail-on wins)."
        ),
        PolicyKey("rules", .ruleSwitches, "Per rule id: off, a severity, or {severity, thresholds}."),
        PolicyKey("ignore", .list(.glob), "Paths left out of the audit (still counted in the totals)."),
        PolicyKey("paths", .list(.record(pathEntry, required: ["path"])), "What may be stored where."),
        PolicyKey("budgets", .record(budgets, required: []), "Limits on bytes."),
        PolicyKey(
            "growth", .record(growth, required: ["backup"]),
            "Growth of the backup footprint against --baseline: max(backup% of it, min)."),
        PolicyKey(
            "appGroups", .list(.text(nonEmpty: true)), "App Group identifiers whose containers belong to the app."),
        PolicyKey(
            "sources", .text(nonEmpty: true),
            "The app's source folder, relative to this file: findings point at the lines that build their paths "
                + "(--sources wins)."),
        PolicyKey(
            "protection", .map(keys: .glob, value: .choice(ProtectionClass.known.map(\.name))),
            "The weakest data protection class allowed, by glob."),
        PolicyKey(
            "owners", .map(keys: .glob, value: .text(nonEmpty: true)),
            "Who owns which paths, by glob: the last line covering a path wins."),
        PolicyKey(
            "suppress", .list(.record(suppressEntry, required: ["rule", "path", "reason"])),
            "Findings of a rule under a glob not counted toward the fail level, with a reason and an optional expiry."),
    ]

    /// The keys of one table.
    static func keys(_ table: [PolicyKey]) -> [String] { table.map(\.name) }

    // MARK: the JSON Schema

    /// Where the schema is published: docs/policy.schema.json on the default branch, raw.
    package static var url: String {
        Project.repositoryURL.replacingOccurrences(
            of: "https://github.com/", with: "https://raw.githubusercontent.com/") + "/main/docs/policy.schema.json"
    }

    /// The policy file's documentation, as a URL (the starter names it).
    package static var documentation: String { Project.repositoryURL + "/blob/main/docs/policy-file.md" }

    /// A size as the parser reads it: digits (a decimal point allowed), spaces, a unit.
    static let sizePattern =
        "^[ \\t]*([0-9]+(\\.[0-9]*)?|\\.[0-9]+)[ \\t]*(" + ByteSize.units.map(\.0).joined(separator: "|") + ")?[ \\t]*$"
    static let agePattern = "^[ \\t]*([0-9]+(\\.[0-9]*)?|\\.[0-9]+)[ \\t]*[smhd]?[ \\t]*$"

    /// The JSON Schema (draft 2020-12) of the policy file, from the tables above and the rule
    /// catalogue: what docs/policy.schema.json holds (`PolicySchemaTests` holds the two equal).
    package static func json() -> JSON {
        let properties: [(String, JSON)] = top.map { key in
            // A key with nothing after it (only comments beneath) means "none".
            (
                key.name,
                .object([
                    ("description", .string(key.help)),
                    ("anyOf", .array([.object([("type", .string("null"))]), schema(key.value)])),
                ])
            )
        }
        return .object([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string(url)),
            ("title", .string("sandbox-audit policy file (.sandbox-audit.yml)")),
            (
                "description",
                .string(
                    "Generated from the declarations the policy file's reader checks keys against (sandbox-audit "
                        + "config schema). Reference: \(documentation)"
                )
            ),
            ("type", .string("object")),
            ("properties", .object(properties)),
            ("additionalProperties", .bool(false)),
        ])
    }

    static func severities(allowOff: Bool) -> JSON {
        let names = Severity.allCases.reversed().map { JSON.string($0.rawValue) }
        // YAML 1.1 readers take a bare `off` for false: both are accepted.
        let off: [JSON] = allowOff ? [.string("off"), .string("false"), .bool(false)] : []
        return .object([("enum", .array(off + names))])
    }

    static func schema(_ value: PolicyValue) -> JSON {
        switch value {
        case .severity(let allowOff): return severities(allowOff: allowOff)
        case .size:
            return .object([
                ("type", .array([.string("string"), .string("number")])), ("minimum", .int(0)),
                ("pattern", .string(sizePattern)),
                (
                    "description",
                    .string(
                        "A size: B, kB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024); a bare number is "
                            + "bytes."
                    )
                ),
            ])
        case .age:
            return .object([
                ("type", .array([.string("string"), .string("number")])), ("minimum", .int(0)),
                ("pattern", .string(agePattern)),
                ("description", .string("An age: 3d, 12h, 90m, 3600s, or a bare number of seconds.")),
            ])
        case .count:
            return .object([
                ("type", .array([.string("string"), .string("integer")])), ("minimum", .int(1)),
                ("pattern", .string("^[0-9]*[1-9][0-9]*$")),
            ])
        case .glob:
            return .object([
                ("type", .string("string")),
                (
                    "description",
                    .string(
                        "A glob relative to the data root: * within a component, ? one character, [abc] a set, ** "
                            + "any number of components."
                    )
                ),
            ])
        case .text(let nonEmpty):
            var fields: [(String, JSON)] = [("type", .string("string"))]
            if nonEmpty { fields.append(("pattern", .string("\\S"))) }
            return .object(fields)
        case .boolean: return .object([("type", .string("boolean"))])
        case .date:
            return .object([
                // Months 01-12 and days 01-31 (a day past its month's end, 2027-02-31, only the
                // reader refuses).
                ("type", .string("string")),
                ("pattern", .string("^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")),
                ("description", .string("A day, YYYY-MM-DD (UTC).")),
            ])
        case .percent:
            return .object([("type", .string("string")), ("pattern", .string("^[ \\t]*[0-9]+(\\.[0-9]*)?[ \\t]*%$"))])
        case .choice(let names): return .object([("enum", .array(names.map { .string($0) }))])
        case .list(let item): return .object([("type", .string("array")), ("items", schema(item))])
        case .record(let keys, let required):
            var fields: [(String, JSON)] = [
                ("type", .string("object")),
                ("properties", .object(keys.map { ($0.name, described(schema($0.value), $0.help)) })),
            ]
            if !required.isEmpty { fields.append(("required", .array(required.map { .string($0) }))) }
            fields.append(("additionalProperties", .bool(false)))
            return .object(fields)
        case .map(let keys, let value):
            switch keys {
            case .choice(let names):
                return .object([
                    ("type", .string("object")), ("properties", .object(names.map { ($0, schema(value)) })),
                    ("additionalProperties", .bool(false)),
                ])
            case .backupDomain:
                let prefixes = ContainerRole.allCases.map(\.domainPrefix).joined(separator: "|")
                return .object([
                    ("type", .string("object")), ("propertyNames", .object([("pattern", .string("^(\(prefixes)).+"))])),
                    ("additionalProperties", schema(value)),
                ])
            case .glob, .name:
                return .object([("type", .string("object")), ("additionalProperties", schema(value))])
            }
        case .either(let values): return .object([("anyOf", .array(values.map(schema)))])
        // A rule a suppress: entry may name: every rule but suppression-expired (`readSuppressions`).
        case .ruleId:
            return .object([
                (
                    "enum",
                    .array(
                        RuleCatalogue.all.map(\.id).filter { $0 != RuleCatalogue.suppressionExpiredID }.map {
                            .string($0)
                        })
                )
            ])
        case .ruleSwitches:
            let rules: [(String, JSON)] = RuleCatalogue.all.map { rule in
                var options: [(String, JSON)] = [("severity", severities(allowOff: true))]
                for option in rule.options {
                    let kind: PolicyValue =
                        switch option.kind {
                        case .size: .size
                        case .age: .age
                        case .count: .count
                        }
                    options.append((option.key, described(schema(kind), option.help)))
                }
                return (
                    rule.id,
                    .object([
                        ("description", .string(rule.description.summary)),
                        (
                            "anyOf",
                            .array([
                                severities(allowOff: true),
                                .object([
                                    ("type", .string("object")), ("properties", .object(options)),
                                    ("additionalProperties", .bool(false)),
                                ]),
                            ])
                        ),
                    ])
                )
            }
            return .object([
                ("type", .string("object")), ("properties", .object(rules)), ("additionalProperties", .bool(false)),
            ])
        }
    }

    /// `schema` with its description: the key's own help first.
    static func described(_ schema: JSON, _ help: String) -> JSON {
        guard case .object(var fields) = schema else { return schema }
        fields.removeAll { $0.0 == "description" }
        return .object([("description", .string(help))] + fields)
    }
}

extension PolicyFile {
    /// The policy file's JSON Schema, as `config schema` prints it and docs/policy.schema.json
    /// holds it.
    public static var schema: String { PolicySchema.json().prettyLine }
}
