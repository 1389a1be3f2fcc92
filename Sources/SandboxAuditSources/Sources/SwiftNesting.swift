/// How deeply a Swift file nests, measured on its bytes before SwiftParser reads it: the parser
/// bounds its own recursion by bracket depth (`maximumNestingLevel`), but not its lookahead, which
/// recurses once per level through generic arguments (`A<A<A<…`) and, for an opening bracket
/// followed by more of them (`[[[[`, `[([(`), twice (it tries an inline array type, then a
/// collection type), so that twenty-four such brackets take minutes and ten thousand overflow the
/// stack. A file past either bound is not parsed, and is listed as skipped.
enum SwiftNesting {
    /// The deepest nesting of brackets, braces, parentheses, interpolations and generic arguments.
    static let maximumDepth = 64
    /// The most `[` in one run of opening brackets with nothing between them.
    static let maximumBracketRun = 12

    /// Why the file is not parsed, or nil when it is within the bounds.
    static func refusal(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var stack: [UInt8] = []
        var run = 0
        var i = 0
        let n = bytes.count
        func at(_ k: Int) -> UInt8 { k < n ? bytes[k] : 0 }
        while i < n {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") || (c == UInt8(ascii: "#") && at(i + 1) == UInt8(ascii: "\"")) {
            // A string: to its end, or into an interpolation (`\(`), which the stack closes.
            guard let (end, interpolation, multiline) = stringEnd(bytes, from: i) else { return nil }
            i = end
            if interpolation {
                stack.append(multiline ? UInt8(ascii: "M") : UInt8(ascii: "\""))
                if stack.count > maximumDepth { return depthReason }
            }
            run = 0
            continue
            }
            switch c {
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "/"):
                while i < n && bytes[i] != UInt8(ascii: "\n") { i += 1 }
                continue
            case UInt8(ascii: "/") where at(i + 1) == UInt8(ascii: "*"):
                var level = 0
                repeat {
                    if bytes[i] == UInt8(ascii: "/") && at(i + 1) == UInt8(ascii: "*") {
                        level += 1
                        i += 1
                    } else if bytes[i] == UInt8(ascii: "*") && at(i + 1) == UInt8(ascii: "/") {
                        level -= 1
                        i += 1
                    }
                    i += 1
                } while i < n && level > 0
                continue
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                stack.append(c)
                if stack.count > maximumDepth { return depthReason }
                if c == UInt8(ascii: "[") {
                    run += 1
                    if run > maximumBracketRun { return runReason }
                }
                i += 1
                continue
            case UInt8(ascii: "<") where i > 0 && isIdentifier(bytes[i - 1]):
                stack.append(c)
                if stack.count > maximumDepth { return depthReason }
            case UInt8(ascii: ">"):
                if stack.last == UInt8(ascii: "<") { stack.removeLast() }
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                let open = c == UInt8(ascii: ")") ? UInt8(ascii: "(") : c == UInt8(ascii: "]") ? UInt8(ascii: "[") : UInt8(ascii: "{")
                while let last = stack.last, last == UInt8(ascii: "<") { stack.removeLast() }
                if stack.last == open {
                    stack.removeLast()
                } else if c == UInt8(ascii: ")"), let last = stack.last, last == UInt8(ascii: "\"") || last == UInt8(ascii: "M") {
                    // The end of an interpolation: the rest of its string.
                    stack.removeLast()
                    let resumed = stringEnd(bytes, from: i, resuming: last == UInt8(ascii: "M") ? .multiline : .line)
                    guard let (end, interpolation, _) = resumed else { return nil }
                    i = end
                    if interpolation { stack.append(last) }
                    run = 0
                    continue
                }
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                i += 1
                continue
            default: break
            }
            run = 0
            i += 1
        }
        return nil
    }

    static let depthReason = "nested over \(maximumDepth) brackets deep: not parsed"
    static let runReason = "over \(maximumBracketRun) opening brackets in a row: not parsed"

    static func isIdentifier(_ c: UInt8) -> Bool {
        (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 95 || c >= 128
    }

    enum Resume { case line, multiline }

    /// The index after the string starting at `from` (`"…"`, `"""…"""`, `#"…"#`), or after the
    /// `\(` that opens an interpolation in it (then `true`), and whether it is a multi-line one;
    /// `resuming` starts inside a string after an interpolation's `)`. Nil when the file ends first.
    static func stringEnd(_ b: UnsafeBufferPointer<UInt8>, from: Int, resuming: Resume? = nil) -> (Int, Bool, Bool)? {
        var i = from
        var hashes = 0
        var multiline = resuming == .multiline
        if resuming != nil {
            i += 1
        } else {
            while i < b.count && b[i] == UInt8(ascii: "#") {
                hashes += 1
                i += 1
            }
            multiline = i + 2 < b.count && b[i + 1] == UInt8(ascii: "\"") && b[i + 2] == UInt8(ascii: "\"")
            i += multiline ? 3 : 1
        }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\\") {
                var k = i + 1
                var h = 0
                while h < hashes && k < b.count && b[k] == UInt8(ascii: "#") {
                    h += 1
                    k += 1
                }
                if h == hashes && k < b.count && b[k] == UInt8(ascii: "(") { return (k + 1, true, multiline) }
                i = k + 1
                continue
            }
            if c == UInt8(ascii: "\n") && !multiline && hashes == 0 { return (i, false, false) }
            if c == UInt8(ascii: "\"") {
                let quotes = multiline ? 3 : 1
                var k = i
                var q = 0
                while q < quotes && k < b.count && b[k] == UInt8(ascii: "\"") {
                    q += 1
                    k += 1
                }
                var h = 0
                while h < hashes && k < b.count && b[k] == UInt8(ascii: "#") {
                    h += 1
                    k += 1
                }
                if q == quotes && h == hashes { return (k, false, multiline) }
                i += 1
                continue
            }
            i += 1
        }
        return nil
    }
}
