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
            never reached through symlinks, and a container changed during the copy is an error. The tree belongs \
            to whoever runs the command, so setuid, setgid, the sticky bit and write for others are cleared on \
            every entry, and only user. attributes are copied on Linux (never security.*, trusted.*, system.*). From a \
            tar or \
            zip archive the members are read again as a stream, without extracting the archive. With several \
            containers (--app), each backup domain is written into DIR/DOMAIN. A backup folder (with --app) \
            is simulated on what the backup holds (what a restore or an update would carry); --into is refused \
            for it. --verify then scans DIR and \
            checks it against the prediction, entry by entry (exit 1 when it differs). When part of the container \
            could not be read, the report says so first (INCOMPLETE SCAN; in JSON, complete and missed) and \
            the exit status is 1 (--allow-incomplete accepts it). A progress line is shown \
            on standard error after one second while the container is read, only when it is a terminal.

            \(inputKindsHelp)

            Examples:
              sandbox-audit simulate restore MyApp.xcappdata
              sandbox-audit simulate all container.tgz --format json
              sandbox-audit simulate update MyApp.xcappdata --into /tmp/updated --verify
              sandbox-audit simulate restore BACKUP_FOLDER --app com.example.app
              sandbox-audit simulate update --simulator booted --app com.example.app
              sandbox-audit simulate restore DATA_CONTAINER --into Restored.xcappdata
                (a package for xcrun simctl install_app_data: docs/simulator.md)
            """)

    enum Event: String, ExpressibleByArgument, CaseIterable { case update, restore, purge, all }
    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "update, restore, purge or all.")
    var event: Event

    @Argument(help: ArgumentHelp(inputArgumentHelp))
    var path: String?

    @OptionGroup var containers: ContainerOptions

    @Option(
        name: .customLong("into"),
        help: ArgumentHelp("WRITES: materialise the result into DIR (not with all).", valueName: "DIR"))
    var into: String?

    @Flag(help: "With --into: scan the result and check it against the prediction.")
    var verify = false

    @Option(help: "text or json.")
    var format: Format = .text

    @Flag(
        name: .customLong("allow-incomplete"),
        help: ArgumentHelp(
            "Do not fail (exit 1) because part of the container could not be read; the report still says it is "
                + "incomplete and lists what was missed.")
    )
    var allowIncomplete = false

    @Option(
        help: ArgumentHelp(
            "The policy file (its backup: included paths mark what matters when lost; default: .sandbox-audit.yml "
                + "found from the working directory upward).")
    )
    var config: String?

    func validate() throws {
        if into != nil && event == .all { throw ValidationError("--into takes one event, not all") }
        if verify && into == nil { throw ValidationError("--verify needs --into DIR") }
    }

    func run() throws {
        // DIR first: nothing is scanned for a destination that would be refused.
        let input = try containers.input(path)
        if let into { try SimulationRun.checkDestination(into, input: input) }
        let policy = try PolicyFile.resolve(config: config)
        let inventories = try ProgressLine.during {
            try Audit.inventories(of: input, try containers.selection(policy, readAgain: into != nil))
        }
        let events = event == .all ? SimulatedEvent.allCases : [SimulatedEvent(rawValue: event.rawValue)!]
        let run = try SimulationRun(inventories, events: events, policy: policy, into: into, verify: verify)
        switch format {
        case .json: emit(SimulationReport.json(run).prettyLine)
        case .text: emit(SimulationReport.text(run))
        }
        if run.fails(allowIncomplete: allowIncomplete) { throw ExitCode(1) }
    }
}
