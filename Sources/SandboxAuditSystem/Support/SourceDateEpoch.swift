import Foundation

/// `SOURCE_DATE_EPOCH` (Reproducible Builds, "SOURCE_DATE_EPOCH",
/// https://reproducible-builds.org/specs/source-date-epoch/): the one reading of the variable,
/// for the day suppressions expire on and the date a report shows. Unset or empty: none. Set:
/// a whole number of seconds since 1970, from 0 to the last second of the year 9999, as
/// `date +%s` prints it; anything else is an input error (the specification asks a tool to
/// fail on a malformed value rather than guess), so no later arithmetic can overflow.
package enum SourceDateEpoch {
    package static let variable = "SOURCE_DATE_EPOCH"
    /// 9999-12-31T23:59:59Z: the last second a `YYYY-MM-DD` date can name.
    package static let latest: Int64 = 253_402_300_799

    package static func seconds(_ environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(InputError) -> Int64?
    {
        guard let text = environment[variable], !text.isEmpty else { return nil }
        let digits = text.utf8
        guard digits.count <= 12, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let seconds = Int64(text),
            seconds <= latest
        else {
            throw InputError(
                "\(variable)=\(TerminalText.escaped(text)) is not a whole number of seconds since 1970 from 0 to "
                    + "\(latest) (the end of 9999): "
                    + "unset it, or set it as date +%s prints "
                    + "(https://reproducible-builds.org/specs/source-date-epoch/)"
            )
        }
        return seconds
    }
}
