#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Another program run for what it prints (`xcrun simctl listapps`), within a deadline that
/// holds whatever it does: it runs in a process group of its own, its output is read from a
/// pipe with poll(2) until the deadline, at most `maximumOutput` bytes, and at the deadline (or
/// past the bound) the whole group is killed (SIGKILL ends a stopped process too) and the pipe
/// closed, so that neither a program that never ends, a stopped one, nor a child still holding
/// the pipe after it ended can keep the run waiting. Standard input and error are /dev/null.
package enum Subprocess {
    package enum Ending: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)
        /// Still running, or its output still open, at the deadline: its group was killed.
        case timedOut
        /// It printed more than the bound: its group was killed.
        case tooMuchOutput
        /// posix_spawn failed with this errno.
        case notStarted(Int32)
    }

    /// Runs `executable` with `arguments` (argv[0] is the executable) in the environment
    /// this process has. The output read, and how the program ended.
    package static func run(_ executable: String, _ arguments: [String], timeout: Double, maximumOutput: Int) -> (
        ending: Ending, output: [UInt8]
    ) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { return (.notStarted(errno), []) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        var actions = Platform.spawnFileActions()
        var attributes = Platform.spawnAttributes()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, writeEnd)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        // A group of its own (its id is the child's pid), so that its children end with it.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, Platform.environmentPointer)
        _ = close(writeEnd)
        guard spawned == 0 else {
            _ = close(readEnd)
            return (.notStarted(spawned), [])
        }

        let deadline = now() + timeout
        var output: [UInt8] = []
        var ending: Ending?
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        reading: while true {
            let left = deadline - now()
            if left <= 0 {
                ending = .timedOut
                break
            }
            var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left * 1000, 1000).rounded(.up)))
            if ready < 0 && errno != EINTR {
                ending = .timedOut
                break
            }
            guard ready > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { systemRead(readEnd, $0.baseAddress!, $0.count) }
            switch n {
            case 0: break reading
            case ..<0: if errno != EINTR && errno != EAGAIN { break reading }
            default:
                output += buffer[0..<n]
                if output.count > maximumOutput {
                    ending = .tooMuchOutput
                    break reading
                }
            }
        }
        _ = close(readEnd)
        // The output ended: the program has until the deadline to exit.
        var status: Int32 = 0
        if ending == nil {
            while true {
                let r = waitpid(pid, &status, WNOHANG)
                if r == pid { return (decode(status), output) }
                if r < 0 && errno != EINTR { return (.signalled(SIGKILL), output) }
                if now() >= deadline {
                    ending = .timedOut
                    break
                }
                usleep(5_000)
            }
        }
        _ = kill(-pid, SIGKILL)
        _ = kill(pid, SIGKILL)
        _ = retryOnInterrupt { waitpid(pid, &status, 0) }
        return (ending ?? .timedOut, output)
    }

    private static func decode(_ status: Int32) -> Ending {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as functions.
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// Seconds on the monotonic clock.
    private static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
