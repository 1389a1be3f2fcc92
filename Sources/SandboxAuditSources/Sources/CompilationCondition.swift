import SwiftSyntax

/// `#if` as it is when the app is built for iOS: `os(iOS)` and `canImport(UIKit)` hold,
/// `os(macOS)` does not, and what depends on the build (`DEBUG`, `targetEnvironment(simulator)`,
/// `arch(…)`, a module the index cannot know) is undecided: the clauses it guards are all read,
/// as one of them is what the app runs. Apple, "Conditional Compilation Block" (The Swift
/// Programming Language), https://docs.swift.org/swift-book/documentation/the-swift-programming-language/statements/.
enum CompilationCondition {
    enum Truth {
        case yes, no, unknown

        static prefix func ! (t: Truth) -> Truth {
            switch t {
            case .yes: return .no
            case .no: return .yes
            case .unknown: return .unknown
            }
        }
    }

    /// The clauses read for iOS: up to the first that holds, and every undecided one before it.
    static func activeClauses(_ node: IfConfigDeclSyntax) -> [IfConfigClauseSyntax] {
        var active: [IfConfigClauseSyntax] = []
        for clause in node.clauses {
            let truth = clause.condition.map { evaluate($0, depth: 0) } ?? .yes
            if truth != .no { active.append(clause) }
            if truth == .yes { break }
        }
        return active
    }

    static let platforms: Set<String> = [
        "macOS", "OSX", "watchOS", "tvOS", "visionOS", "Linux", "Windows", "Android", "FreeBSD", "OpenBSD", "WASI",
        "Haiku", "PS4", "Cygwin", "none",
    ]
    /// Modules an iOS app can import, and modules it cannot.
    static let iOSModules: Set<String> = [
        "UIKit", "Foundation", "SwiftUI", "CoreData", "SwiftData", "Combine", "CoreML", "ActivityKit", "WidgetKit",
        "Darwin", "MobileCoreServices", "CoreTelephony", "ARKit",
    ]
    static let otherModules: Set<String> = ["AppKit", "Cocoa", "WatchKit", "Glibc", "Musl", "WinSDK", "Android"]

    static func evaluate(_ e: ExprSyntax, depth: Int) -> Truth {
        guard depth < 64 else { return .unknown }
        if let p = e.as(PrefixOperatorExprSyntax.self), p.operator.text == "!" {
            return !evaluate(p.expression, depth: depth + 1)
        }
        if let t = e.as(TupleExprSyntax.self), t.elements.count == 1, let only = t.elements.first {
            return evaluate(only.expression, depth: depth + 1)
        }
        if let b = e.as(BooleanLiteralExprSyntax.self) { return b.literal.tokenKind == .keyword(.true) ? .yes : .no }
        if let i = e.as(InfixOperatorExprSyntax.self) {
            return combine(
                evaluate(i.leftOperand, depth: depth + 1), i.operator.trimmedDescription,
                evaluate(i.rightOperand, depth: depth + 1))
        }
        if let s = e.as(SequenceExprSyntax.self) { return sequence(Array(s.elements), depth: depth) }
        guard let call = e.as(FunctionCallExprSyntax.self),
            let function = call.calledExpression.as(DeclReferenceExprSyntax.self)?.baseName.text
        else { return .unknown }
        let argument = call.arguments.first?.expression.trimmedDescription ?? ""
        switch function {
        case "os": return argument == "iOS" ? .yes : platforms.contains(argument) ? .no : .unknown
        case "canImport":
            let module = String(argument.prefix { $0 != "." })
            return iOSModules.contains(module) ? .yes : otherModules.contains(module) ? .no : .unknown
        case "targetEnvironment": return argument == "macCatalyst" ? .no : .unknown
        case "swift", "compiler", "hasFeature", "hasAttribute": return .yes
        default: return .unknown
        }
    }

    /// `a || b && c`: `&&` binds tighter.
    private static func sequence(_ elements: [ExprSyntax], depth: Int) -> Truth {
        var terms: [[Truth]] = [[]]
        for element in elements {
            if let op = element.as(BinaryOperatorExprSyntax.self) {
                if op.operator.text == "||" { terms.append([]) }
                continue
            }
            terms[terms.count - 1].append(evaluate(element, depth: depth + 1))
        }
        return terms.map { $0.reduce(Truth.yes) { combine($0, "&&", $1) } }.reduce(Truth.no) { combine($0, "||", $1) }
    }

    private static func combine(_ a: Truth, _ op: String, _ b: Truth) -> Truth {
        switch op {
        case "&&": return a == .no || b == .no ? .no : a == .yes && b == .yes ? .yes : .unknown
        case "||": return a == .yes || b == .yes ? .yes : a == .no && b == .no ? .no : .unknown
        default: return .unknown
        }
    }
}
