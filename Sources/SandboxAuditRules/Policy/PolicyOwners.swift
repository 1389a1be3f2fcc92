import Foundation
import SandboxAuditCore
import SandboxAuditSystem
import Yams

extension PolicyFile {
    /// `owners:`, a mapping of globs to the team or component that owns what each covers, in
    /// file order (CODEOWNERS-style: the last line covering a path wins, before the catalogue).
    static func readOwners(_ node: Node) throws -> [OwnerRule] {
        let m = try mapping(node, "owners")
        return try m.map { k, v in
            let name = try string(v, "owners.\(try string(k, "a glob"))")
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw Failure(
                    message:
                        "owners: the owner of '\(try string(k, "a glob"))' is empty; write a team or component name",
                    mark: v.mark)
            }
            return OwnerRule(glob: try glob(k, "owners"), owner: name)
        }
    }
}
