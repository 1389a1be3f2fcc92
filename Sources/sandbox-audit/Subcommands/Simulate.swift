import ArgumentParser
import Foundation
import SandboxAudit

extension SimulatedEvent: ExpressibleByArgument {}

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Show what an app update, a restore from backup or a storage purge leaves of a container.",
        discussion: """
            EVENT is update, restore, purge, or all (side by side). The source container is only read. \
            --into WRITES the container the event leaves behind as a real folder tree: DIR must not exist or \
            must be empty, and the kept data must fit in its file system; the tree is built beside it (mode 0700) \
            and renamed into place when complete, so a failure or a signal leaves nothing at DIR. Folders are \
            never reached through symlinks, and a container changed during the copy is an error. From a tar or zip archive the members are read again as a \
            stream, without extracting the archive. --verify then scans DIR and checks it against the \
            prediction, entry by entry (exit 1 when it differs).
            """)

    enum Event: String, ExpressibleByArgument, CaseIterable { case update, restore, purge, all }
    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "update, restore, purge or all.")
    var event: Event

    @Argument(help: "The data container, .xcappdata package, or a tar or zip archive of one.")
    var path: String

    @Option(name: .customLong("into"), help: ArgumentHelp("WRITES: materialise the result into DIR (not with all).", valueName: "DIR"))
    var into: String?

    @Flag(help: "With --into: scan the result and check it against the prediction.")
    var verify = false

    @Option(help: "text or json.")
    var format: Format = .text

    @Option(help: "The policy file (its backup: included paths mark what matters when lost).")
    var config: String?

    func validate() throws {
        if into != nil && event == .all { throw ValidationError("--into takes one event, not all") }
        if verify && into == nil { throw ValidationError("--verify needs --into DIR") }
    }

    func run() throws {
        // DIR first: nothing is scanned for a destination that would be refused.
        if let into { try Materializer.checkDestination(into) }
        let policy = try PolicyFile.resolve(config: config)
        let inventory = try Audit.inventory(of: path)
        let events = event == .all ? SimulatedEvent.allCases : [SimulatedEvent(rawValue: event.rawValue)!]
        let results = events.map { SimulationResult($0, inventory, policy: policy) }
        var report: Materializer.Report?
        var mismatches: [Verification.Mismatch]?
        if let into {
            report = try Materializer.write(results[0], into: into)
            if verify {
                mismatches = Verification.compare(results[0], materialized: try Audit.inventory(of: into), skipped: report!.skipped)
            }
        }
        switch format {
        case .json: emit(SimulationReport.json(results, materialized: report, mismatches: mismatches).pretty + "\n")
        case .text: emit(event == .all ? SimulationReport.table(results) : SimulationReport.text(results[0], materialized: report, mismatches: mismatches))
        }
        if let mismatches, !mismatches.isEmpty { throw ExitCode(1) }
    }
}
