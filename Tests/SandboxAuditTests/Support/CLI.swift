import Foundation
import XCTest

enum CLI {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        let stdoutBytes: Data
    }

    static var executable: String {
        // The test bundle sits beside the products (.build/<triple>/debug).
        let candidates = [Bundle.main.bundleURL] + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for dir in candidates {
            let p = dir.appendingPathComponent("sandbox-audit").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return ".build/debug/sandbox-audit"
    }

    /// Runs the CLI to its end; `asNobody` drops root privileges through setpriv first.
    /// `via` runs another program instead (a wrapper such as time, or any tool) with `arguments`.
    /// The tests' one way to run a program to its end and read what it printed: standard output
    /// and standard error are read at once, so one that fills either pipe never blocks.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], asNobody: Bool = false, cwd: String? = nil,
        via: String? = nil
    ) throws -> Result {
        let process = Process()
        if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        if let via {
            process.executableURL = URL(fileURLWithPath: via)
            process.arguments = arguments
        } else if asNobody {
            process.executableURL = URL(fileURLWithPath: Tool.find("setpriv") ?? "setpriv")
            process.arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes concurrently so a large output cannot block the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let errBox = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errBox.data = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let errData = errBox.data
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: outData)
    }

    /// `inventory` as parsed JSON objects, keyed by path.
    static func inventory(_ path: String, asNobody: Bool = false) throws -> (
        entries: [String: [String: Any]], order: [String], result: Result
    ) {
        let r = try run(["inventory", path], asNobody: asNobody)
        var entries: [String: [String: Any]] = [:]
        var order: [String] = []
        for line in r.stdoutBytes.split(separator: UInt8(ascii: "\n")) {
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
                let p = object["path"] as? String
            else {
                throw CommandFailed(
                    command: "inventory \(path)", status: r.status,
                    stderr: "a line that is no entry: " + String(decoding: line, as: UTF8.self))
            }
            entries[p] = object
            order.append(p)
        }
        return (entries, order, r)
    }

    /// `scan --format json`, parsed.
    static func scanJSON(_ arguments: [String], cwd: String? = nil) throws -> (json: [String: Any], result: Result) {
        let r = try run(["scan", "--format", "json"] + arguments, cwd: cwd)
        guard let json = try? JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any] else {
            throw CommandFailed(command: "scan --format json", status: r.status, stderr: "printed no JSON: " + r.stderr)
        }
        return (json, r)
    }
}
