/// Calls: Foundation's joins and folders, the app's own functions, and the storage APIs whose
/// files the app names by a call (Evaluation+Storage.swift).
extension Evaluation {
    mutating func call(_ callee: SourceExpr, _ arguments: [Argument], _ site: Site) -> Value {
        switch callee {
        case .member(let baseExpr, let n, _):
            let receiver = baseExpr.map { eval($0, site.file) } ?? .unknown
            let values = arguments.map { eval($0.value, site.file) }
            guard baseExpr != nil else { return implicitCall(n, values) }
            return memberCall(receiver, n, Call(arguments: arguments, values: values, site: site))
        case .name(let n, let type):
            let values = arguments.map { eval($0.value, site.file) }
            let c = Call(arguments: arguments, values: values, site: site)
            if let v = foundationCall(n, c) { return v }
            if storageCall(n, c) { return .unknown }
            if let v = instantiated(callees(n, type: type, count: values.count), c) { return v }
            return name(n, type: type)
        default:
            _ = eval(callee, site.file)
            for a in arguments { _ = eval(a.value, site.file) }
            return .unknown
        }
    }

    /// A call's arguments, their values and its site.
    struct Call {
        let arguments: [Argument]
        let values: [Value]
        let site: Site

        /// The value of the first argument labelled `label` (nil: the first unlabelled one).
        func value(_ label: String?) -> Value? {
            arguments.firstIndex { $0.label == label }.map { values[$0] }
        }

        func expression(_ label: String?) -> SourceExpr? {
            arguments.first { $0.label == label }?.value
        }

        var firstLabel: String? { arguments.first?.label }

        /// What `isDirectory:` or `directoryHint:` says of the last component.
        var folderHint: Bool? {
            switch expression("isDirectory") ?? expression("directoryHint") {
            case .string("true"), .member(nil, "isDirectory", _): return true
            case .string("false"), .member(nil, "notDirectory", _): return false
            default: return nil
            }
        }
    }

    /// `.identifier("group.x")` (SwiftData's group container).
    private func implicitCall(_ n: String, _ values: [Value]) -> Value {
        if n == "identifier", let id = values.first?.literal { return .groupContainer(id) }
        return .unknown
    }

    /// Foundation's functions and initializers that give a folder or a path.
    private mutating func foundationCall(_ n: String, _ c: Call) -> Value? {
        switch n {
        case "NSTemporaryDirectory":
            var tmp = PathValue(.home, ["tmp"])
            tmp.endsWithSlash = true
            return .path(tmp)
        case "NSHomeDirectory": return .path(PathValue(.home, []))
        case "NSSearchPathForDirectoriesInDomains":
            if case .path(let p) = c.values.first { return .list(p) }
            return .unknown
        case "URL", "NSURL":
            guard let path = c.value("fileURLWithPath") ?? c.value("filePath") else { return .unknown }
            if case .path(let base) = c.value("relativeTo") {
                return .path(
                    append(base, path.textPattern ?? String(wildcard), c.site, glue: false, folder: c.folderHint))
            }
            if case .path = path { return path }
            return .unknown
        case "String", "NSString":
            // `String(x)`, `NSString(string: x)`; `String(format:…)` and the rest are unknown.
            guard c.arguments.count == 1 else { return .unknown }
            return c.value(nil) ?? c.value("string") ?? c.value("describing") ?? .unknown
        default: return nil
        }
    }

    private mutating func memberCall(_ receiver: Value, _ n: String, _ c: Call) -> Value {
        switch (n, c.firstLabel) {
        case ("appendingPathComponent", _), ("appending", "path"), ("appending", "component"):
            return join(receiver, c.values.first ?? .unknown, c)
        case ("appending", "components"):
            var v = receiver
            for (i, value) in c.values.enumerated() where i == 0 || c.arguments[i].label == nil {
                v = join(v, value, c)
            }
            return v
        case ("appending", nil), ("appendingString", nil):
            return concat([receiver, c.values.first ?? .unknown], c.site)
        case ("appendingPathExtension", _):
            let ext = "." + (c.values.first?.textPattern ?? String(wildcard))
            if case .path = receiver { return concat([receiver, .text(ext)], c.site) }
            if case .text(let s) = receiver { return .text(PatternText.join(s, ext)) }
            switch receiver {
            case .unknown, .typeName: return .text(PatternText.join(String(wildcard), ext))  // `*.m3u`
            default: return .unknown
            }
        case ("deletingLastPathComponent", _):
            if case .path(let p) = receiver { return .path(Self.parent(p)) }
            return .unknown
        case ("deletingPathExtension", _):
            guard case .path(var p) = receiver, let last = p.components.last, let dot = last.lastIndex(of: ".") else {
                return .unknown
            }
            p.components[p.components.count - 1] = String(last[..<dot])
            return .path(p)
        case ("urls", "for"):
            if case .fileManager = receiver, case .path(let p) = c.values.first { return .list(p) }
            return .unknown
        case ("url", "for"):
            if case .fileManager = receiver, case .path(let p) = c.values.first { return .path(p) }
            return .unknown
        case ("containerURL", "forSecurityApplicationGroupIdentifier"):
            if case .fileManager = receiver, let id = c.values.first?.literal {
                return .path(PathValue(.appGroup(id), []))
            }
            return .unknown
        case ("path", _), ("standardized", _), ("resolvingSymlinksInPath", _), ("standardizingPath", _):
            if case .path = receiver { return receiver }
            return .unknown
        case ("first", "where"):
            if case .list(let p) = receiver { return .path(p) }
            return .unknown
        default:
            if storageMemberCall(n, c) { return .unknown }
            var type: String?
            if case .typeName(let t) = receiver { type = t }
            if let v = instantiated(callees(n, type: type, count: c.values.count), c) { return v }
            if case .typeName(let t) = receiver, let v = typed(n, in: t) { return v }
            if case .typeName = receiver { return name(n, type: nil) }
            return pathNamed(n)
        }
    }

    /// `receiver` joined with one component (or several, when the text holds `/`).
    private mutating func join(_ receiver: Value, _ component: Value, _ c: Call) -> Value {
        let text = component.textPattern ?? String(wildcard)
        switch receiver {
        case .path(let p): return .path(append(p, text, c.site, glue: false, folder: c.folderHint))
        case .text(let s): return .text(PatternText.join(s.hasSuffix("/") ? s : s + "/", text))
        default: return .unknown
        }
    }
}
