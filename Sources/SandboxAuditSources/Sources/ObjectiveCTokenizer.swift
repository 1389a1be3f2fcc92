/// Objective-C's tokens: identifiers (with `@` for `@interface`), strings (`@"…"` and `"…"`,
/// unescaped), numbers and punctuation; comments dropped; preprocessor lines dropped but
/// `#define`, whose line ends with a `;` of its own.
struct Tokenizer {
    typealias Token = ObjectiveCReader.Token

    /// The closing partner of each opening bracket (`(`, `[`, `{`), found once for the file.
    static func partners(_ tokens: [Token]) -> [Int32] {
        var out = [Int32](repeating: -1, count: tokens.count)
        var open: [Int] = []
        for (i, t) in tokens.enumerated() where t.kind == .punctuation {
            switch t.text {
            case "(", "[", "{": open.append(i)
            case ")", "]", "}":
                if let o = open.popLast() { out[o] = Int32(i) }
            default: break
            }
        }
        return out
    }

    static func tokens(_ bytes: [UInt8]) -> [Token] {
        var t = Tokenizer(b: bytes)
        while t.i < t.b.count {
            let before = t.out.count
            t.next()
            if t.skipping { t.out.removeSubrange(before...) }
        }
        return t.out
    }

    let b: [UInt8]
    var out: [Token] = []
    var i = 0
    var line: Int32 = 1
    var lineStart = 0
    var atLineStart = true
    var inDefine = false
    /// The open `#if`s: whether the branch read is active, and whether one of its branches was.
    var conditions: [(active: Bool, taken: Bool)] = []
    /// `#if`s nested past `maximumConditions`, read as if absent.
    var deeperConditions = 0
    static let maximumConditions = 64

    /// Whether the tokens read are in a branch the preprocessor drops.
    var skipping: Bool { conditions.contains { !$0.active } }

    static let twoCharacter: Set<String> = [
        "==", "!=", "<=", ">=", "&&", "||", "->", "++", "--", "+=", "-=", "*=", "/=", "|=", "&=",
    ]

    func position(_ at: Int) -> Position { Position(line: line, column: Int32(at - lineStart + 1)) }

    static func isIdentifier(_ c: UInt8) -> Bool {
        (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 95 || c == 36 || c >= 128
    }

    func at(_ k: Int) -> UInt8 { k < b.count ? b[k] : 0 }

    /// Reads what starts at `i`: a line end, blanks, a comment, a directive or a token.
    mutating func next() {
        let c = b[i]
        switch c {
        case 10:
            if inDefine && (i == 0 || b[i - 1] != 92) {
                out.append(Token(kind: .punctuation, text: ";", position: position(i)))
                inDefine = false
            }
            line += 1
            lineStart = i + 1
            atLineStart = true
            i += 1
        case 32, 9, 13, 92:
            i += 1
        case 47 where at(i + 1) == 47:
            while i < b.count && b[i] != 10 { i += 1 }
        case 47 where at(i + 1) == 42:
            comment()
        case 35 where atLineStart:
            directive()
        default:
            atLineStart = false
            token(c)
        }
    }

    /// A `/* */` comment, its line ends counted.
    mutating func comment() {
        i += 2
        while i < b.count && !(b[i] == 42 && at(i + 1) == 47) {
            if b[i] == 10 {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        i += 2
    }

    /// `#define` becomes a token (its line then ends with `;`); any other directive is dropped.
    mutating func directive() {
        let start = i
        var j = i + 1
        while j < b.count && (b[j] == 32 || b[j] == 9) { j += 1 }
        var k = j
        while k < b.count && Self.isIdentifier(b[k]) { k += 1 }
        if String(decoding: b[j..<k], as: UTF8.self) == "define" {
            out.append(Token(kind: .punctuation, text: "#define", position: position(start)))
            inDefine = true
            i = k
            return
        }
        while i < b.count && !(b[i] == 10 && b[i - 1] != 92) { i += 1 }
        let word = String(decoding: b[j..<k], as: UTF8.self)
        conditional(word, String(decoding: b[k..<i], as: UTF8.self))
    }

    /// `#ifdef`, `#if`, `#elif`, `#else`, `#endif`: a macro the app would define (`IS_BETA`) is
    /// taken as undefined, so that the `#else` branch is read; a condition that is not only
    /// `defined(…)`, `0` or `1` reads every branch.
    mutating func conditional(_ word: String, _ rest: String) {
        switch word {
        case "if", "ifdef", "ifndef":
            guard conditions.count < Self.maximumConditions else {
                deeperConditions += 1
                return
            }
            let c = word == "if" ? Self.condition(rest) : Self.defined(rest) == (word == "ifdef")
            conditions.append((c ?? true, c == true))
        case "elif" where deeperConditions > 0, "else" where deeperConditions > 0: break
        case "endif" where deeperConditions > 0: deeperConditions -= 1
        case "elif":
            guard let last = conditions.popLast() else { return }
            let c = Self.condition(rest)
            conditions.append((!last.taken && c != false, last.taken || c == true))
        case "else":
            guard let last = conditions.popLast() else { return }
            conditions.append((!last.taken, true))
        case "endif": _ = conditions.popLast()
        default: break
        }
    }

    /// `0`, `1`, `defined(X)`, `!defined(X)`: its value; anything else nil.
    static func condition(_ text: String) -> Bool? {
        var t = text.filter { !$0.isWhitespace }
        if t == "0" { return false }
        if t == "1" { return true }
        let negated = t.hasPrefix("!")
        if negated { t.removeFirst() }
        guard t.hasPrefix("defined") else { return nil }
        let name = t.dropFirst("defined".count).filter { $0 != "(" && $0 != ")" }
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return defined(String(name)) != negated
    }

    /// Whether a macro is defined for an iOS build: the compiler's (`__OBJC__`, `TARGET_OS_…`)
    /// are; an app's own are not.
    static func defined(_ name: String) -> Bool {
        let n = name.filter { !$0.isWhitespace }
        return n.hasPrefix("__") || n.hasPrefix("TARGET_OS_") || n.hasPrefix("NS_") || n.hasPrefix("OBJC_")
    }

    mutating func token(_ c: UInt8) {
        let start = i
        let next = at(i + 1)
        if c == 34 || (c == 64 && next == 34) || c == 39 {
            let quote: UInt8 = c == 39 ? 39 : 34
            i += c == 64 ? 2 : 1
            var text: [UInt8] = []
            while i < b.count && b[i] != quote && b[i] != 10 {
                if b[i] == 92 && i + 1 < b.count {
                    i += 1
                    text.append(b[i] == 110 ? 10 : b[i] == 116 ? 9 : b[i])
                } else {
                    text.append(b[i])
                }
                i += 1
            }
            i += 1
            let kind: ObjectiveCReader.Kind = quote == 39 ? .number : .string
            out.append(Token(kind: kind, text: String(decoding: text, as: UTF8.self), position: position(start)))
            return
        }
        if Self.isIdentifier(c) || (c == 64 && Self.isIdentifier(next) && !(next >= 48 && next <= 57)) {
            i += 1
            while i < b.count && Self.isIdentifier(b[i]) { i += 1 }
            let kind: ObjectiveCReader.Kind = c >= 48 && c <= 57 ? .number : .identifier
            out.append(
                Token(kind: kind, text: String(decoding: b[start..<i], as: UTF8.self), position: position(start)))
            return
        }
        let pair = String(decoding: b[i..<min(i + 2, b.count)], as: UTF8.self)
        let text = Self.twoCharacter.contains(pair) ? pair : String(UnicodeScalar(c))
        out.append(Token(kind: .punctuation, text: text, position: position(start)))
        i += text.utf8.count
    }
}
