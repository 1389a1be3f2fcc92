import SwiftSyntax

/// Swift expressions in the index's own form (`SourceExpr`). Operators are not folded by the
/// parser: a `SequenceExprSyntax` is read here (`+`, `??`, `? :`, `as`, `=`).
extension SwiftReader {
    func convert(_ e: ExprSyntax) -> SourceExpr {
        guard depth < Self.maximumExpressionDepth else { return .anything }
        depth += 1
        defer { depth -= 1 }
        switch e.as(ExprSyntaxEnum.self) {
        case .stringLiteralExpr(let s): return string(s)
        case .integerLiteralExpr(let i): return .string(i.literal.text)
        case .booleanLiteralExpr(let b): return .string(b.literal.text)
        case .declReferenceExpr(let r): return reference(r.baseName.text)
        case .memberAccessExpr(let m):
            let n = m.declName.baseName.text
            guard let base = m.base else { return .member(nil, n, position(m.declName)) }
            if let r = base.as(DeclReferenceExprSyntax.self), r.baseName.text == "self" || r.baseName.text == "Self" {
                return .name(n, type: types.last)
            }
            return .member(convert(base), n, position(m.declName))
        case .functionCallExpr(let c): return call(c)
        case .subscriptCallExpr(let s): return .element(convert(s.calledExpression))
        case .forceUnwrapExpr(let x): return convert(x.expression)
        case .optionalChainingExpr(let x): return convert(x.expression)
        case .tryExpr(let x): return convert(x.expression)
        case .awaitExpr(let x): return convert(x.expression)
        case .unsafeExpr(let x): return convert(x.expression)
        case .asExpr(let x): return convert(x.expression)
        case .genericSpecializationExpr(let x): return convert(x.expression)
        case .tupleExpr(let t):
            if t.elements.count == 1, let only = t.elements.first, only.label == nil { return convert(only.expression) }
            return .unknown(t.elements.map { convert($0.expression) })
        case .arrayExpr(let a): return .unknown(a.elements.map { convert($0.expression) })
        case .sequenceExpr(let s): return sequence(Array(s.elements))
        case .infixOperatorExpr(let x):
            return binary(
                x.operator.trimmedDescription, [convert(x.leftOperand), convert(x.rightOperand)], position(e))
        case .ternaryExpr(let x):
            return .either([convert(x.thenExpression), convert(x.elseExpression), convert(x.condition)])
        case .closureExpr:
            pending.append(Syntax(e))
            return .anything
        case .nilLiteralExpr, .floatLiteralExpr, .typeExpr, .superExpr, .keyPathExpr, .regexLiteralExpr,
            .discardAssignmentExpr, .editorPlaceholderExpr, .missingExpr:
            return .anything
        default:
            pending.append(Syntax(e))
            return .anything
        }
    }

    /// A name: a local of an enclosing function or closure, else a declaration of the tree.
    func reference(_ n: String) -> SourceExpr {
        for frame in frames.reversed() {
            if let slot = frame.names[n] { return .local(slot) }
        }
        return n == "self" || n == "super" ? .anything : .name(n, type: types.last)
    }

    func string(_ s: StringLiteralExprSyntax) -> SourceExpr {
        if let value = s.representedLiteralValue { return .string(value) }
        var parts: [SourceExpr] = []
        for segment in s.segments {
            switch segment {
            case .stringSegment(let text): parts.append(.string(Self.unescaped(text.content.text)))
            case .expressionSegment(let interpolation):
                parts.append(interpolation.expressions.first.map { convert($0.expression) } ?? .anything)
            }
        }
        return .interpolated(parts, position(s))
    }

    /// The common escapes of a string segment's source text.
    static func unescaped(_ raw: String) -> String {
        guard raw.contains("\\") else { return raw }
        var out = ""
        var escaping = false
        for ch in raw {
            if escaping {
                switch ch {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "0": out.append(wildcard)
                default: out.append(ch)
                }
                escaping = false
            } else if ch == "\\" {
                escaping = true
            } else {
                out.append(ch)
            }
        }
        return out
    }

    func call(_ c: FunctionCallExprSyntax) -> SourceExpr {
        var arguments = c.arguments.map { Argument(label: $0.label?.text, value: convert($0.expression)) }
        if let closure = c.trailingClosure { pending.append(Syntax(closure)) }
        for extra in c.additionalTrailingClosures { pending.append(Syntax(extra.closure)) }
        // `{ … }()`: the closure's one return, once it is read.
        if let closure = c.calledExpression.as(ClosureExprSyntax.self) {
            summary.locals.append(.anything)
            closureSlots[closure.id] = summary.locals.count - 1
            pending.append(Syntax(closure))
            arguments.removeAll()
            return .local(summary.locals.count - 1)
        }
        let callee = convert(c.calledExpression)
        let at: Position
        if let m = c.calledExpression.as(MemberAccessExprSyntax.self) {
            at = position(m.declName)
        } else {
            at = position(c.calledExpression)
        }
        return .call(callee, arguments, at: at)
    }

    /// An unfolded operator sequence: assignment, then `? :`, then `??`, then `+` (what builds
    /// paths); any other operator makes the value unknown, its operands still read.
    func sequence(_ elements: [ExprSyntax]) -> SourceExpr {
        if elements.count == 1 { return convert(elements[0]) }
        if let i = elements.firstIndex(where: { $0.is(AssignmentExprSyntax.self) }) {
            let value = sequence(Array(elements[(i + 1)...]))
            if i == 1, let member = assignedMember(elements[0]) {
                summary.declarations.append(Declaration(name: member, type: types.last, value: value))
            } else if i == 1, !frames.isEmpty, let r = elements[0].as(DeclReferenceExprSyntax.self),
                case .local(let slot) = reference(r.baseName.text), summary.locals[slot] == .anything
            {
                declareLocal(r.baseName.text, value)  // `var x: T` given its value later: the first one
            }
            return .unknown([value])
        }
        if let i = elements.firstIndex(where: { $0.is(UnresolvedTernaryExprSyntax.self) }),
            let ternary = elements[i].as(UnresolvedTernaryExprSyntax.self)
        {
            return .either([
                convert(ternary.thenExpression), sequence(Array(elements[(i + 1)...])), sequence(Array(elements[..<i])),
            ])
        }
        var operands: [[ExprSyntax]] = [[]]
        var operators: [String] = []
        var skipType = false
        for element in elements {
            if skipType {
                skipType = false
                continue
            }
            if element.is(UnresolvedAsExprSyntax.self) || element.is(UnresolvedIsExprSyntax.self) {
                skipType = true
            } else if let op = element.as(BinaryOperatorExprSyntax.self) {
                operators.append(op.operator.text)
                operands.append([])
            } else {
                operands[operands.count - 1].append(element)
            }
        }
        guard operands.allSatisfy({ $0.count == 1 }) else { return .unknown(elements.map { convert($0) }) }
        let values = operands.map { convert($0[0]) }
        if let split = operators.firstIndex(of: "??") {
            return .either([
                chain(Array(values[...split]), Array(operators[..<split]), operands[0][0]),
                chain(Array(values[(split + 1)...]), Array(operators[(split + 1)...]), operands[split + 1][0]),
            ])
        }
        let literal = values.lastIndex { value in
            if case .string = value { return true }
            if case .interpolated = value { return true }
            return false
        }
        return chain(values, operators, operands[literal ?? 0][0])
    }

    /// The property `self.name = …` (or `name = …`, no local of that name) assigns, in a type.
    func assignedMember(_ target: ExprSyntax) -> String? {
        guard !types.isEmpty else { return nil }
        if let m = target.as(MemberAccessExprSyntax.self),
            m.base?.as(DeclReferenceExprSyntax.self)?.baseName.tokenKind == .keyword(.self)
        {
            return m.declName.baseName.text
        }
        guard let r = target.as(DeclReferenceExprSyntax.self), case .name = reference(r.baseName.text) else {
            return nil
        }
        return r.baseName.text
    }

    private func chain(_ values: [SourceExpr], _ operators: [String], _ site: ExprSyntax) -> SourceExpr {
        if values.count == 1 { return values[0] }
        if operators.allSatisfy({ $0 == "+" }) { return .concat(values, at: position(site)) }
        if operators.contains("??") { return .either(values) }
        return .unknown(values)
    }

    private func binary(_ op: String, _ operands: [SourceExpr], _ at: Position) -> SourceExpr {
        switch op {
        case "+": return .concat(operands, at: at)
        case "??": return .either(operands)
        default: return .unknown(operands)
        }
    }
}
