/// Functions evaluated for a call: a function or method that builds a path from its parameters
/// (`func dataSubfolder(named name: String) -> URL`) is evaluated again for each call that
/// passes it a known value (`dataSubfolder(named: "Accounts")`), the parameters bound to the
/// call's values. A component that holds text the call passed is named by the call. Bounded:
/// calls in calls at most `maximumInstanceDepth` deep, each function at most
/// `maximumInstances` times, and a call's locals read without the shared cache.
extension Evaluation {
    /// A call being evaluated: its values by parameter position, the site of the outermost call
    /// with a known value, and the literal text the calls passed.
    struct Instance {
        let values: [Value]
        let site: Site
        let texts: [String]
        let depth: Int
        var locals: [Int64: Value] = [:]
    }

    static let maximumInstanceDepth = 4
    static let maximumInstances = 64
    /// The shortest text taken as passed by a call (shorter text is too common to tell).
    static let minimumPassedText = 2

    /// The declarations a call of `n` may call: those taking as many parameters as it passes.
    func callees(_ n: String, type: String?, count: Int) -> [Int] {
        guard count > 0 else { return [] }
        var pool = byName[n] ?? []
        if let type, let typed = byType[Key(name: n, type: type)] { pool = typed }
        return pool.filter { declarations[$0].declaration.parameterCount == count }
    }

    /// The value of the one function `pool` holds evaluated for the call, when the call passes a
    /// known value; nil otherwise (or past the bounds).
    mutating func instantiated(_ pool: [Int], _ c: Call) -> Value? {
        guard pool.count == 1, let d = pool.first else { return nil }
        guard c.values.contains(where: { $0 != .unknown }) else { return nil }
        let depth = (instance?.depth ?? 0) + 1
        guard depth <= Self.maximumInstanceDepth, instanceCounts[d, default: 0] < Self.maximumInstances else {
            return nil
        }
        instanceCounts[d, default: 0] += 1
        var texts = instance?.texts ?? []
        for v in c.values {
            if case .text(let t) = v {
                for piece in t.split(whereSeparator: { $0 == "/" || $0 == wildcard })
                where piece.count >= Self.minimumPassedText {
                    texts.append(String(piece))
                }
            }
        }
        let outer = instance
        instance = Instance(values: c.values, site: outer?.site ?? c.site, texts: texts, depth: depth)
        defer { instance = outer }
        return eval(declarations[d].declaration.value, declarations[d].file)
    }

    /// A local read while a call is evaluated: computed for this call alone.
    mutating func instanceLocal(_ slot: Int, _ file: Int32) -> Value {
        let key = Int64(file) << 32 | Int64(slot)
        if let v = instance?.locals[key] { return v }
        instance?.locals[key] = .unknown  // a cycle reads it as unknown
        let v = eval(files[Int(file)].locals[slot], file)
        instance?.locals[key] = v
        return v
    }

    /// The site of a component with literal text: the outermost call's when the text holds
    /// what a call passed, else `site`.
    func instanceSite(_ piece: some StringProtocol, _ site: Site) -> Site {
        guard let instance else { return site }
        return instance.texts.contains { piece.contains($0) } ? instance.site : site
    }
}
