import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

extension Baseline {
    /// The largest baseline read (a 200,000-file container's is 54 MB): `JSONDocument`.
    static let maximumSize = JSONDocument.maximumSize

    /// Reads a baseline file; an `InputError` says what is wrong with it, naming the field
    /// (`files[3].size is not an integer …`) when a value is not of its documented type.
    public static func load(_ location: String) throws -> Baseline {
        let shown = TerminalText.escaped(location)
        let document: BaselineDocument
        do {
            guard case .baseline(let b) = try ReportDocument.read(try JSONDocument.read(location), accepting: .baseline)
            else {
                throw BaselineDocument.NotThisKind()
            }
            document = b
        } catch JSONDocument.Refusal.unreadable(let why) {
            throw InputError("cannot read baseline \(shown): \(why)")
        } catch JSONDocument.Refusal.notJSON(let why) {
            throw InputError("\(shown) is not a sandbox-audit baseline: \(why)")
        } catch let e as JSONReader.Failure {
            throw InputError("\(shown) is not a sandbox-audit baseline: \(e)")
        } catch is BaselineDocument.NotThisKind {
            throw InputError("\(shown) is not a sandbox-audit baseline (write one with --write-baseline)")
        } catch let e as BaselineDocument.UnsupportedVersion {
            throw InputError(
                "\(shown): baseline schemaVersion \(e.found) is not supported (expected "
                    + "\(readableVersions.dropLast().map(String.init).joined(separator: ", ")) or "
                    + "\(readableVersions.last ?? 0))"
            )
        }
        return Baseline(
            bundleIdentifier: document.bundleIdentifier, version: document.version, domains: document.domains,
            backupFootprint: document.backupFootprint, zones: document.zones,
            findings: document.findings.map { ($0.ruleId, $0.path, $0.severity, $0.message) }, files: document.files,
            complete: document.complete, missed: document.missed)
    }

}
