import ArgumentParser
import Foundation
import SandboxAudit

struct SandboxAuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-audit",
        abstract: "Audit an iOS app's data container against Apple's backup and storage rules.",
        discussion: """
            Exit codes: 0 clean, 1 findings at or above --fail-on, 2 usage or input error.
            Scans are read-only. Only 'exclude' and 'include' write, and they say so.
            """,
        version: Audit.toolVersion,
        subcommands: [Scan.self, InventoryCommand.self, Exclude.self, Include.self, AttributesCommand.self, RulesCommand.self]
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

/// A duration option: `3d`, `12h`, `90m`, `3600s` (or plain seconds).
struct DurationArgument: ExpressibleByArgument {
    let seconds: Double
    init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var text = argument.trimmingCharacters(in: .whitespaces)
        var scale = 1.0
        if let last = text.last, let u = units[last] { scale = u; text.removeLast() }
        guard let v = Double(text), v >= 0 else { return nil }
        seconds = v * scale
    }
}
