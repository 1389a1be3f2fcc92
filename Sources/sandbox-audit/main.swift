import ArgumentParser
import Foundation
import SandboxAudit

// Exit codes: 0 clean, 1 findings at or above the fail level, 2 usage or input error.
// ArgumentParser's own usage exit code (64) is mapped to 2.
// Under `--format github` the error is also a workflow command on standard output, so the
// checks UI shows why the step failed and not only "exit code 2".
func fail(_ message: String) -> Never {
    // A message may quote the input (a policy line, a name): shown on a terminal as visible escapes.
    let message = TerminalText.escaped(message)
    if ConsoleFormat.isGitHub(CommandLine.arguments) {
        FileHandle.standardOutput.write(Data((ReportFormat.githubError(message) + "\n").utf8))
    }
    FileHandle.standardError.write(Data("sandbox-audit: error: \(message)\n".utf8))
    exit(2)
}

// The allocator's heap shared by every thread and reused for the columns (Allocator).
Allocator.configure()

// SIGQUIT (Ctrl-backslash) ends the run as an interrupt: one line and exit 2, not the Swift runtime's
// crash report. (While `simulate --into` writes, its own handler removes the temporary tree first.)
Terminal.quitAsInterrupt()

do {
    // `--fail-on-growth -1MB`: the value joined to its option, so that its own check says it is negative.
    var command = try SandboxAuditCommand.parseAsRoot(
        RawArguments.joiningNegativeValues(Array(CommandLine.arguments.dropFirst())))
    // SOURCE_DATE_EPOCH read once, the same way for every command: a malformed value is an error.
    _ = try SourceDateEpoch.seconds()
    try command.run()
} catch let code as ExitCode {
    exit(code.rawValue)
} catch let error as InputError {
    fail(error.message)
} catch let error as SystemError {
    fail(error.description)
} catch {
    if SandboxAuditCommand.exitCode(for: error) == .success {
        SandboxAuditCommand.exit(withError: error)  // --help, --version
    }
    // A subcommand misspelt (`sacn`): the nearest ones, on one line.
    if let message = Suggestions.unknownSubcommand(Array(CommandLine.arguments.dropFirst())) { fail(message) }
    // A value an option does not take: the nearest values, on one line.
    if let message = Suggestions.invalidValue(SandboxAuditCommand.message(for: error)) {
        fail(message + " (see 'sandbox-audit --help')")
    }
    // One line: ArgumentParser lists valid values on further lines.
    let message = SandboxAuditCommand.message(for: error).split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    fail(message + " (see 'sandbox-audit --help')")
}
