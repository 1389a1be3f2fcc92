/// `--color auto|always|never`: whether the console report is coloured.
public enum ColorMode: String, CaseIterable, Sendable {
    case auto, always, never

    /// `auto` colours only a terminal, and never with `NO_COLOR` set to anything but the empty
    /// string (no-color.org) or with `TERM=dumb`. `always` and `never` are what they say.
    public func enabled(environment: [String: String], isTerminal: Bool) -> Bool {
        switch self {
        case .always: return true
        case .never: return false
        case .auto:
            if let v = environment["NO_COLOR"], !v.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return isTerminal
        }
    }
}
