import SwiftParser
import SwiftSyntax

/// Reads one Swift file with SwiftParser into a `FileSummary`: its declarations (constants,
/// properties, one-`return` functions) by name, its locals by slot, and every expression not
/// inside another, for the paths they build. `#if` is read as it is for iOS.
final class SwiftReader: SyntaxAnyVisitor {
    /// A function's, accessor's or closure's names and returns.
    struct Frame {
        var names: [String: Int] = [:]
        var returns: [SourceExpr] = []
        /// The one statement of a body that is its value (`{ base.appendingPathComponent("x") }`).
        var implicitReturn: SyntaxIdentifier?
    }

    var summary = FileSummary()
    let lines: LineTable
    var types: [String] = []
    var frames: [Frame] = []
    /// The frames of the functions around a type declared inside one (its members are not locals).
    var outerFrames: [[Frame]] = []
    /// Nodes met inside an expression whose own statements and expressions are read after it.
    var pending: [Syntax] = []
    /// The slot that holds the value of a closure called where it is written (`{ … }()`).
    var closureSlots: [SyntaxIdentifier: Int] = [:]
    var depth = 0

    /// The deepest nesting the parser reads (SwiftParser's own default is 256 in a release build
    /// and 20 in a debug one); `SwiftNesting` refuses a file deeper than this before parsing it.
    static let maximumNestingLevel = SwiftNesting.maximumDepth + 16
    /// The deepest expression converted; deeper parts are unknown.
    static let maximumExpressionDepth = 64

    init(lines: LineTable) {
        self.lines = lines
        super.init(viewMode: .sourceAccurate)
    }

    /// The file's summary; nil when it nests deeper than `deepest` (to be read on a thread with
    /// a larger stack).
    static func summary(of text: String, deepest: Int?) -> FileSummary? {
        var text = text
        switch text.withUTF8({ SwiftNesting.measure($0) }) {
        case .refused(let reason):
            var refused = FileSummary()
            refused.problem = reason
            return refused
        case .depth(let depth):
            if let deepest, depth > deepest { return nil }
        }
        let tree = text.withUTF8 { Parser.parse(source: $0, maximumNestingLevel: maximumNestingLevel) }
        let reader = SwiftReader(lines: LineTable(text.utf8))
        reader.walk(tree)
        return reader.summary
    }

    func position(_ node: some SyntaxProtocol) -> Position {
        lines.position(node.positionAfterSkippingLeadingTrivia.utf8Offset)
    }

    // MARK: Statements

    override func visitAny(_ node: Syntax) -> SyntaxVisitorContinueKind {
        guard let expr = node.as(ExprSyntax.self) else { return .visitChildren }
        let value = convert(expr)
        if let last = frames.indices.last, frames[last].implicitReturn == node.id { frames[last].returns.append(value) }
        summary.statements.append(value)
        drain()
        return .skipChildren
    }

    override func visit(_ node: ReturnStmtSyntax) -> SyntaxVisitorContinueKind {
        guard let expr = node.expression else { return .skipChildren }
        let value = convert(expr)
        if !frames.isEmpty { frames[frames.count - 1].returns.append(value) }
        summary.statements.append(value)
        drain()
        return .skipChildren
    }

    /// Reads the nodes `convert` left: a closure in a frame of its own, anything else by its children.
    func drain() {
        while let node = pending.popLast() {
            if let closure = node.as(ClosureExprSyntax.self) {
                var names: [String] = []
                switch closure.signature?.parameterClause {
                case .simpleInput(let list)?: names = list.map(\.name.text)
                case .parameterClause(let clause)?:
                    names = clause.parameters.map { ($0.secondName ?? $0.firstName).text }
                case nil: break
                }
                let value = body(closure.statements, parameters: names)
                if let slot = closureSlots[closure.id] { summary.locals[slot] = value }
            } else {
                for child in node.children(viewMode: .sourceAccurate) { walk(child) }
            }
        }
    }

    /// Walks `statements` in a frame of its own with `parameters` unknown; the value is its one
    /// `return` (or its one expression), else unknown.
    func body(_ statements: CodeBlockItemListSyntax, parameters: [String], numbered: Bool = false) -> SourceExpr {
        var frame = Frame()
        if statements.count == 1, let only = statements.first, only.item.is(ExprSyntax.self) {
            frame.implicitReturn = only.item.id
        }
        frames.append(frame)
        for (i, p) in parameters.enumerated() where p != "_" { declareLocal(p, numbered ? .parameter(i) : .anything) }
        walk(statements)
        let done = frames.removeLast()
        return done.returns.count == 1 ? done.returns[0] : .anything
    }

    func declareLocal(_ name: String, _ value: SourceExpr) {
        summary.locals.append(value)
        frames[frames.count - 1].names[name] = summary.locals.count - 1
    }

    /// A value with a name: a local inside a function, else a declaration of the tree.
    func declare(_ name: String, _ value: SourceExpr) {
        if frames.isEmpty {
            summary.declarations.append(Declaration(name: name, type: types.last, value: value))
        } else {
            declareLocal(name, value)
        }
    }

    // MARK: Declarations

    override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
        for binding in node.bindings {
            let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
            var value = SourceExpr.anything
            if let initializer = binding.initializer {
                value = convert(initializer.value)
                if name == nil { summary.statements.append(value) }
                drain()
            }
            switch binding.accessorBlock?.accessors {
            case .getter(let statements)?:
                value = body(statements, parameters: [])
            case .accessors(let accessors)?:
                for accessor in accessors {
                    guard let statements = accessor.body?.statements else { continue }
                    let v = body(statements, parameters: ["newValue", "oldValue"])
                    if accessor.accessorSpecifier.tokenKind == .keyword(.get) { value = v }
                }
            case nil: break
            }
            if let name { declare(name, value) }
        }
        return .skipChildren
    }

    override func visit(_ node: FunctionDeclSyntax) -> SyntaxVisitorContinueKind {
        walk(node.signature)
        guard let statements = node.body?.statements else { return .skipChildren }
        let parameters = node.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text }
        let value = body(statements, parameters: parameters, numbered: true)
        summary.declarations.append(
            Declaration(name: node.name.text, type: types.last, value: value, parameterCount: parameters.count))
        return .skipChildren
    }

    override func visit(_ node: InitializerDeclSyntax) -> SyntaxVisitorContinueKind {
        walk(node.signature)
        let parameters = node.signature.parameterClause.parameters.map { ($0.secondName ?? $0.firstName).text }
        if let statements = node.body?.statements { _ = body(statements, parameters: parameters) }
        return .skipChildren
    }

    override func visit(_ node: AccessorDeclSyntax) -> SyntaxVisitorContinueKind {
        if let statements = node.body?.statements { _ = body(statements, parameters: ["newValue", "oldValue"]) }
        return .skipChildren
    }

    override func visit(_ node: OptionalBindingConditionSyntax) -> SyntaxVisitorContinueKind {
        guard let initializer = node.initializer else { return .skipChildren }
        let value = convert(initializer.value)
        drain()
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text { declare(name, value) }
        return .skipChildren
    }

    override func visit(_ node: IfConfigDeclSyntax) -> SyntaxVisitorContinueKind {
        for clause in CompilationCondition.activeClauses(node) {
            switch clause.elements {
            case .statements(let s)?: walk(s)
            case .decls(let d)?: walk(d)
            case .switchCases(let c)?: walk(c)
            case .postfixExpression(let e)?: walk(e)
            case .attributes, nil: break
            }
        }
        return .skipChildren
    }

    // MARK: Types

    func enter(_ name: String) -> SyntaxVisitorContinueKind {
        types.append(name)
        outerFrames.append(frames)
        frames = []
        return .visitChildren
    }

    func leave() {
        types.removeLast()
        frames = outerFrames.removeLast()
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { enter(node.name.text) }
    override func visitPost(_ node: StructDeclSyntax) { leave() }
    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { enter(node.name.text) }
    override func visitPost(_ node: ClassDeclSyntax) { leave() }
    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { enter(node.name.text) }
    override func visitPost(_ node: EnumDeclSyntax) { leave() }
    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind { enter(node.name.text) }
    override func visitPost(_ node: ActorDeclSyntax) { leave() }
    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { enter(node.name.text) }
    override func visitPost(_ node: ProtocolDeclSyntax) { leave() }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        let type = node.extendedType.trimmedDescription
        let last = type.split(separator: ".").last.map { String($0.prefix { $0 != "<" }) } ?? type
        return enter(last)
    }
    override func visitPost(_ node: ExtensionDeclSyntax) { leave() }
}

/// Line starts of a file, for the line and column of a byte offset.
struct LineTable {
    private var starts: [Int] = [0]

    init(_ bytes: some Sequence<UInt8>) {
        for (i, b) in bytes.enumerated() where b == UInt8(ascii: "\n") { starts.append(i + 1) }
    }

    func position(_ offset: Int) -> Position {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return Position(line: Int32(low + 1), column: Int32(offset - starts[low] + 1))
    }
}
