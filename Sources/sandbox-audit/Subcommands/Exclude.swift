import ArgumentParser
import SandboxAudit

/// Options shared by exclude and include.
struct MarkerOptions: ParsableArguments {
    @Option(help: "Where the attribute lives: native (an extended attribute) or sidecar (an AppleDouble ._NAME file beside the item).")
    var carrier: BackupMarker.Carrier = .native

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
            (user.-prefixed on Linux) or writes it into a ._NAME AppleDouble sidecar. A sidecar is written to \
            a temporary file and renamed into place; an existing ._NAME that is not AppleDouble is never \
            overwritten. --value writes the other encodings seen in the wild, to build test fixtures.
            """)

    @OptionGroup var options: MarkerOptions

    @Option(help: "Value encoding: canonical (what iOS writes), string, plist-other (an XML plist) or other (the text 'true').")
    var value: AttributeValueClass = .canonical

    func run() throws {
        let bytes = options.legacy ? BackupAttribute.legacyValue : BackupAttribute.sampleValue(value)
        for path in options.paths {
            try BackupMarker.set(options.attribute, value: bytes, on: RawArguments.bytes(path), carrier: options.carrier)
            emit("excluded \(RawArguments.display(path)) (\(options.attribute.macName), \(options.carrier.rawValue))\n")
        }
    }
}

struct Include: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "WRITES: clear the exclude attribute from paths, so backup carries them again.",
        discussion: "This command changes the files given: it removes the attribute (both spellings when native) or rewrites the ._NAME sidecar, deleting it when nothing else is left in it.")

    @OptionGroup var options: MarkerOptions

    func run() throws {
        for path in options.paths {
            let removed = try BackupMarker.clear(options.attribute, on: RawArguments.bytes(path), carrier: options.carrier)
            emit("\(removed ? "cleared" : "not marked:") \(RawArguments.display(path)) (\(options.attribute.macName), \(options.carrier.rawValue))\n")
        }
    }
}
