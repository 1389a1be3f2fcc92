import Foundation
import SandboxAuditSystem
import SandboxAuditCore

/// Something the scan could not read: a folder it could not list, an entry whose attributes it
/// could not read, or the content a rule needed. The figures and the rule checks leave it out,
/// so a scan that missed anything is incomplete.
package struct MissedItem: Sendable, Hashable {
    package let path: ContainerPath
    /// The backup domain of the container it is in.
    package let domain: String
    /// What was not done ("open directory", "read the first bytes: volatile-store not checked").
    package let what: String
    /// Why ("Permission denied").
    package let why: String

    init(path: ContainerPath, domain: String, what: String, why: String) {
        self.path = path
        self.domain = domain
        self.what = what
        self.why = why
    }

    /// One line: "Library: open directory (Permission denied)".
    package var line: String { "\(path.display): \(what) (\(why))" }
}

extension AuditResult {
    /// True when the scan read everything it needed: no walk problem, no content read missed.
    package var complete: Bool { missed.isEmpty }

    /// The verdict: findings at or above `level`, or an incomplete scan unless it is accepted.
    public func fails(at level: Severity, allowIncomplete: Bool) -> Bool {
        fails(at: level) || (!complete && !allowIncomplete)
    }

    /// One line for the banners of every report: how much was missed, and what it means.
    package var incompleteSummary: String {
        let n = missed.count
        return "INCOMPLETE SCAN: \(n) \(n == 1 ? "item" : "items") could not be read; the figures and findings leave \(n == 1 ? "it" : "them") out (see unreadable-entry)"
    }
}
