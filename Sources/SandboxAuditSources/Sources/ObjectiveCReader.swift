/// Reads an Objective-C file (`.m`, `.mm`, `.h`) as tokens, without a compiler: statements are
/// what lies between `;`, `{` and `}`; an assignment names a local (in a method or function, the
/// last one before the use) or, at the top of the file, a constant (`NSString *const kX = @"x";`);
/// `#define kX @"x"` is a constant too; a method or C function with one `return` is a
/// declaration of its name; and every expression met is read for the paths it builds.
struct ObjectiveCReader {
    enum Kind { case identifier, string, number, punctuation }

    struct Token {
        let kind: Kind
        let text: String
        let position: Position
    }

    /// A method or function being read: its name, the brace depth of its body, its returns, and
    /// the locals visible before it.
    struct Body {
        let name: String
        let depth: Int
        var returns: [SourceExpr] = []
        let outerNames: [String: Int]
    }

    var tokens: [Token] = []
    /// For each bracket, parenthesis or brace, the index of the one that closes it (-1: none).
    var partners: [Int32] = []
    var summary = FileSummary()
    var names: [String: Int] = [:]
    var body: Body?
    var parseDepth = 0

    /// The deepest nesting of brackets and calls read; deeper parts are unknown.
    static let maximumDepth = 128

    static func summary(of bytes: [UInt8]) -> FileSummary {
        var reader = ObjectiveCReader()
        reader.tokens = Tokenizer.tokens(bytes)
        reader.partners = Tokenizer.partners(reader.tokens)
        reader.statements()
        return reader.summary
    }

    private mutating func statements() {
        var start = 0
        var braces = 0
        for (i, token) in tokens.enumerated() where token.kind == .punctuation {
            guard token.text == ";" || token.text == "{" || token.text == "}" else { continue }
            statement(start..<i, opensBody: token.text == "{", depth: braces)
            start = i + 1
            if token.text == "{" { braces += 1 }
            if token.text == "}" {
                braces = max(0, braces - 1)
                if let b = body, braces < b.depth { endBody() }
            }
        }
        statement(start..<tokens.count, opensBody: false, depth: braces)
        if body != nil { endBody() }
    }

    private mutating func endBody() {
        guard let b = body else { return }
        summary.declarations.append(Declaration(name: b.name, type: nil, value: b.returns.count == 1 ? b.returns[0] : .anything))
        names = b.outerNames
        body = nil
    }

    private mutating func statement(_ range: Range<Int>, opensBody: Bool, depth: Int) {
        guard !range.isEmpty else { return }
        let first = tokens[range.lowerBound]
        if first.text == "#define", range.count >= 2, tokens[range.lowerBound + 1].kind == .identifier {
            let value = expression(range.lowerBound + 2, range.upperBound)?.0 ?? .anything
            summary.declarations.append(Declaration(name: tokens[range.lowerBound + 1].text, type: nil, value: value))
            return
        }
        if opensBody, body == nil, let header = header(range) {
            body = Body(name: header.name, depth: depth + 1, outerNames: names)
            for p in header.parameters { local(p, .anything) }
            return
        }
        var i = range.lowerBound
        var isReturn = false
        if first.text == "return" {
            isReturn = true
            i += 1
        }
        if let equals = topLevelAssignment(i, range.upperBound), equals > i,
            tokens[equals - 1].kind == .identifier
        {
            let value = expression(equals + 1, range.upperBound)?.0 ?? .anything
            assign(tokens[equals - 1].text, value, property: equals - 2 >= i && tokens[equals - 2].text == ".")
            return
        }
        var firstExpression = true
        while i < range.upperBound {
            if let (value, next) = expression(i, range.upperBound), next > i {
                if isReturn && firstExpression, body != nil { body!.returns.append(value) }
                firstExpression = false
                summary.statements.append(value)
                i = next
            } else {
                i += 1
            }
        }
    }

    /// `name = value`: inside a method a local (a property or an `_ivar` a declaration of the
    /// tree, by its name without `_`); at the top of the file a constant.
    private mutating func assign(_ name: String, _ value: SourceExpr, property: Bool) {
        if body == nil || property || name.hasPrefix("_") {
            let bare = name.hasPrefix("_") ? String(name.dropFirst()) : name
            summary.declarations.append(Declaration(name: bare, type: nil, value: value))
            summary.statements.append(value)
        } else {
            local(name, value)
        }
    }

    private mutating func local(_ name: String, _ value: SourceExpr) {
        summary.locals.append(value)
        names[name] = summary.locals.count - 1
    }

    /// The first `=` outside brackets and parentheses.
    private func topLevelAssignment(_ from: Int, _ end: Int) -> Int? {
        var nesting = 0
        for i in from..<end {
            switch tokens[i].text {
            case "(", "[": nesting += 1
            case ")", "]": nesting -= 1
            case "=" where nesting == 0 && tokens[i].kind == .punctuation: return i
            default: break
            }
        }
        return nil
    }

    /// A method (`- (NSString *)cacheFolder {`, `- (NSURL *)fileFor:(NSString *)key {`) or C
    /// function (`static NSString *CacheFolder(void) {`) about to open its body: its name and
    /// parameters.
    private func header(_ whole: Range<Int>) -> (name: String, parameters: [String])? {
        // Past `@end` and `@implementation Name`, which no `;` ends.
        var start = whole.lowerBound
        while start < whole.upperBound, tokens[start].text.hasPrefix("@") {
            start += tokens[start].text == "@end" ? 1 : 2
        }
        guard start < whole.upperBound else { return nil }
        let range = start..<whole.upperBound
        let t = tokens[range]
        guard let first = t.first else { return nil }
        if first.text == "-" || first.text == "+" {
            // The name follows the return type's parentheses; each parameter ends `:(type)name`.
            guard let close = t.firstIndex(where: { $0.text == ")" }), close + 1 < range.upperBound,
                tokens[close + 1].kind == .identifier
            else { return nil }
            var parameters: [String] = []
            var i = close + 2
            while i < range.upperBound {
                if tokens[i].text == ")", i + 1 < range.upperBound, tokens[i + 1].kind == .identifier,
                    i >= 1, tokens[i - 1].text != "("
                {
                    parameters.append(tokens[i + 1].text)
                }
                i += 1
            }
            return (tokens[close + 1].text, parameters)
        }
        guard first.kind == .identifier, !first.text.hasPrefix("@"), t.last?.text == ")",
            let open = t.firstIndex(where: { $0.text == "(" }), open > range.lowerBound,
            tokens[open - 1].kind == .identifier, !["if", "while", "for", "switch"].contains(tokens[open - 1].text)
        else { return nil }
        var parameters: [String] = []
        for i in (open + 1)..<range.upperBound where tokens[i].text == "," || tokens[i].text == ")" {
            if tokens[i - 1].kind == .identifier, tokens[i - 1].text != "void" { parameters.append(tokens[i - 1].text) }
        }
        return (tokens[open - 1].text, parameters)
    }
}

/// Objective-C's tokens: identifiers (with `@` for `@interface`), strings (`@"…"` and `"…"`,
/// unescaped), numbers and punctuation; comments dropped; preprocessor lines dropped but
/// `#define`, whose line ends with a `;` of its own.
enum Tokenizer {
    /// The closing partner of each opening bracket (`(`, `[`, `{`), found once for the file.
    static func partners(_ tokens: [ObjectiveCReader.Token]) -> [Int32] {
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

    static func tokens(_ b: [UInt8]) -> [ObjectiveCReader.Token] {
        var out: [ObjectiveCReader.Token] = []
        var i = 0
        var line: Int32 = 1
        var lineStart = 0
        var atLineStart = true
        var inDefine = false
        func position(_ at: Int) -> Position { Position(line: line, column: Int32(at - lineStart + 1)) }
        func isIdentifier(_ c: UInt8) -> Bool {
            (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 95 || c == 36 || c >= 128
        }
        while i < b.count {
            let c = b[i]
            let next: UInt8 = i + 1 < b.count ? b[i + 1] : 0
            if c == 10 {
                if inDefine && (i == 0 || b[i - 1] != 92) {
                    out.append(.init(kind: .punctuation, text: ";", position: position(i)))
                    inDefine = false
                }
                line += 1
                lineStart = i + 1
                atLineStart = true
                i += 1
                continue
            }
            if c == 32 || c == 9 || c == 13 || c == 92 {
                i += 1
                continue
            }
            if c == 47 && next == 47 {
                while i < b.count && b[i] != 10 { i += 1 }
                continue
            }
            if c == 47 && next == 42 {
                i += 2
                while i < b.count && !(b[i] == 42 && i + 1 < b.count && b[i + 1] == 47) {
                    if b[i] == 10 {
                        line += 1
                        lineStart = i + 1
                    }
                    i += 1
                }
                i += 2
                continue
            }
            let start = i
            if c == 35 && atLineStart {
                var j = i + 1
                while j < b.count && (b[j] == 32 || b[j] == 9) { j += 1 }
                var k = j
                while k < b.count && isIdentifier(b[k]) { k += 1 }
                if String(decoding: b[j..<k], as: UTF8.self) == "define" {
                    out.append(.init(kind: .punctuation, text: "#define", position: position(start)))
                    inDefine = true
                    i = k
                } else {
                    while i < b.count && !(b[i] == 10 && b[i - 1] != 92) { i += 1 }
                }
                continue
            }
            atLineStart = false
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
                out.append(.init(kind: kind, text: String(decoding: text, as: UTF8.self), position: position(start)))
                continue
            }
            if isIdentifier(c) || (c == 64 && isIdentifier(next) && !(next >= 48 && next <= 57)) {
                i += 1
                while i < b.count && isIdentifier(b[i]) { i += 1 }
                let number = c >= 48 && c <= 57
                out.append(
                    .init(
                        kind: number ? .number : .identifier, text: String(decoding: b[start..<i], as: UTF8.self),
                        position: position(start)))
                continue
            }
            let pair = String(decoding: b[i..<min(i + 2, b.count)], as: UTF8.self)
            let twoCharacter = ["==", "!=", "<=", ">=", "&&", "||", "->", "++", "--", "+=", "-=", "*=", "/=", "|=", "&="]
            let text = twoCharacter.contains(pair) ? pair : String(UnicodeScalar(c))
            out.append(.init(kind: .punctuation, text: text, position: position(start)))
            i += text.utf8.count
        }
        return out
    }
}
