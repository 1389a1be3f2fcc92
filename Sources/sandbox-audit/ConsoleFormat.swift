/// What the command line asks of standard output before it is parsed: an input or usage error
/// is found before (or while) the arguments are, and must still reach the place the user looks.
enum ConsoleFormat {
    /// True when `arguments` (argv, the program first) send the `github` format to standard
    /// output: `--format github`, `--format=github`, `--output github=-` or `--output=github=-`,
    /// before any `--`.
    static func isGitHub(_ arguments: [String]) -> Bool {
        var i = 1
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" { return false }
            if a == "--format=github" || a == "--output=github=-" { return true }
            if a == "--format" || a == "--output", i + 1 < arguments.count {
                if arguments[i + 1] == (a == "--format" ? "github" : "github=-") { return true }
                i += 2
                continue
            }
            i += 1
        }
        return false
    }
}
