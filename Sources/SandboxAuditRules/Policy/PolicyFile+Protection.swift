import SandboxAuditCore
import SandboxAuditSystem
import Yams

extension PolicyFile {
    /// `protection:`: a mapping of globs to the weakest class allowed (`complete`,
    /// `completeUnlessOpen`, `completeUntilFirstUserAuthentication`, `none`), in file order.
    static func readProtection(_ node: Node, into policy: inout Policy) throws {
        let m = try mapping(node, "protection")
        for (k, v) in m {
            let g = try glob(k, "protection")
            let name = try string(v, "protection.\(g.pattern)")
            guard let c = ProtectionClass(name: name) else {
                let names = ProtectionClass.known.map(\.name)
                var message = "protection.\(g.pattern): '\(name)' is not a data protection class"
                if let near = nearest(name, in: names) { message += "; did you mean '\(near)'?" }
                throw Failure(message: message + " (valid: \(names.joined(separator: ", ")))", mark: v.mark)
            }
            policy.protection.append(ProtectionRequirement(glob: g, weakest: c))
        }
    }
}
