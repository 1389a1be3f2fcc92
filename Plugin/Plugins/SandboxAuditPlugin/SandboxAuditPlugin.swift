import Foundation
import PackagePlugin

/// `swift package plugin sandbox-audit ARGUMENTS…`: runs the bundled `sandbox-audit` with
/// ARGUMENTS as they are (every subcommand and option), in the package's folder, so that
/// relative paths (a container, `--output report.sarif`, `--policy`) are the package's. Its
/// standard output and error are the tool's; its exit status is the tool's (0 clean, 1 findings
/// at or above --fail-on, 2 usage or input error), which `swift package` passes on as failure
/// or success.
@main
struct SandboxAuditPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) throws {
        let tool = try context.tool(named: "sandbox-audit")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool.path.string)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: context.package.directory.string)
        try process.run()
        process.waitUntilExit()
        if process.terminationReason == .uncaughtSignal {
            Diagnostics.error("sandbox-audit ended by signal \(process.terminationStatus)")
            exit(2)
        }
        // The tool has said what it found or what was wrong; its status is the plugin's.
        if process.terminationStatus != 0 { exit(process.terminationStatus) }
    }
}
