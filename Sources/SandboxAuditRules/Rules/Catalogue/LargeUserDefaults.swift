import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// `large-user-defaults`: a UserDefaults domain (a preferences plist) grown too large.
struct LargeUserDefaults: Rule {
    static let warningSize = RuleOption(
        key: "warningSize", flag: "user-defaults-warning-size", json: "userDefaultsWarningSize",
        setting: \.userDefaultsWarningSize, kind: .size,
        default: "512KiB", help: "large-user-defaults warning threshold, at most the error threshold")
    static let errorSize = RuleOption(
        key: "errorSize", flag: "user-defaults-error-size", json: "userDefaultsErrorSize",
        setting: \.userDefaultsErrorSize, kind: .size,
        default: "4MiB", help: "large-user-defaults error threshold")
    let options = [Self.warningSize, Self.errorSize]
    init() {}

    /// How many top-level keys the message names.
    static let keysListed = 3
    /// Plists larger than this are reported by size alone, without reading them.
    static let maximumParsedSize: Int64 = 16 * 1024 * 1024

    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the

    /// audit reports the rule "not checked" there.

    let needs: [RuleNeed] = [
        .reads(.fileContents, without: "names none of the largest keys: a domain is reported by its size alone")
    ]

    let description = RuleDescription(
        id: "large-user-defaults",
        name: "Large UserDefaults domain",
        summary:
            "A .plist directly in Library/Preferences of 512 KiB or more (policy: warningSize, errorSize); names its "
            + "largest top-level keys.",
        rationale: """
            UserDefaults keeps its whole domain in one plist in Library/Preferences, which backup carries \
            (\(References.fileSystemBasics)) and the app loads into memory at launch. tvOS warns at 512 KB and \
            terminates the app at 1 MB (\(References.sizeLimitExceeded)); on iOS 13 and later a domain of \
            4,194,304 bytes or more is rejected at runtime, so the app's writes stop sticking (public reports: \
            \(References.issue("tus/TUSKit", 73)), \(References.issue("j3k0/cordova-plugin-openwith", 79))). Large \
            values (images, caches, JSON blobs) belong in files. The rule parses the plist (binary or XML) and \
            measures each top-level value by re-encoding it alone as a binary plist; it reads a file only when it \
            is already over the warning size.
            """,
        fix: "Move the largest values out of UserDefaults into files (Application Support, or Caches if re-creatable).",
        defaultSeverity: .warning,
        severityNote: "error at 4 MiB or more, where iOS 13+ rejects the domain",
        triggeringExamples: [
            RuleExample(
                "Images kept in UserDefaults",
                [
                    .plist(
                        "Library/Preferences/com.example.app.plist",
                        keys: [
                            ("avatarImage", 400_000), ("recentSearches", 150_000), ("feedCache", 60_000),
                            ("launchCount", 8),
                        ])
                ], expect: ["Library/Preferences/com.example.app.plist"]),
            RuleExample(
                "A preferences file that is not a property list",
                [.file("Library/Preferences/com.example.app.plist", size: 600_000)],
                expect: ["Library/Preferences/com.example.app.plist"]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "Ordinary settings",
                [.plist("Library/Preferences/com.example.app.plist", keys: [("theme", 16), ("token", 64)])]),
            RuleExample(
                "A large plist elsewhere",
                [.plist("Library/Application Support/catalogue.plist", keys: [("items", 600_000)])]),
            RuleExample(
                "A large non-plist file in Preferences", [.file("Library/Preferences/blob.bin", size: 600_000)]),
        ])

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        let warning = context.settings.userDefaultsWarningSize
        let error = context.settings.userDefaultsErrorSize
        return inventory.entries.findings(where: { c, i in
            c.zone(i) == .preferences && c.kind(i) == .file && c.size(i) >= warning
        }) { e in
            guard e.zone == .preferences, e.entry.kind == .file, e.path.depth == 3,
                String(decoding: e.path.name, as: UTF8.self).lowercased().hasSuffix(".plist"),
                e.entry.size >= warning
            else { return nil }
            let size = e.entry.size
            let isError = size >= error
            var message = "UserDefaults domain of \(ByteSize.format(size)) (\(groupedDigits(size)) bytes), "
            message +=
                isError
                ? "at or over the error size of \(groupedDigits(error)) bytes: iOS 13+ rejects a domain of 4 MiB or "
                    + "more at runtime"
                : "at or over the warning size of \(groupedDigits(warning)) bytes (tvOS warns at 512 KiB; iOS 13+ "
                    + "rejects 4 MiB)"
            message += "; " + Self.describeKeys(e.path, size: size, context)
            return finding(e.path, message, size: size, severity: isError ? .error : .warning)
        }
    }

    /// The largest top-level keys, or why they are unknown.
    static func describeKeys(_ path: ContainerPath, size: Int64, _ context: RuleContext) -> String {
        guard size <= maximumParsedSize else { return "not parsed (over \(ByteSize.format(maximumParsedSize)))" }
        guard let reader = context.content,
            let bytes = reader.read(
                path, limit: Int(size), for: "large-user-defaults", what: "the contents",
                consequence: "large-user-defaults could not name its largest keys")
        else {
            return "its contents could not be read"
        }
        switch Self.largestKeys(Data(bytes)) {
        case .failure(let why): return why.reason
        case .success(let keys):
            if keys.isEmpty { return "it has no top-level keys" }
            // A key an SDK writes into the app's own plist (`flutter.` …) is named with its owner.
            let listed = keys.prefix(keysListed).map { k in
                "\"\(k.key)\" \(ByteSize.format(Int64(k.size)))"
                    + (context.owners?.matcher.keyOwner(k.key).map { " (\($0.owner)'s)" } ?? "")
            }
            return "largest top-level keys (each value re-encoded alone as a binary plist): "
                + listed.joined(separator: ", ")
        }
    }

    struct Unparsable: Error { let reason: String }

    /// Every top-level key with its value's size re-encoded alone as a binary plist, largest
    /// first (ties by key); or, as the failure, a phrase saying why there are none.
    static func largestKeys(_ data: Data) -> Result<[(key: String, size: Int)], Unparsable> {
        let object: Any
        switch BoundedPlist.decode([UInt8](data), maximumSize: Int(maximumParsedSize)) {
        case .success(let parsed): object = parsed.object
        case .failure(let refusal):
            return .failure(Unparsable(reason: "it could not be parsed as a property list (\(refusal.reason))"))
        }
        guard let dictionary = object as? [String: Any] else {
            return .failure(Unparsable(reason: "its top level is not a dictionary"))
        }
        var sizes: [(key: String, size: Int)] = []
        for (key, value) in dictionary {
            let n = BoundedPlist.binarySize(of: value) ?? 0
            sizes.append((key, n))
        }
        return .success(sizes.sorted { $0.size != $1.size ? $0.size > $1.size : $0.key < $1.key })
    }
}

extension RuleSettings {
    /// `large-user-defaults`: a preferences plist this large is a warning (tvOS warns at 512 KiB).
    public var userDefaultsWarningSize: Int64 {
        get { self[LargeUserDefaults.warningSize].bytes }
        set { self[LargeUserDefaults.warningSize] = .size(newValue) }
    }
    /// `large-user-defaults`: this large is an error (iOS 13+ rejects a domain of 4 MiB or more).
    public var userDefaultsErrorSize: Int64 {
        get { self[LargeUserDefaults.errorSize].bytes }
        set { self[LargeUserDefaults.errorSize] = .size(newValue) }
    }

    /// The warning size is above the error size: a domain between the two would be an error
    /// without ever having been a warning, so such settings are refused.
    public var userDefaultsSizesConflict: Bool { userDefaultsWarningSize > userDefaultsErrorSize }
}
