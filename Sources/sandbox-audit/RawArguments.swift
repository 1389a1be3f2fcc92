import Foundation
import SandboxAudit

/// The command line's own bytes. ArgumentParser hands over Strings, in which a file name that
/// is not UTF-8 has been repaired (each bad byte became U+FFFD) and no longer names the file:
/// this finds the argv entry the String came from and returns its raw bytes.
enum RawArguments {
    static var all: [[UInt8]] { ProcessArguments.bytes }

    /// The raw bytes of the argument that decodes to `argument` (its UTF-8 when none does).
    static func bytes(_ argument: String) -> [UInt8] {
        let utf8 = Array(argument.utf8)
        if all.contains(utf8) { return utf8 }
        return all.dropFirst().first { String(decoding: $0, as: UTF8.self) == argument } ?? utf8
    }

    /// The arguments as ArgumentParser is given them: a long option without `=` followed by a
    /// value that starts with `-` and a digit or a point (`--fail-on-growth -1MB`) becomes one
    /// argument (`--fail-on-growth=-1MB`). ArgumentParser reads `-1MB` as a cluster of short
    /// flags and says "Missing value"; joined, the value reaches the option's own check, which
    /// says what is wrong with it (a negative size). Nothing after `--` is changed.
    static func joiningNegativeValues(_ arguments: [String]) -> [String] {
        var out: [String] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--" {
                out += arguments[i...]
                break
            }
            if a.hasPrefix("--"), a.count > 2, !a.contains("="), i + 1 < arguments.count,
                looksNegative(arguments[i + 1])
            {
                out.append(a + "=" + arguments[i + 1])
                i += 2
                continue
            }
            out.append(a)
            i += 1
        }
        return out
    }

    /// `-1MB`, `-0.5`, `-.5GB`: a minus sign then a digit or a point and a digit.
    static func looksNegative(_ argument: String) -> Bool {
        let u = Array(argument.utf8)
        guard u.count >= 2, u[0] == UInt8(ascii: "-") else { return false }
        let digit = { (b: UInt8) in b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        return digit(u[1]) || (u[1] == UInt8(ascii: ".") && u.count > 2 && digit(u[2]))
    }

    /// For messages: the raw bytes shown with undecodable bytes as `\xNN`.
    static func display(_ argument: String) -> String {
        let raw = bytes(argument)
        guard ByteText.utf8String(raw) == nil else { return argument }
        var out = ""
        var i = 0
        while i < raw.count {
            var j = i
            while j < raw.count, raw[j] < 0x80 { j += 1 }
            out += String(decoding: raw[i..<j], as: UTF8.self)
            if j < raw.count {
                // Keep valid multibyte sequences; show the rest as bytes.
                var k = j + 1
                while k < raw.count, raw[k] & 0xC0 == 0x80 { k += 1 }
                if let s = ByteText.utf8String(raw[j..<k]) {
                    out += s
                } else {
                    for b in raw[j..<k] { out += "\\x" + String(b, radix: 16, uppercase: true) }
                }
                i = k
            } else {
                i = j
            }
        }
        return out
    }
}
