import ArgumentParser
import Foundation
import SandboxAudit

struct SandboxAuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-audit",
        abstract: "Audit an iOS app's data container against Apple's backup and storage rules.",
        discussion: """
            Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or input error.
            Scans are read-only. Only exclude, include, config init, scan --write-baseline and --output, and simulate --into write, and they say so.
            """,
        version: Audit.toolVersion,
        subcommands: [Scan.self, InventoryCommand.self, SimulateCommand.self, ConfigCommand.self, Exclude.self, Include.self, AttributesCommand.self, RulesCommand.self]
    )
}


/// Writes to standard output without Swift's print buffering surprises on large outputs.
func emit(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Colour only on a terminal, never with NO_COLOR.
func colorWanted() -> Bool {
    if let v = ProcessInfo.processInfo.environment["NO_COLOR"], !v.isEmpty { return false }
    return isatty(STDOUT_FILENO) == 1
}

extension Severity: ExpressibleByArgument {}

/// A size option: `10MB`, `1.5MiB`, `2048`.
struct SizeArgument: ExpressibleByArgument {
    let bytes: Int64
    init?(argument: String) {
        guard let b = ByteSize.parse(argument) else { return nil }
        bytes = b
    }
    static var defaultCompletionKind: CompletionKind { .default }
}

/// An age option: `3d`, `12h`, `90m`, `3600s` (or plain seconds).
struct AgeArgument: ExpressibleByArgument {
    let seconds: Double
    init?(argument: String) {
        guard let s = Age.parse(argument) else { return nil }
        seconds = s
    }
}

extension ContainerRole: ExpressibleByArgument {}

/// Which of an app's containers to read: shared by scan, inventory and simulate.
struct ContainerOptions: ParsableArguments {
    @Option(help: "The role of a container given alone: app, extension or group (default: from its metadata or the folder it sits in, else app).")
    var kind: ContainerRole?

    @Option(help: ArgumentHelp("With a Simulator device folder (…/Devices/UDID, its data, or data/Containers): audit this app's data container and its extensions' containers.", valueName: "BUNDLE_ID"))
    var app: String?

    @Option(name: .customLong("app-group"), help: ArgumentHelp("With --app: also audit this App Group's container (repeatable; adds to the policy's appGroups).", valueName: "GROUP_ID"))
    var appGroups: [String] = []

    func validate() throws {
        if !appGroups.isEmpty && app == nil { throw ValidationError("--app-group needs --app BUNDLE_ID and a Simulator device folder") }
        if kind != nil && app != nil { throw ValidationError("--kind is for a container given alone, not with --app") }
    }

    func selection(_ policy: Policy = Policy()) -> ContainerSelection {
        ContainerSelection(role: kind, app: app, appGroups: appGroups + policy.appGroups.filter { !appGroups.contains($0) })
    }
}
