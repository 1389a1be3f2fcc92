import ArgumentParser
import SandboxAudit

/// Options shared by exclude and include.
struct MarkerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Act on one carrier only: native (an extended attribute), sidecar (an AppleDouble ._NAME file beside the "
                + "item) or macosx (its ._NAME in a __MACOSX mirror folder above it). Default: exclude rewrites the "
                + "attribute where it already is, else sets it natively; include clears it from every carrier.")
    )
    var carrier: BackupMarker.Carrier?

    @Flag(help: "Act on the legacy com.apple.MobileBackup attribute (iOS 5.0.1) instead.")
    var legacy = false

    @Argument(help: "Files or folders.")
    var paths: [String]

    var attribute: BackupAttribute { legacy ? .legacy : .exclude }
}

extension BackupMarker.Carrier: ExpressibleByArgument {}
extension AttributeValueClass: ExpressibleByArgument {}

struct Exclude: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "WRITES: mark paths excluded from backup (sets the exclude attribute).",
        discussion: """
            This command changes the files given: it sets com.apple.metadata:com_apple_backup_excludeItem \
            (user.-prefixed on Linux) or writes it into a ._NAME AppleDouble sidecar. Where the attribute \
            already is (in any carrier), its value is replaced there, in place. A sidecar is written to \
            a temporary file and renamed into place; an existing ._NAME that is not AppleDouble is never \
            overwritten. --value writes the other encodings seen in the wild, to build test fixtures.
            """)

    @OptionGroup var options: MarkerOptions

    @Option(
        help: ArgumentHelp(
            "Value encoding: canonical (what iOS writes), string, plist-other (an XML plist) or other (the text "
                + "'true').")
    )
    var value: AttributeValueClass = .canonical

    func run() throws {
        let bytes = options.legacy ? BackupAttribute.legacyValue : BackupAttribute.sampleValue(value)
        for path in options.paths {
            let written = try BackupMarker.set(
                options.attribute, value: bytes, on: RawArguments.bytes(path), only: options.carrier)
            emit(
                "excluded \(RawArguments.display(path)) (\(options.attribute.macName), "
                    + "\(written.map(\.rawValue).joined(separator: ", ")))\n"
            )
        }
    }
}

struct Include: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "WRITES: clear the exclude attribute from paths, so backup carries them again.",
        discussion:
            "This command changes the files given: it removes the attribute wherever it is (native under both "
            + "spellings, the ._NAME sidecar, a __MACOSX mirror sidecar; --carrier narrows it), rewriting a "
            + "sidecar and deleting it when nothing else is left in it."
    )

    @OptionGroup var options: MarkerOptions

    func run() throws {
        for path in options.paths {
            let cleared = try BackupMarker.clear(options.attribute, on: RawArguments.bytes(path), only: options.carrier)
            let looked =
                options.carrier.map(\.rawValue) ?? BackupMarker.Carrier.allCases.map(\.rawValue).joined(separator: ", ")
            emit(
                cleared.isEmpty
                    ? "not marked: \(RawArguments.display(path)) (\(options.attribute.macName), \(looked))\n"
                    : "cleared \(RawArguments.display(path)) (\(options.attribute.macName), "
                        + "\(cleared.map(\.rawValue).joined(separator: ", ")))\n"
            )
        }
    }
}
