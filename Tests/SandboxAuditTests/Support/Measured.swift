import Foundation
import XCTest

/// One run of the built binary, measured, so that a regression fails the test instead of
/// exhausting the machine.
struct Measured {
    let result: CLI.Result
    let seconds: Double
    let peakMB: Double

    /// Runs the CLI measured. Linux: GNU time (peak RSS) with an address-space cap of 2 GiB
    /// (util-linux prlimit) and a 60 s limit (coreutils timeout); skips when one is missing.
    /// macOS: BSD time -l (peak RSS in bytes, on stderr after the tool's own) and a 60 s alarm
    /// through perl; Darwin enforces no address-space cap. Each is found on PATH.
    static func run(_ args: [String], cwd: String? = nil, environment: [String: String] = [:]) throws -> Measured {
        let start = Date()
        #if os(macOS)
            let time = try Tool.path("time", for: "measures the run")
            let perl = try Tool.path("perl", for: "stops the run after 60 s")
            let r = try CLI.run(
                ["-l", perl, "-e", "alarm shift; exec @ARGV or die", "60", CLI.executable] + args,
                environment: environment, cwd: cwd, via: time)
            let seconds = Date().timeIntervalSince(start)
            // time's report starts at its last "real" line; what comes before is the tool's stderr.
            let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            let from = lines.lastIndex { $0.contains(" real ") } ?? lines.endIndex
            let bytes =
                lines[from...].first { $0.contains("maximum resident set size") }
                .flatMap { $0.split(separator: " ").first.flatMap { Double($0) } } ?? -1024 * 1024
            let own = CLI.Result(
                status: r.status, stdout: r.stdout, stderr: lines[..<from].joined(separator: "\n"),
                stdoutBytes: r.stdoutBytes)
            return Measured(result: own, seconds: seconds, peakMB: bytes / 1024 / 1024)
        #else
            let time = try Tool.path("time", for: "measures the run (GNU time)")
            try Tool.require("prlimit", "timeout", for: "caps the run's memory and time")
            let timeFile = try TempDir("time")
            let report = timeFile.sub("t")
            let r = try CLI.run(
                ["-f", "%e %M", "-o", report, "prlimit", "--as=2147483648", "timeout", "60", CLI.executable] + args,
                environment: environment, cwd: cwd, via: time)
            let seconds = Date().timeIntervalSince(start)
            let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            let kb = text.split(whereSeparator: \.isWhitespace).last.flatMap { Double($0) } ?? -1
            return Measured(result: r, seconds: seconds, peakMB: kb / 1024)
        #endif
    }
}
