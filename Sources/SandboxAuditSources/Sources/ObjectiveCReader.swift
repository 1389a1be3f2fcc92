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
        var parameterCount = 0
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
    static let maximumDepth = 64

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
        summary.declarations.append(
            Declaration(
                name: b.name, type: nil, value: b.returns.count == 1 ? b.returns[0] : .anything,
                parameterCount: b.parameterCount))
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
            body = Body(name: header.name, depth: depth + 1, parameterCount: header.parameters.count, outerNames: names)
            for (i, p) in header.parameters.enumerated() { local(p, .parameter(i)) }
            return
        }
        if first.text == "for", let (name, value, next) = forIn(range) {
            local(name, value)
            statement(next..<range.upperBound, opensBody: false, depth: depth)
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

    /// `for (Type *name in collection)`: the loop's variable, read as the collection's element,
    /// and where its statement starts.
    private mutating func forIn(_ range: Range<Int>) -> (String, SourceExpr, Int)? {
        let open = range.lowerBound + 1
        guard open < range.upperBound, tokens[open].text == "(", let close = matching(open, range.upperBound),
            let inToken = (open..<close).first(where: { tokens[$0].text == "in" }), inToken > open + 1,
            tokens[inToken - 1].kind == .identifier
        else { return nil }
        let collection = expression(inToken + 1, close)?.0 ?? .anything
        return (tokens[inToken - 1].text, .element(collection), close + 1)
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
