import ArgumentParser
import SandboxAudit

struct AttributesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attributes",
        abstract: "Show the backup attributes on paths (native and in ._ sidecars), with their value encoding.",
        discussion: "Read-only. Does not follow symlinks.")

    @Argument(help: "Files or folders.")
    var paths: [String]

    func run() throws {
        for path in paths {
            let (marks, sidecarProblem) = try BackupMarker.inspect(RawArguments.bytes(path))
            let shown = TerminalText.escaped(RawArguments.display(path))
            if let sidecarProblem { emit("\(shown): \(TerminalText.escaped(sidecarProblem))\n") }
            if marks.isEmpty {
                emit("\(shown): no backup attributes\n")
                continue
            }
            for m in marks {
                let cls =
                    m.attribute == .exclude
                    ? " [\(m.valueClass.rawValue)]"
                    : m.attribute == .legacy ? " [legacy: not honoured since iOS 5.1]" : " [\(m.attribute.meaning)]"
                emit(
                    "\(shown): \(m.attribute.macName)\(cls) \(m.source.kind) "
                        + "\(TerminalText.escaped(m.source.detail)) = \(ByteText.hexString(m.value))\n"
                )
            }
        }
    }
}
