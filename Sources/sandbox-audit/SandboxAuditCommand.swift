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
