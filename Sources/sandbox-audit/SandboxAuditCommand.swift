import ArgumentParser
import Foundation
import SandboxAudit

struct SandboxAuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-audit",
        abstract: "Audit an iOS app's data container against Apple's backup and storage rules.",
        discussion: """
            Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or input error.
            Scans are read-only. Only exclude, include, config init, scan --write-baseline and --output, and simulate \
            --into write, and they say so.
            """,
        version: Audit.toolVersion,
        subcommands: [
            Scan.self, InventoryCommand.self, CompareCommand.self, TrendCommand.self, SimulateCommand.self,
            ConfigCommand.self, AppsCommand.self, Exclude.self, Include.self, AttributesCommand.self, RulesCommand.self,
            GenerateDocs.self,
        ]
    )
}

/// Writes to standard output without Swift's print buffering surprises on large outputs, from
/// the string's own bytes (`StandardOutput`).
func emit(_ text: String) { StandardOutput.write(text) }

/// Writes bytes to standard output as they are.
func emit(_ bytes: [UInt8]) { StandardOutput.write(bytes) }

extension ColorMode: ExpressibleByArgument {}

/// Whether the console report on standard output is coloured (`--color`).
func colorWanted(_ mode: ColorMode = .auto) -> Bool {
    mode.enabled(environment: ProcessInfo.processInfo.environment, isTerminal: Terminal.isTerminal(.output))
}

extension Severity: ExpressibleByArgument {}

/// A size option: `10MB`, `1.5MiB`, `2048`. Parsed by `SizeArgument.parse`, whose error says
/// which units are accepted.
struct SizeArgument {
    let bytes: Int64
    static func parse(_ argument: String) throws -> SizeArgument {
        if argument.hasPrefix("-") {
            throw ValidationError("'\(argument)' is a negative size; a size is 0 or more (\(ByteSize.accepted))")
        }
        guard let b = ByteSize.parse(argument) else { throw ValidationError("not a size; \(ByteSize.accepted)") }
        return SizeArgument(bytes: b)
    }
}

/// An age option: `3d`, `12h`, `90m`, `3600s` (or plain seconds).
struct AgeArgument {
    let seconds: Double
    static func parse(_ argument: String) throws -> AgeArgument {
        if argument.hasPrefix("-") {
            throw ValidationError("'\(argument)' is a negative age; an age is 0 or more (\(Age.accepted))")
        }
        guard let s = Age.parse(argument) else { throw ValidationError("not an age; \(Age.accepted)") }
        return AgeArgument(seconds: s)
    }
}

/// A count option (`--many-files 5000`): a positive whole number, read as the policy file reads
/// one (`RuleOption.Kind.count`).
struct CountArgument {
    let count: Int
    static func parse(_ argument: String) throws -> CountArgument {
        guard case .count(let n)? = RuleOption.Kind.count.parse(argument) else {
            throw ValidationError("'\(argument)' is not \(RuleOption.Kind.count.expected)")
        }
        return CountArgument(count: n)
    }
}

extension ContainerRole: ExpressibleByArgument {}

/// What PATH may be, for the help of scan, inventory and simulate.
let inputKindsHelp = """
    PATH is one of:
      - an app's data container folder: a Simulator container, or any copy of one;
        with --app-group, the App Groups are found in the Simulator device folder
        above it (…/data/Containers/Data/Application/UUID, as `xcrun simctl
        get_app_container booted ID data` prints it), or the run fails;
      - an .xcappdata package (Xcode > Devices > Download Container);
      - a tar, tar.gz/tgz, tar.xz/txz, tar.bz2 or zip archive of either, read as a
        stream without extracting it, recognised by its name or by its first bytes;
      - -, such an archive on standard input (tar -cf - -C DIR . | sandbox-audit
        scan -; GNU tar keeps attributes with --xattrs --xattrs-include='*'):
        read once; from a pipe, refused unless its first bytes start an archive,
        then copied into a temporary file that has no name, at most --stdin-limit
        (4 GiB, and half the free space there; docs/limits.md);
      - an App Group or app extension container given alone: its role comes from
        its metadata or the folder it sits in; --kind group|extension says it;
      - a Simulator device folder (Devices/UDID, its data, or data/Containers) with
        --app BUNDLE_ID: the app's data container, its extensions' and its groups';
      - a Finder or iTunes backup folder (the one holding Manifest.db) with
        --app BUNDLE_ID: the app's backup domains as the backup holds them
        (AppDomain-ID, AppDomainPlugin-ID.*, and AppDomainGroup-GID for each
        --app-group GID); everything listed is backed up by definition.
    Or, in place of PATH, --simulator DEVICE with --app BUNDLE_ID: DEVICE is
    booted, a UDID or a device name, found in the device sets
      ~/Library/Developer/CoreSimulator/Devices
      ~/Library/Developer/XCTestDevices (parallel-testing clones, which
        xcodebuild deletes when the test run ends)
    or in the --device-set folders; the app's data container, its extensions'
    and its --app-group containers are audited. Every container named (--app,
    --app-group, the policy's appGroups) is audited, or the run fails (exit 2)
    saying what is there. See docs/simulator.md.
    """

/// PATH's own help line.
let inputArgumentHelp =
    "The data container, .xcappdata package, archive of one (tar, tgz, txz, zip; - reads one on standard input), App "
    + "Group or extension container, or with --app a Simulator device folder or a Finder/iTunes backup folder. "
    + "Not with --simulator."

/// `--sources`' help: shared by scan and inventory.
let sourcesHelp = ArgumentHelp(
    "The app's source folder (Swift and Objective-C, read only): each finding and entry points at the lines that "
        + "build its path (default: the policy file's sources:, else none). See docs/sources.md.",
    valueName: "DIR")

/// Which of an app's containers to read: shared by scan, inventory and simulate.
struct ContainerOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The role of a container given alone: app, extension or group (default: from its metadata or the folder "
                + "it sits in, else app).")
    )
    var kind: ContainerRole?

    @Option(
        help: ArgumentHelp(
            "With a Simulator device folder (…/Devices/UDID, its data, or data/Containers) or --simulator: audit "
                + "this app's data container and its extensions' containers. With a backup folder (required there): "
                + "audit its AppDomain-BUNDLE_ID and AppDomainPlugin-BUNDLE_ID.* domains.",
            valueName: "BUNDLE_ID"))
    var app: String?

    @Option(
        name: .customLong("app-group"),
        help: ArgumentHelp(
            "Also audit this App Group's container (on the device, or in the device folder above a data container), "
                + "or in a backup its AppDomainGroup-GROUP_ID domain (repeatable; adds to the policy's appGroups). A "
                + "group that cannot be found fails the run.",
            valueName: "GROUP_ID"))
    var appGroups: [String] = []

    @Option(
        help: ArgumentHelp(
            "In place of PATH: the Simulator device to audit, booted, a UDID or a device name (with --app). Several "
                + "booted devices, or several of that name: exit 2 listing them.",
            valueName: "DEVICE"))
    var simulator: String?

    @Option(
        name: .customLong("device-set"),
        help: ArgumentHelp(
            "With --simulator: look for the device in this device set instead of "
                + "~/Library/Developer/CoreSimulator/Devices and ~/Library/Developer/XCTestDevices (repeatable).",
            valueName: "DIR"))
    var deviceSets: [String] = []

    @Option(
        name: .customLong("password-file"),
        help: ArgumentHelp(
            "An encrypted backup folder's password: the first line of FILE (default: the environment variable "
                + "\(BackupPassword.environmentVariable)). Decrypted bytes stay in memory.",
            valueName: "FILE"))
    var passwordFile: String?

    @Option(
        name: .customLong("app-info"),
        help: ArgumentHelp(
            "The app's own Info.plist, or its .app folder (read by default from the app's bundle on a Simulator "
                + "device): an App Clip (NSAppClip) has a backup footprint of 0; UIFileSharingEnabled or "
                + "LSSupportsOpeningDocumentsInPlace make Documents user-visible (user-visible-documents).",
            valueName: "PATH"))
    var appInfo: String?

    @Option(
        name: .customLong("stdin-limit"),
        help: ArgumentHelp(
            "With - as PATH: the most bytes of a piped archive to copy to a temporary file (default 4 GiB, and never "
                + "more than half the free space of TMPDIR's file system).",
            valueName: "SIZE"), transform: { try SizeArgument.parse($0) })
    var standardInputLimit: SizeArgument?

    func validate() throws {
        if kind != nil && app != nil { throw ValidationError("--kind is for a container given alone, not with --app") }
        if simulator != nil && app == nil {
            throw ValidationError("--simulator needs --app BUNDLE_ID: the app whose containers to audit on the device")
        }
        if !deviceSets.isEmpty && simulator == nil { throw ValidationError("--device-set needs --simulator DEVICE") }
    }

    /// The input: PATH, or with --simulator nothing (the device gives the containers).
    func input(_ path: String?) throws -> String {
        switch (path, simulator) {
        case (let path?, nil): return path
        case (nil, _?): return ""
        case (_?, _?): throw ValidationError("give PATH or --simulator DEVICE, not both")
        case (nil, nil): throw ValidationError("missing PATH (or --simulator DEVICE with --app BUNDLE_ID)")
        }
    }

    /// What to audit; throws `InputError` for an unreadable password file. `readAgain`: the
    /// command reads an archive input a second time (`simulate --into`), so its scan records
    /// what it reads for that reading to be checked against.
    func selection(_ policy: Policy = Policy(), readAgain: Bool = false) throws -> ContainerSelection {
        var selection = ContainerSelection(
            role: kind, app: app, appGroups: appGroups + policy.appGroups.filter { !appGroups.contains($0) },
            password: try BackupPassword.resolve(
                passwordFile: passwordFile, environment: ProcessInfo.processInfo.environment),
            simulator: simulator, deviceSets: deviceSets)
        selection.appInfo = appInfo
        selection.recordsArchiveReading = readAgain
        selection.standardInputLimit = standardInputLimit?.bytes
        return selection
    }
}
