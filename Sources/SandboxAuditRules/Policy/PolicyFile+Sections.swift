import Foundation
import SandboxAuditCore
import SandboxAuditSystem
import Yams

extension PolicyFile {
    static func read(_ root: Node, into policy: inout Policy) throws {
        let top = try mapping(root, "the policy file")
        try checkKeys(top, allowed: topKeys, in: "the policy file")
        // A key with nothing after it (only comments beneath) means "none".
        for (k, v) in top where v.null == nil {
            switch try string(k, "a key") {
            case "failOn": policy.failOn = try severity(v, "failOn", allowOff: false)
            case "rules": try readRules(v, into: &policy)
            case "ignore":
                guard let seq = v.sequence else {
                    throw Failure(message: "ignore must be a list of globs", mark: v.mark)
                }
                policy.ignore = try seq.map { try glob($0, "ignore") }
            case "paths":
                guard let seq = v.sequence else {
                    throw Failure(message: "paths must be a list of {path: GLOB, …} entries", mark: v.mark)
                }
                policy.paths = try seq.map(readPathPolicy)
            case "budgets": try readBudgets(v, into: &policy)
            case "protection": try readProtection(v, into: &policy)
            case "owners": policy.owners = try readOwners(v)
            case "suppress": policy.suppressions = try readSuppressions(v)
            case "sources":
                let folder = try string(v, "sources")
                guard !folder.isEmpty else { throw Failure(message: "sources must name a folder", mark: v.mark) }
                policy.sources = folder
            case "appGroups":
                guard let seq = v.sequence else {
                    throw Failure(
                        message: "appGroups must be a list of App Group identifiers "
                            + "(group.…)", mark: v.mark)
                }
                policy.appGroups = try seq.map { try string($0, "appGroups") }
            case "growth":
                let m = try mapping(v, "growth")
                try checkKeys(m, allowed: growthKeys, in: "growth")
                var percent: Double?
                var minimum: Int64 = 0
                for (gk, gv) in m {
                    switch try string(gk, "a key") {
                    case "backup":
                        let s = try string(gv, "growth.backup")
                        guard s.hasSuffix("%"), let p = Double(s.dropLast().trimmingCharacters(in: .whitespaces)),
                            p >= 0
                        else {
                            throw Failure(
                                message: "growth.backup: '\(s)' is not a percentage; write e.g. \"10%\"", mark: gv.mark)
                        }
                        percent = p
                    default: minimum = try size(gv, "growth.min")
                    }
                }
                guard let p = percent else {
                    throw Failure(message: "growth needs 'backup' (a percentage, e.g. \"10%\")", mark: v.mark)
                }
                policy.growth = GrowthBudget(percent: p, minimum: minimum)
            default: break
            }
        }
    }

    static func readRules(_ node: Node, into policy: inout Policy) throws {
        if node.null != nil { return }
        let m = try mapping(node, "rules")
        let known = RuleCatalogue.all.map(\.id)
        for (k, v) in m {
            let id = try string(k, "a rule id")
            guard known.contains(id) else {
                var message = "unknown rule '\(id)'"
                if let near = nearest(id, in: known) { message += "; did you mean '\(near)'?" }
                message += " ('sandbox-audit rules' lists them)"
                throw Failure(message: message, mark: k.mark)
            }
            if v.scalar != nil {
                if let s = try severity(v, "rules.\(id)", allowOff: true) {
                    policy.severities[id] = s
                } else {
                    policy.disabledRules.insert(id)
                }
                continue
            }
            let options = RuleCatalogue.rule(id: id)!.options
            let rm = try mapping(v, "rules.\(id)")
            try checkKeys(rm, allowed: ["severity"] + options.map(\.key), in: "rules.\(id)")
            for (ok, ov) in rm {
                let key = try string(ok, "a key")
                if key == "severity" {
                    if let s = try severity(ov, "rules.\(id).severity", allowOff: true) {
                        policy.severities[id] = s
                    } else {
                        policy.disabledRules.insert(id)
                    }
                    continue
                }
                let option = options.first { $0.key == key }!
                let what = "rules.\(id).\(key)"
                let s = try string(ov, what)
                guard let value = option.kind.parse(s) else {
                    throw Failure(message: "\(what): '\(s)' is not \(option.kind.expected)", mark: ov.mark)
                }
                policy.settings[option] = value
            }
        }
    }

    static func readPathPolicy(_ node: Node) throws -> PathPolicy {
        let m = try mapping(node, "each entry of paths")
        try checkKeys(m, allowed: pathKeys, in: "paths")
        guard let g = m["path"] else {
            throw Failure(message: "each entry of paths needs 'path' (a glob)", mark: node.mark)
        }
        var p = PathPolicy(glob: try glob(g, "paths.path"))
        for (k, v) in m {
            switch try string(k, "a key") {
            case "backup":
                let s = try string(v, "paths.backup")
                guard let b = PathPolicy.Backup(rawValue: s) else {
                    throw Failure(message: "paths.backup must be 'excluded' or 'included', not '\(s)'", mark: v.mark)
                }
                p.backup = b
            case "forbidden":
                guard let b = v.bool else {
                    throw Failure(message: "paths.forbidden must be true or false", mark: v.mark)
                }
                p.forbidden = b
            case "maxSize": p.maxSize = try size(v, "paths.maxSize")
            default: break
            }
        }
        guard p.backup != nil || p.forbidden || p.maxSize != nil else {
            throw Failure(
                message: "the entry for '\(p.glob.pattern)' sets no policy: add backup, forbidden or maxSize",
                mark: node.mark)
        }
        return p
    }

    static func measure(_ node: Node, _ what: String) throws -> Budget.Measure {
        let s = try string(node, what)
        guard let m = Budget.Measure(rawValue: s) else {
            throw Failure(message: "\(what) must be 'backedUp' or 'size', not '\(s)'", mark: node.mark)
        }
        return m
    }

    static func readBudgets(_ node: Node, into policy: inout Policy) throws {
        let m = try mapping(node, "budgets")
        try checkKeys(m, allowed: budgetKeys, in: "budgets")
        for (k, v) in m {
            switch try string(k, "a key") {
            case "backup": policy.budgets.append(Budget(scope: .backup, limit: try size(v, "budgets.backup")))
            case "churn": policy.budgets.append(Budget(scope: .churn, limit: try size(v, "budgets.churn")))
            case "domains":
                let dm = try mapping(v, "budgets.domains")
                for (dk, dv) in dm {
                    let domain = try string(dk, "a backup domain")
                    guard ContainerRole.allCases.contains(where: { domain.hasPrefix($0.domainPrefix) }) else {
                        throw Failure(
                            message:
                                "budgets.domains: '\(domain)' is not a backup domain; write AppDomain-ID, "
                                + "AppDomainPlugin-ID or AppDomainGroup-ID",
                            mark: dk.mark)
                    }
                    policy.budgets.append(
                        Budget(scope: .domain(domain), limit: try size(dv, "budgets.domains.\(domain)")))
                }
            case "owners":
                for (ok, ov) in try mapping(v, "budgets.owners") {
                    let owner = try string(ok, "an owner")
                    policy.budgets.append(Budget(scope: .owner(owner), limit: try size(ov, "budgets.owners.\(owner)")))
                }
            case "zones":
                let zm = try mapping(v, "budgets.zones")
                try checkKeys(zm, allowed: PolicySchema.zoneNames, in: "budgets.zones")
                for (zk, zv) in zm {
                    let zone = Zone(rawValue: try string(zk, "a zone"))!
                    let what = "budgets.zones.\(zone.rawValue)"
                    if zv.scalar != nil {
                        policy.budgets.append(Budget(scope: .zone(zone), limit: try size(zv, what)))
                        continue
                    }
                    let bm = try mapping(zv, what)
                    try checkKeys(bm, allowed: zoneBudgetKeys, in: what)
                    guard let max = bm["max"] else { throw Failure(message: "\(what) needs 'max'", mark: zv.mark) }
                    policy.budgets.append(
                        Budget(
                            scope: .zone(zone),
                            measure: try bm["measure"].map { try measure($0, what + ".measure") } ?? .backedUp,
                            limit: try size(max, what + ".max")))
                }
            default:
                guard let seq = v.sequence else {
                    throw Failure(
                        message: "budgets.paths must be a list of {path: GLOB, max: SIZE} entries", mark: v.mark)
                }
                for item in seq {
                    let bm = try mapping(item, "each entry of budgets.paths")
                    try checkKeys(bm, allowed: budgetPathKeys, in: "budgets.paths")
                    guard let g = bm["path"], let max = bm["max"] else {
                        throw Failure(
                            message: "each entry of budgets.paths needs 'path' (a glob) and 'max' (a size)",
                            mark: item.mark)
                    }
                    policy.budgets.append(
                        Budget(
                            scope: .glob(try glob(g, "budgets.paths.path")),
                            measure: try bm["measure"].map { try measure($0, "budgets.paths.measure") } ?? .backedUp,
                            limit: try size(max, "budgets.paths.max")))
                }
            }
        }
    }
}
