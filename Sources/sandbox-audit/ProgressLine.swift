import Foundation
import SandboxAudit

/// The progress line on standard error while a container is read: only when standard error
/// is a terminal, first drawn after one second, redrawn four times a second (entries, bytes,
/// the folder being read), and erased when the reading is over. Never escape sequences: a
/// carriage return and spaces, which every terminal (TERM=dumb too) understands.
final class ProgressLine: Sendable {
    /// Seconds before the line first appears (SANDBOX_AUDIT_PROGRESS_DELAY overrides it, for tests).
    static let delay = ProcessInfo.processInfo.environment["SANDBOX_AUDIT_PROGRESS_DELAY"].flatMap(Double.init) ?? 1.0
    static let interval = 0.25

    private let progress = ScanProgress()
    /// Whether the line was stopped, and how many characters it shows: the drawing thread and
    /// the scan's thread both change them.
    private let state = Locked((stopped: false, shown: 0))

    /// Runs `body` (a scan) with the progress line shown while it runs, erased after.
    static func during<T>(_ body: () throws -> T) rethrows -> T {
        let progress = start()
        defer { progress?.stop() }
        return try body()
    }

    /// Starts watching the walks when standard error is a terminal; nil otherwise.
    static func start() -> ProgressLine? {
        guard Terminal.isTerminal(.error) else { return nil }
        let line = ProgressLine()
        ScanProgress.current = line.progress
        let thread = Thread { line.loop() }
        thread.stackSize = 1 << 18
        thread.start()
        return line
    }

    private func loop() {
        let started = Date()
        var due = Self.delay
        while true {
            // Sleep until the next drawing is due, in short slices so that a stop is noticed.
            while true {
                let left = due - Date().timeIntervalSince(started)
                if left <= 0 { break }
                if isStopped { return }
                Thread.sleep(forTimeInterval: min(left, 0.05))
            }
            if !draw() { return }
            due += Self.interval
        }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    /// Draws the line; false once stopped.
    private func draw() -> Bool {
        let s = progress.snapshot
        var text = "reading: \(grouped(s.entries)) entries, \(ByteSize.format(s.bytes))"
        if !s.folder.isEmpty { text += " - " + TerminalText.escaped(s.folder) }
        let width = max(20, (Terminal.columns(.error) ?? 80) - 1)
        if text.count > width { text = String(text.prefix(width - 3)) + "..." }
        return state.withLock { st in
            guard !st.stopped else { return false }
            let padding = String(repeating: " ", count: max(0, st.shown - text.count))
            put("\r" + text + padding + String(repeating: "\u{8}", count: padding.count))
            st.shown = text.count
            return true
        }
    }

    /// Erases the line (when one was drawn) and stops watching.
    func stop() {
        state.withLock { st in
            guard !st.stopped else { return }
            st.stopped = true
            ScanProgress.current = nil
            if st.shown > 0 { put("\r" + String(repeating: " ", count: st.shown) + "\r") }
        }
    }

    private func put(_ text: String) { Terminal.write(text, to: .error) }

    private func grouped(_ n: Int64) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
