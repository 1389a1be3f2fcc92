import Foundation

/// Byte counts as developers write them: `B`, `kB`/`MB`/`GB` (powers of 1000) and
/// `KiB`/`MiB`/`GiB` (powers of 1024). Human output uses decimal units, as iOS Settings does.
public enum ByteSize {
    package static let units: [(String, Int64)] = [
        ("B", 1), ("kB", 1_000), ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000),
        ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30),
    ]

    /// Parses "10MB", "1.5 MiB", "512kB", "2048" (bytes).
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        guard let number = Double(digits), number >= 0 else { return nil }
        let multiplier: Int64
        if unit.isEmpty {
            multiplier = 1
        } else if let match = units.first(where: { $0.0 == unit }) {
            multiplier = match.1
        } else {
            return nil
        }
        let value = number * Double(multiplier)
        guard value < 9.2e18 else { return nil }
        return Int64(value.rounded())
    }

    /// "18.2 MB", "512 B", "1.05 GB": three significant figures, decimal units.
    public static func format(_ bytes: Int64) -> String {
        let magnitude = abs(bytes)
        let sign = bytes < 0 ? "-" : ""
        if magnitude < 1000 { return "\(sign)\(magnitude) B" }
        let steps: [(String, Double)] = [("kB", 1e3), ("MB", 1e6), ("GB", 1e9), ("TB", 1e12)]
        var chosen = steps[0]
        for step in steps where Double(magnitude) >= step.1 * 0.9995 { chosen = step }
        let value = Double(magnitude) / chosen.1
        let text: String
        if value >= 99.95 {
            text = String(Int(value.rounded()))
        } else if value >= 9.995 {
            text = fixed(value, decimals: 1)
        } else {
            text = fixed(value, decimals: 2)
        }
        return "\(sign)\(text) \(chosen.0)"
    }

    /// `value` with `decimals` digits after the point, by the C library's `%.*f` (exact
    /// rounding of the double): every finding's message has a size, and Foundation's
    /// String(format:) is slow on Linux.
    package static func fixed(_ value: Double, decimals: Int) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let n = withVaList([Int32(decimals), value]) { vsnprintf(buffer.baseAddress, 64, "%.*f", $0) }
            return String(
                decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: Int(max(0, min(n, 63)))),
                as: UTF8.self)
        }
    }

    package static let unitsNote = "sizes in decimal units: 1 kB = 1,000 bytes, 1 MB = 1,000,000 bytes"

    /// What a size may be written as, for error messages (the policy file's and the options').
    public static let accepted =
        "write a number with B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024), e.g. 25MB"
}

/// "10,000": digits grouped by thousands, for exact byte and file counts in messages.
package func groupedDigits(_ n: Int64) -> String {
    let digits = String(n.magnitude)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return (n < 0 ? "-" : "") + out
}

/// Ages and durations as developers write them: `3d`, `12h`, `90m`, `3600s`, or plain seconds.
public enum Age {
    public static func parse(_ text: String) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var t = text.trimmingCharacters(in: .whitespaces)
        var scale = 1.0
        if let last = t.last, let u = units[last] {
            scale = u
            t.removeLast()
        }
        guard let v = Double(t.trimmingCharacters(in: .whitespaces)), v >= 0, v.isFinite, v * scale <= maximum else {
            return nil
        }
        return v * scale
    }

    /// The longest age taken: 100,000 years, so that every later use (a day count, a message)
    /// stays within its integer type.
    public static let maximum: Double = 100_000 * 365.25 * 86_400

    /// What an age may be written as, for error messages.
    public static let accepted = "write e.g. 3d, 12h, 90m or 3600s (days, hours, minutes, seconds)"

    /// "7 days", "1 hour", "30 minutes".
    package static func format(_ seconds: Double) -> String {
        if seconds >= 86_400 {
            let d = Int((seconds / 86_400).rounded())
            return "\(d) day\(d == 1 ? "" : "s")"
        }
        if seconds >= 3_600 {
            let h = Int((seconds / 3_600).rounded())
            return "\(h) hour\(h == 1 ? "" : "s")"
        }
        let m = Int((seconds / 60).rounded())
        return "\(m) minute\(m == 1 ? "" : "s")"
    }

    /// The shortest exact form: `3d`, `12h`, `90m`, `45s`.
    package static func compact(_ seconds: Double) -> String {
        for (unit, scale) in [("d", 86_400.0), ("h", 3600), ("m", 60)]
        where seconds >= scale && seconds.truncatingRemainder(dividingBy: scale) == 0 {
            return "\(Int(seconds / scale))\(unit)"
        }
        return "\(seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds))s"
    }
}

extension Int64 {
    /// `self + other`, held at `Int64.max` (or `.min`) where the sum would not fit: byte counts
    /// are summed with this, never with `+`, so that no size an input claims can trap.
    package func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// Adds `other` in place, saturating (`addingSaturated`).
    package static func +|= (a: inout Int64, b: Int64) { a = a.addingSaturated(b) }
}

infix operator +|= : AssignmentPrecedence

extension Sequence {
    /// The sum of `size` over the elements, saturating (`Int64.addingSaturated`).
    package func byteSum(_ size: (Element) -> Int64) -> Int64 { reduce(0) { $0.addingSaturated(size($1)) } }
}
