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
    /// The deepest file parsed on any worker: SwiftParser takes about 16 KiB of stack a level in
    /// a debug build, and a worker's stack may be 512 KiB (macOS's secondary threads). A deeper
    /// file is parsed on the calling thread.
    static let workerDepth = 16

    enum Measure: Equatable {
        /// Within the bounds, and the deepest nesting.
        case depth(Int)
        /// Past them: why it is not parsed.
        case refused(String)
    }

    /// How deep the file nests, or why it is not parsed.
    static func measure(_ bytes: UnsafeBufferPointer<UInt8>) -> Measure {
        var scan = Scan()
        var i = 0
        while i < bytes.count {
            guard let next = scan.step(bytes, i) else { return .refused(scan.refusal ?? depthReason) }
            i = next
        }
        return .depth(scan.deepest)
    }

    /// The open brackets (and interpolations: `"`, or `M` in a multi-line string) as the bytes go by.
    private struct Scan {
        var stack: [UInt8] = []
        var deepest = 0
        var run = 0
        var refusal: String?

        mutating func push(_ c: UInt8) -> Bool {
            stack.append(c)
            deepest = max(deepest, stack.count)
            if stack.count > maximumDepth { refusal = depthReason }
            return refusal == nil
        }

        /// Reads the token at `i`; the index after it, or nil when the file is refused. The end
        /// of the file inside a string or comment ends the scan.
        mutating func step(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
            let c = b[i]
            let next: UInt8 = i + 1 < b.count ? b[i + 1] : 0
            let isOpening = c == UInt8(ascii: "(") || c == UInt8(ascii: "[") || c == UInt8(ascii: "{")
            if c == UInt8(ascii: "[") {
                run += 1
                if run > maximumBracketRun { refusal = runReason }
            } else if isOpening == false && !Self.isSpace(c) {
                run = 0
            }
            if c == UInt8(ascii: "\"") || (c == UInt8(ascii: "#") && next == UInt8(ascii: "\"")) {
                guard let (end, interpolation, multiline) = stringEnd(b, from: i) else { return b.count }
                return interpolation && !push(multiline ? UInt8(ascii: "M") : UInt8(ascii: "\"")) ? nil : end
            }
            if c == UInt8(ascii: "/") && (next == UInt8(ascii: "/") || next == UInt8(ascii: "*")) {
                return commentEnd(b, i)
            }
            switch c {
            case UInt8(ascii: "("), UInt8(ascii: "["), UInt8(ascii: "{"):
                return push(c) && refusal == nil ? i + 1 : nil
            case UInt8(ascii: "<") where i > 0 && isIdentifier(b[i - 1]):
                return push(c) ? i + 1 : nil
            case UInt8(ascii: ">"):
                if stack.last == UInt8(ascii: "<") { stack.removeLast() }
            case UInt8(ascii: ")"), UInt8(ascii: "]"), UInt8(ascii: "}"):
                return close(c, b, i)
            default: break
            }
            return i + 1
        }

        /// A closing bracket: it closes its opener (and the generic arguments left open inside),
        /// or an interpolation, after which its string goes on.
        mutating func close(_ c: UInt8, _ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int? {
            let open: UInt8 = c == UInt8(ascii: ")") ? 40 : c == UInt8(ascii: "]") ? 91 : 123
            while stack.last == UInt8(ascii: "<") { stack.removeLast() }
            guard let last = stack.last else { return i + 1 }
            if last == open {
                stack.removeLast()
                return i + 1
            }
            guard c == UInt8(ascii: ")"), last == UInt8(ascii: "\"") || last == UInt8(ascii: "M") else { return i + 1 }
            stack.removeLast()
            let resumed = stringEnd(b, from: i, resuming: last == UInt8(ascii: "M") ? .multiline : .line)
            guard let (end, interpolation, _) = resumed else { return b.count }
            return interpolation && !push(last) ? nil : end
        }

        /// The index after a `//` comment's line or a (nested) `/* */` comment.
        func commentEnd(_ b: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
            var i = start
            if b[i + 1] == UInt8(ascii: "/") {
                while i < b.count && b[i] != UInt8(ascii: "\n") { i += 1 }
                return i
            }
            var level = 0
            repeat {
                let next: UInt8 = i + 1 < b.count ? b[i + 1] : 0
                if b[i] == UInt8(ascii: "/") && next == UInt8(ascii: "*") {
                    level += 1
                    i += 1
                } else if b[i] == UInt8(ascii: "*") && next == UInt8(ascii: "/") {
                    level -= 1
                    i += 1
                }
                i += 1
            } while i < b.count && level > 0
            return i
        }

        static func isSpace(_ c: UInt8) -> Bool {
            c == UInt8(ascii: " ") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\t") || c == UInt8(ascii: "\r")
        }
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
