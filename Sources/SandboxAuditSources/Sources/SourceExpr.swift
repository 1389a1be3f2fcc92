/// What the readers keep of a source file: its expressions in a small form of their own, so
/// that the syntax tree (many times the file's size) is dropped as soon as the file is read, and
/// the evaluation that follows sees Swift and Objective-C alike.

/// A place in a file: 1-based line, and column in UTF-8 bytes.
struct Position: Hashable, Sendable {
    let line: Int32
    let column: Int32
}

/// An expression, as far as it can build a path. What is not understood is `unknown`, with the
/// parts inside it that may still build one (a call's arguments), evaluated for those alone.
indirect enum SourceExpr: Sendable, Equatable {
    /// A string with no interpolation (unescaped), or a number's text.
    case string(String)
    /// An interpolated string: its literal pieces as `string`, its interpolations as expressions.
    case interpolated([SourceExpr], Position)
    /// A name declared outside the function being read: a member, a constant, a function, a type.
    /// `type` is the type it is read in (for `Self.name`, `self.name` and a bare `name`).
    case name(String, type: String?)
    /// A local of the same file: the index of its slot (`FileSummary.locals`).
    case local(Int)
    /// `base.name`, or `.name` (an implicit member) when `base` is nil.
    case member(SourceExpr?, String, Position)
    /// A call: what is called and its arguments; `at` is where the call names what it calls
    /// (the member's name in `a.appendingPathComponent("x")`).
    case call(SourceExpr, [Argument], at: Position)
    /// `x[i]`: any index reads the first element.
    case element(SourceExpr)
    /// `a + b + …` (and `a.appending(b)`): one string; `at` is the last operand with literal text.
    case concat([SourceExpr], at: Position)
    /// `a ?? b`, `c ? a : b`: the first one that is known.
    case either([SourceExpr])
    /// A function's or method's parameter, by its position: unknown, except while the function
    /// is evaluated for a call that passes it a known value (`Evaluation+Instances.swift`).
    case parameter(Int)
    /// Not understood: a value that may be anything (a runtime value).
    case unknown([SourceExpr])

    static let anything = SourceExpr.unknown([])
}

/// One argument of a call, with its label (nil when unlabelled).
struct Argument: Sendable, Equatable {
    let label: String?
    let value: SourceExpr
}

/// A name declared at the top of a file or in a type: a constant, a stored or computed property,
/// a function with one `return` (its parameters are `unknown`), an Objective-C constant, `#define`
/// or method.
struct Declaration: Sendable {
    let name: String
    /// The innermost type (or extended type) it is declared in; nil at the top of a file.
    let type: String?
    let value: SourceExpr
    /// How many parameters it has, when it is a function or a method.
    var parameterCount = 0
}

/// What one file gives the index.
struct FileSummary: Sendable {
    /// The values of the file's locals, by slot.
    var locals: [SourceExpr] = []
    /// Every expression of the file not inside another: evaluated for the paths they build.
    var statements: [SourceExpr] = []
    var declarations: [Declaration] = []
    /// Set when the file could not be read whole (the reason, as `SkippedSource` says it).
    var problem: String?
}
