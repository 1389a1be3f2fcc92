import SandboxAuditCore
import SandboxAuditSystem

/// What the policy file's `protection:` section asks: the weakest data protection class
/// allowed for the files a glob covers (the glob matches them or a folder holding them).
/// The policy file (Policy/) parses it; `protection-below-policy` checks it against the
/// classes a device backup records.
struct ProtectionRequirement: Sendable {
    var glob: Glob
    /// The weakest class allowed: a file at a weaker class is reported.
    var weakest: ProtectionClass
}
