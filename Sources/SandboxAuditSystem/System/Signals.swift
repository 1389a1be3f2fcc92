#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Records the signals that would end the process while a tree is being written, so that the
/// writer can stop and remove what it made first; `restore` puts the previous dispositions back.
package struct SignalGuard {
    /// The signal that arrived while a guard was installed (0: none).
    nonisolated(unsafe) static var caught: sig_atomic_t = 0

    /// Signals whose default action ends the process: caught while the temporary tree exists,
    /// so that it is removed first. One the caller ignores stays ignored; the timer and limit
    /// signals are caught only where nothing else (a profiler, say) handles them. The first
    /// ones are caught over any handler: the Swift runtime's for SIGQUIT ends the process.
    package static let endingSignals: [(Int32, String)] = [
        (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT"), (SIGQUIT, "SIGQUIT"), (SIGPIPE, "SIGPIPE"), (SIGTERM, "SIGTERM"),
        (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"),
        (SIGALRM, "SIGALRM"), (SIGXCPU, "SIGXCPU"), (SIGXFSZ, "SIGXFSZ"), (SIGVTALRM, "SIGVTALRM"),
        (SIGPROF, "SIGPROF"),
    ]
    package static let caughtOverHandlers: Set<Int32> = [SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTERM, SIGUSR1, SIGUSR2]

    private var saved: [(Int32, sigaction)] = []

    /// Installs the handler (and clears `caught`).
    package init() {
        SignalGuard.caught = 0
        for (s, _) in SignalGuard.endingSignals {
            var old = sigaction()
            guard sigaction(s, nil, &old) == 0 else { continue }
            let previous = unsafeBitCast(signal(s) { SignalGuard.caught = $0 }, to: Int.self)
            // 1: SIG_IGN, left ignored; 0: SIG_DFL.
            if previous == 1 || (previous != 0 && !SignalGuard.caughtOverHandlers.contains(s)) {
                _ = sigaction(s, &old, nil)
                continue
            }
            saved.append((s, old))
        }
    }

    package func restore() {
        for (s, old) in saved {
            var o = old
            _ = sigaction(s, &o, nil)
        }
    }

    /// The name of the signal caught ("SIGINT"), nil when none was.
    package static var caughtName: String? {
        let s = caught
        guard s != 0 else { return nil }
        return endingSignals.first { $0.0 == s }?.1 ?? "signal \(s)"
    }
}

/// Raises this process's soft limit on open descriptors to its hard limit (at most `wanted`,
/// and at most what the system allows a process, `Platform.descriptorCeiling`): a copy holds
/// two descriptors per level of the folder it is in. It never lowers the limit: a value the
/// system refuses (EINVAL: macOS refuses a soft limit over `kern.maxfilesperproc`, and over
/// OPEN_MAX where the hard limit is unlimited, setrlimit(2)) is tried again at OPEN_MAX's 10,240,
/// and left as it was when that is refused too. Returns the soft limit it leaves.
@discardableResult
package func raiseDescriptorLimit(to wanted: rlim_t) -> rlim_t {
    var limit = rlimit()
    guard getrlimit(Platform.descriptorLimit, &limit) == 0 else { return 0 }
    let before = limit.rlim_cur
    var target = min(limit.rlim_max, wanted)
    if let ceiling = Platform.descriptorCeiling { target = min(target, ceiling) }
    for tried in [target, min(target, 10_240)] where tried > before {
        var raised = limit
        raised.rlim_cur = tried
        if setrlimit(Platform.descriptorLimit, &raised) == 0 { return tried }
    }
    return before
}
