import ArgumentParser
import Foundation
import SandboxAudit

struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "List the apps a backup folder or a Simulator device holds, with their extensions and App Groups.",
        discussion:
            "Reads only the listing (a backup's Manifest.db, a device's container folders and their metadata): the "
            + "bundle identifiers to give scan's --app and --app-group."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(
        help: ArgumentHelp(
            "A Finder or iTunes backup folder (the one holding Manifest.db), a Simulator device folder "
                + "(Devices/UDID, its data, or data/Containers), or a device's file-system extraction (the folder "
                + "holding …/mobile/Containers, found within 10 levels). Not with --simulator.",
            valueName: "PATH"))
    var path: String?

    @Option(
        help: ArgumentHelp(
            "In place of PATH: the Simulator device, booted, a UDID or a device name.", valueName: "DEVICE"))
    var simulator: String?

    @Option(
        name: .customLong("device-set"),
        help: ArgumentHelp(
            "With --simulator: look for the device in this device set instead of the default ones (repeatable).",
            valueName: "DIR"))
    var deviceSets: [String] = []

    @Option(
        name: .customLong("password-file"),
        help: ArgumentHelp(
            "An encrypted backup's password: the first line of FILE (default: the environment variable "
                + "\(BackupPassword.environmentVariable)).",
            valueName: "FILE"))
    var passwordFile: String?

    @Option(help: "text, or json (docs/json-format.md).")
    var format: Format = .text

    func validate() throws {
        if !deviceSets.isEmpty && simulator == nil { throw ValidationError("--device-set needs --simulator DEVICE") }
        switch (path, simulator) {
        case (_?, _?): throw ValidationError("give PATH or --simulator DEVICE, not both")
        case (nil, nil):
            throw ValidationError("missing PATH (a backup folder or a Simulator device folder) or --simulator DEVICE")
        default: break
        }
    }

    func run() throws {
        let selection = ContainerSelection(
            password: try BackupPassword.resolve(
                passwordFile: passwordFile, environment: ProcessInfo.processInfo.environment),
            simulator: simulator, deviceSets: deviceSets)
        let listing = try InstalledApps.list(path ?? "", selection)
        emit(format == .json ? listing.json : listing.text)
    }
}
