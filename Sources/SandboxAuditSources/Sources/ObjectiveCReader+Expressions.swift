/// Objective-C expressions read from tokens: message sends (`[docs stringByAppendingPathComponent:@"x"]`),
/// C calls, casts, dot syntax and subscripts, in the index's own form: a selector that builds a
/// path becomes the Swift call it is imported as (`appendingPathComponent`), so that one
/// evaluation reads both languages.
extension ObjectiveCReader {
    /// An expression starting at `i` (before `end`): its value and the index after it; nil when
    /// nothing there starts one.
    mutating func expression(_ i: Int, _ end: Int) -> (SourceExpr, Int)? {
        guard parseDepth < Self.maximumDepth else { return nil }
        parseDepth += 1
        defer { parseDepth -= 1 }
        guard let (first, after) = postfix(i, end) else { return nil }
        var operands = [first]
        var j = after
        let binary: Set<String> = [
            "+", "-", "*", "/", "|", "&", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "?", ":",
        ]
        while j < end, tokens[j].kind == .punctuation, binary.contains(tokens[j].text),
            let (next, k) = postfix(j + 1, end)
        {
            operands.append(next)
            j = k
        }
        return (operands.count == 1 ? first : .unknown(operands), j)
    }

    private mutating func postfix(_ i: Int, _ end: Int) -> (SourceExpr, Int)? {
        guard parseDepth < Self.maximumDepth else { return nil }
        parseDepth += 1
        defer { parseDepth -= 1 }
        guard var (value, j) = primary(i, end) else { return nil }
        while j + 1 < end {
            if tokens[j].text == ".", tokens[j + 1].kind == .identifier {
                value = .member(value, Self.property(tokens[j + 1].text), tokens[j + 1].position)
                j += 2
            } else if tokens[j].text == "[", let close = matching(j, end) {
                value = .element(value)
                j = close + 1
            } else {
                break
            }
        }
        return (value, j)
    }

    /// Dot syntax names as Swift imports them.
    static func property(_ name: String) -> String {
        switch name {
        case "firstObject": return "first"
        case "lastObject": return "last"
        case "defaultManager": return "default"
        default: return name
        }
    }

    private mutating func primary(_ i: Int, _ end: Int) -> (SourceExpr, Int)? {
        guard i < end else { return nil }
        let t = tokens[i]
        switch t.kind {
        case .string:
            var text = t.text
            var j = i + 1
            while j < end, tokens[j].kind == .string {
                text += tokens[j].text
                j += 1
            }
            return (.string(text), j)
        case .number:
            return (.string(t.text), i + 1)
        case .identifier:
            if i + 1 < end, tokens[i + 1].text == "(" {
                guard let close = matching(i + 1, end) else { return nil }
                let arguments = list(i + 2, close).map { Argument(label: nil, value: $0) }
                return (.call(.name(t.text, type: nil), arguments, at: t.position), close + 1)
            }
            if t.text == "self", i + 2 < end, tokens[i + 1].text == ".", tokens[i + 2].kind == .identifier {
                return (.name(tokens[i + 2].text, type: nil), i + 3)
            }
            return (identifier(t), i + 1)
        case .punctuation:
            switch t.text {
            case "[":
                guard let close = matching(i, end) else { return nil }
                return (message(i + 1, close), close + 1)
            case "(":
                guard let close = matching(i, end) else { return nil }
                if isCast(i + 1, close), let (value, j) = postfix(close + 1, end) { return (value, j) }
                return (expression(i + 1, close)?.0 ?? .anything, close + 1)
            case "@":
                guard i + 1 < end, let close = matching(i + 1, end) else { return nil }
                let elements = list(i + 2, close)
                // `@[x]`: an array of one, read as its element (`for (… in @[x])`, `[a firstObject]`).
                if tokens[i + 1].text == "[", elements.count == 1 { return (elements[0], close + 1) }
                // `@[]`: a loop over it adds nothing, as an empty component adds nothing to a path.
                if tokens[i + 1].text == "[", elements.isEmpty { return (.string(""), close + 1) }
                return (.unknown(elements), close + 1)
            case "!", "-", "&", "*", "~":
                return postfix(i + 1, end).map { (.unknown([$0.0]), $0.1) }
            default: return nil
            }
        }
    }

    private func identifier(_ t: Token) -> SourceExpr {
        let n = t.text
        if n.hasPrefix("NS"), StandardFolder.components(n) != nil { return .member(nil, n, t.position) }
        switch n {
        case "YES", "true": return .string("true")
        case "NO", "false": return .string("false")
        case "self", "super", "nil", "NULL", "return": return .anything
        case "NSFileManager": return .name("FileManager", type: nil)
        default: break
        }
        if let slot = names[n] { return .local(slot) }
        return .name(n.hasPrefix("_") && n.count > 1 ? String(n.dropFirst()) : n, type: nil)
    }

    /// `(NSString *)x`, `(id)x`: a type alone in parentheses, before something it casts.
    private func isCast(_ from: Int, _ close: Int) -> Bool {
        guard from < close, tokens[from].kind == .identifier, close + 1 < tokens.count else { return false }
        let rest = tokens[(from + 1)..<close]
        let next = tokens[close + 1]
        return rest.allSatisfy {
            $0.text == "*" || $0.kind == .identifier && ["const", "_Nonnull", "_Nullable"].contains($0.text)
        }
            && (next.kind != .punctuation || next.text == "[" || next.text == "(")
    }

    /// Comma-separated expressions between `from` and `end`.
    private mutating func list(_ from: Int, _ end: Int) -> [SourceExpr] {
        var values: [SourceExpr] = []
        var i = from
        while i < end {
            if let (value, next) = expression(i, end), next > i {
                values.append(value)
                i = next
            } else {
                i += 1
            }
        }
        return values
    }

    /// The index of the bracket that closes the one at `open`, before `end`.
    func matching(_ open: Int, _ end: Int) -> Int? {
        let close = Int(partners[open])
        return close > open && close < end ? close : nil
    }

    /// `[receiver selector]` or `[receiver part:argument part:argument…]`, between the brackets.
    private mutating func message(_ from: Int, _ end: Int) -> SourceExpr {
        guard from < end else { return .anything }
        var receiverName: String?
        var receiver: SourceExpr
        var i: Int
        if tokens[from].kind == .identifier, from + 1 < end, tokens[from + 1].kind == .identifier {
            receiverName = tokens[from].text
            receiver = identifier(tokens[from])
            i = from + 1
        } else if let (value, next) = expression(from, end) {
            receiver = value
            i = next
        } else {
            return .unknown(list(from, end))
        }
        guard i < end, tokens[i].kind == .identifier else { return .unknown([receiver] + list(i, end)) }
        let at = tokens[i].position
        var parts: [String] = []
        var arguments: [SourceExpr] = []
        if i + 1 == end {
            parts = [tokens[i].text]
        } else {
            while i + 1 < end, tokens[i].kind == .identifier, tokens[i + 1].text == ":" {
                parts.append(tokens[i].text)
                guard let (value, next) = expression(i + 2, end) else { break }
                arguments.append(value)
                i = next
                while i < end, tokens[i].text == ",", let (extra, k) = expression(i + 1, end) {
                    arguments.append(extra)
                    i = k
                }
            }
        }
        return Self.send(receiver, receiverName, parts, arguments, at)
    }

    /// A message as the Swift call it is imported as, where it builds a path.
    static func send(_ receiver: SourceExpr, _ name: String?, _ parts: [String], _ a: [SourceExpr], _ at: Position)
        -> SourceExpr
    {
        func call(_ member: String, _ labels: [String?]) -> SourceExpr {
            .call(.member(receiver, member, at), zip(labels, a).map { Argument(label: $0, value: $1) }, at: at)
        }
        switch parts.joined(separator: ":") {
        case "stringByAppendingPathComponent", "URLByAppendingPathComponent":
            return call("appendingPathComponent", [nil])
        case "URLByAppendingPathComponent:isDirectory": return call("appendingPathComponent", [nil, "isDirectory"])
        case "stringByAppendingPathExtension", "URLByAppendingPathExtension":
            return call("appendingPathExtension", [nil])
        case "stringByAppendingString": return .concat([receiver] + a.prefix(1), at: at)
        case "stringByAppendingFormat": return .concat([receiver, format(a, at)], at: at)
        case "URLsForDirectory:inDomains": return call("urls", ["for", "in"])
        case "URLForDirectory:inDomain:appropriateForURL:create:error": return call("url", ["for"])
        case "containerURLForSecurityApplicationGroupIdentifier":
            return call("containerURL", ["forSecurityApplicationGroupIdentifier"])
        case "defaultManager": return .member(receiver, "default", at)
        case "firstObject": return .member(receiver, "first", at)
        case "lastObject": return .member(receiver, "last", at)
        case "objectAtIndex": return .element(receiver)
        case "path", "relativePath", "absoluteURL", "URLByStandardizingPath", "stringByStandardizingPath":
            return .member(receiver, "path", at)
        case "URLByDeletingLastPathComponent", "stringByDeletingLastPathComponent":
            return call("deletingLastPathComponent", [])
        case "URLByDeletingPathExtension", "stringByDeletingPathExtension": return call("deletingPathExtension", [])
        case "fileURLWithPath", "fileURLWithPath:isDirectory", "fileURLWithPath:relativeToURL",
            "fileURLWithPath:isDirectory:relativeToURL":
            let labels = parts.map {
                ["fileURLWithPath": "fileURLWithPath", "isDirectory": "isDirectory"][$0] ?? "relativeTo"
            }
            return .call(.name("URL", type: nil), zip(labels, a).map { Argument(label: $0, value: $1) }, at: at)
        case "initWithSuiteName":
            return .call(
                .name("UserDefaults", type: nil), [Argument(label: "suiteName", value: a.first ?? .anything)], at: at)
        case "stringWithString", "initWithString": return a.first ?? .anything
        case "stringWithFormat", "initWithFormat": return format(a, at)
        case "alloc", "init", "new", "copy", "autorelease", "retain": return receiver
        default:
            let arguments = a.map { Argument(label: nil, value: $0) }
            if name == "self" || name?.first?.isUppercase == true, let first = parts.first {
                return .call(.name(first, type: nil), arguments, at: at)
            }
            return .call(.member(receiver, parts.first ?? "", at), arguments, at: at)
        }
    }

    /// `stringWithFormat:`: the format's text with each `%@` its argument, each other conversion
    /// (`%d`, `%ld`, `%02lu`…) unknown.
    static func format(_ a: [SourceExpr], _ at: Position) -> SourceExpr {
        guard case .string(let format)? = a.first else { return .anything }
        var parts: [SourceExpr] = []
        var text = ""
        var next = 1
        var chars = format.makeIterator()
        while let ch = chars.next() {
            guard ch == "%" else {
                text.append(ch)
                continue
            }
            var conversion = chars.next()
            while let c = conversion, "0123456789.-+ #lhqzjtL".contains(c) { conversion = chars.next() }
            if conversion == "%" {
                text.append("%")
                continue
            }
            parts.append(.string(text))
            text = ""
            parts.append(conversion == "@" && next < a.count ? a[next] : .anything)
            next += 1
        }
        parts.append(.string(text))
        return .interpolated(parts, at)
    }
}
