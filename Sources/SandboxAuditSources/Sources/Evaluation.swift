/// The files' expressions evaluated once the whole tree is read: names resolved across files,
/// and every path a join builds recorded with the site that named it.
struct Evaluation {
    let files: [FileSummary]
    /// Every declaration of the tree, with the file it is in.
    let declarations: [(file: Int32, declaration: Declaration)]
    /// Declarations by name, and by name and type (nil: at the top of a file).
    let byName: [String: [Int]]
    let byType: [Key: [Int]]

    struct Key: Hashable {
        let name: String
        let type: String?
    }
    private var localValues: [[Value?]]
    private var declarationValues: [Value?]
    /// Every path built, with the site that named it.
    private(set) var built: Set<PathValue> = []
    private var depth = 0
    /// The call a function is being evaluated for, its parameters bound (Evaluation+Instances.swift).
    var instance: Instance?
    /// How many times each declaration was evaluated for a call.
    var instanceCounts: [Int: Int] = [:]

    /// How deep one evaluation goes (names through names, calls in calls): past it, a value is unknown.
    static let maximumDepth = 128
    /// The most components a path is given: past it, a join adds nothing (and records nothing).
    static let maximumComponents = 64
    /// How many declarations of one name are tried when a name is ambiguous.
    static let maximumAlternatives = 8

    init(files: [FileSummary]) {
        self.files = files
        var declarations: [(file: Int32, declaration: Declaration)] = []
        var byName: [String: [Int]] = [:]
        var byType: [Key: [Int]] = [:]
        for (f, file) in files.enumerated() {
            for d in file.declarations {
                byName[d.name, default: []].append(declarations.count)
                byType[Key(name: d.name, type: d.type), default: []].append(declarations.count)
                declarations.append((Int32(f), d))
            }
        }
        self.declarations = declarations
        self.byName = byName
        self.byType = byType
        localValues = files.map { [Value?](repeating: nil, count: $0.locals.count) }
        declarationValues = [Value?](repeating: nil, count: declarations.count)
    }

    /// Evaluates every local, statement and declaration of the tree once.
    mutating func run() {
        for f in files.indices {
            for slot in files[f].locals.indices { _ = local(slot, Int32(f)) }
            for statement in files[f].statements { _ = eval(statement, Int32(f)) }
        }
        for d in declarations.indices { _ = declaration(d) }
    }

    mutating func eval(_ e: SourceExpr, _ file: Int32) -> Value {
        guard depth < Self.maximumDepth else { return .unknown }
        depth += 1
        defer { depth -= 1 }
        switch e {
        case .string(let s): return .text(s)
        case .interpolated(let parts, let at), .concat(let parts, let at):
            return concat(parts.map { eval($0, file) }, Site(file: file, position: at))
        case .name(let n, let type): return name(n, type: type)
        case .local(let slot): return local(slot, file)
        case .member(let base, let n, _): return member(base, n, file)
        case .call(let callee, let arguments, let at): return call(callee, arguments, Site(file: file, position: at))
        case .parameter(let i):
            guard let instance, i < instance.values.count else { return .unknown }
            return instance.values[i]
        case .element(let base):
            switch eval(base, file) {
            case .list(let p): return .path(p)
            case .text(let s): return .text(s)  // an array of one read as its element (`@[x]`)
            default: return .unknown
            }
        case .either(let choices):
            var first = Value.unknown
            for c in choices {
                let v = eval(c, file)
                if first == .unknown { first = v }
            }
            return first
        case .unknown(let parts):
            for p in parts { _ = eval(p, file) }
            return .unknown
        }
    }

    private mutating func local(_ slot: Int, _ file: Int32) -> Value {
        let f = Int(file)
        guard slot < localValues[f].count else { return .unknown }
        if instance != nil { return instanceLocal(slot, file) }
        if let v = localValues[f][slot] { return v }
        localValues[f][slot] = .unknown  // a cycle reads it as unknown
        let v = eval(files[f].locals[slot], file)
        localValues[f][slot] = v
        return v
    }

    mutating func declaration(_ d: Int) -> Value {
        if let v = declarationValues[d] { return v }
        let outer = instance
        instance = nil  // a declaration's own value binds no parameter
        defer { instance = outer }
        declarationValues[d] = .unknown
        let v = eval(declarations[d].declaration.value, declarations[d].file)
        declarationValues[d] = v
        return v
    }

    /// The value several declarations of one name agree on (their sites aside), else unknown.
    mutating func agreed(_ pool: [Int]) -> Value {
        // A property declared without a value, given one elsewhere (`self.x = …` in `init`).
        let valued = pool.filter { declarations[$0].declaration.value != .anything }
        let pool = valued.isEmpty ? pool : valued
        guard !pool.isEmpty, pool.count <= Self.maximumAlternatives else { return .unknown }
        // Declarations the evaluation cannot read (a Swift mirror of an Objective-C macro) are
        // left out when others can be.
        let known = pool.filter { declaration($0) != .unknown }
        guard let head = known.first else { return .unknown }
        let first = declaration(head)
        for d in known.dropFirst() where !Self.sameShape(declaration(d), first) { return .unknown }
        return first
    }

    static func sameShape(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.path(let p), .path(let q)), (.list(let p), .list(let q)):
            return p.base == q.base && p.components == q.components
        default: return a == b
        }
    }

    /// A name read outside any function: the enclosing type's member, a top-level declaration,
    /// any declaration of that name, or a type.
    mutating func name(_ n: String, type: String?) -> Value {
        let all = byName[n] ?? []
        guard !all.isEmpty else { return n.first?.isUppercase == true ? .typeName(n) : .unknown }
        if let type, let pool = byType[Key(name: n, type: type)] { return agreed(pool) }
        return agreed(byType[Key(name: n, type: nil)] ?? all)
    }

    /// `T.name`, declared in `T` (or an extension of it); nil when nothing is.
    mutating func typed(_ n: String, in type: String) -> Value? {
        byType[Key(name: n, type: type)].map { agreed($0) }
    }

    /// A member of a value the evaluation does not know (`store.videoFolder`), by its name alone:
    /// taken only when the declarations of that name agree on a path.
    mutating func pathNamed(_ n: String) -> Value {
        let v = agreed(byName[n] ?? [])
        switch v {
        case .path, .list: return v
        default: return .unknown
        }
    }

    private mutating func member(_ baseExpr: SourceExpr?, _ n: String, _ file: Int32) -> Value {
        guard let baseExpr else {
            if let c = StandardFolder.components(n) { return .path(PathValue(.home, c)) }
            return .unknown
        }
        let base = eval(baseExpr, file)
        switch base {
        case .typeName(let t):
            if let v = typed(n, in: t) { return v }
            if (t == "FileManager" || t == "NSFileManager") && (n == "default" || n == "defaultManager") {
                return .fileManager
            }
            if let c = StandardFolder.components(n) { return .path(PathValue(.home, c)) }
            if n.first?.isUppercase == true { return .typeName(n) }
            return pathNamed(n)
        case .fileManager:
            if n == "temporaryDirectory" || n == "homeDirectoryForCurrentUser" {
                return .path(PathValue(.home, StandardFolder.components(n) ?? []))
            }
            return .unknown
        case .path(let p):
            switch n {
            case "path", "relativePath", "absoluteURL", "standardizedFileURL", "standardized", "absoluteString",
                "standardizingPath", "resolvingSymlinksInPath", "fileSystemRepresentation":
                return .path(p)
            case "lastPathComponent": return p.components.last.map { .text($0) } ?? .unknown
            case "deletingLastPathComponent", "URLByDeletingLastPathComponent", "stringByDeletingLastPathComponent":
                return .path(Self.parent(p))
            default: return .unknown
            }
        case .list(let p):
            return ["first", "last", "firstObject", "lastObject"].contains(n) ? .path(p) : .unknown
        case .text(let s):
            return ["standardizingPath", "expandingTildeInPath", "path"].contains(n) ? .text(s) : .unknown
        case .unknown, .groupContainer:
            return pathNamed(n)
        }
    }

    static func parent(_ p: PathValue) -> PathValue {
        var out = p
        if !out.components.isEmpty { out.components.removeLast() }
        out.folder = true
        return out
    }

    /// Several values as one string (`a + b`, an interpolation): a path first and text after it
    /// is that path with the text appended as written (`"/x"` adds a component, `".db"` extends
    /// the last one), recorded once.
    mutating func concat(_ values: [Value], _ site: Site) -> Value {
        let values = values.drop { $0 == .text("") }
        var text = ""
        if case .path(let p) = values.first {
            for v in values.dropFirst() {
                guard let t = v.textPattern else { return .unknown }
                text = PatternText.join(text, t)
            }
            return .path(append(p, text, site, glue: true))
        }
        for v in values {
            guard let t = v.textPattern else { return .unknown }
            text = PatternText.join(text, t)
        }
        return .text(text)
    }

    /// `p` with `text` appended: split at `/`, each piece a component; with `glue`, the first
    /// piece extends the last component (string concatenation). Each folder added on the way is
    /// recorded, and the result when anything was added. The site moves to `site` when a piece
    /// with literal text is added.
    mutating func append(_ p: PathValue, _ text: String, _ site: Site, glue: Bool, folder: Bool? = nil) -> PathValue {
        var pieces = text.split(separator: "/", omittingEmptySubsequences: false)
        var out = p
        var added = false
        if glue && !p.endsWithSlash, let head = pieces.first {
            pieces.removeFirst()
            if !head.isEmpty {
                if let last = out.components.last {
                    out.components[out.components.count - 1] = PatternText.join(last, String(head))
                } else {
                    out.components.append(String(head))
                }
                if PatternText.hasLiteral(head) { out.site = instanceSite(head, site) }
                added = true
            }
        }
        var trailingSlash = false
        for (i, piece) in pieces.enumerated() {
            if piece.isEmpty {
                trailingSlash = i == pieces.count - 1
                continue
            }
            if piece == "." { continue }
            if added {
                out.folder = true
                record(out)
            }
            if piece == ".." {
                out = Self.parent(out)
                continue
            }
            guard out.components.count < Self.maximumComponents else { return p }
            out.components.append(String(piece))
            if PatternText.hasLiteral(piece) { out.site = instanceSite(piece, site) }
            added = true
        }
        guard added || trailingSlash else { return out }
        if out.site == nil { out.site = site }  // a folder and wildcards: built here, though it names nothing
        out.folder = trailingSlash ? true : folder
        out.endsWithSlash = false
        record(out)
        return out
    }

    mutating func record(_ p: PathValue) {
        if p.site != nil { built.insert(p) }
    }
}
