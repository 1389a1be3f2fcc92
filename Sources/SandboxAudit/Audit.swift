import Foundation

/// The pipeline in one call: input → walk → classify → inventory → rules.
public enum Audit {
    public static let toolVersion = "0.1.0"

    /// Walks and classifies the container at `input` (a data container or `.xcappdata`).
    /// Throws `InputError` for input that is not a container.
    public static func inventory(of input: String) throws -> Inventory {
        let container = try Container.locate(input)
        var walker = Walker(root: container.dataRoot)
        walker.skipAtTop = [Array(AppleDouble.mirrorFolder.utf8)]
        var walk: WalkResult
        do {
            walk = try walker.walk()
        } catch let e as SystemError {
            throw InputError("cannot read \(input): \(e.reason)")
        }
        // Sidecars in __MACOSX mirrors describe the entry at the same relative path.
        var mirrored: [ContainerPath: [AttributeMark]] = [:]
        for mirror in container.mirrorRoots {
            guard let found = try? Walker(root: mirror).walk() else { continue }
            walk.sidecarCount += found.sidecarCount
            let label = mirror.hasPrefix(container.dataRoot + "/") ? String(mirror.dropFirst(container.dataRoot.count + 1)) : mirror
            for (path, marks) in found.unmatchedSidecars {
                let sidecar = label + "/" + Self.sidecarName(for: path)
                mirrored[path, default: []] += marks.map { AttributeMark(attribute: $0.attribute, value: $0.value, source: .macosxMirror(sidecar: sidecar)) }
            }
            walk.problems += found.problems.map {
                WalkProblem(path: ContainerPath(label).appending($0.path.bytes), operation: $0.operation, reason: $0.reason, vanished: $0.vanished)
            }
        }
        if !mirrored.isEmpty {
            for i in walk.entries.indices {
                if let marks = mirrored[walk.entries[i].path] { walk.entries[i].marks += marks }
            }
        }
        return Inventory(container: container, walk: walk)
    }

    private static func sidecarName(for path: ContainerPath) -> String {
        let parent = path.parent.map { $0.isRoot ? "" : $0.display + "/" } ?? ""
        return parent + "._" + ByteText.display(path.name)
    }

    /// Scans and checks every rule.
    public static func run(_ input: String, context: RuleContext = RuleContext()) throws -> AuditResult {
        let inventory = try Self.inventory(of: input)
        var context = context
        if context.content == nil { context.content = ContentReader(dataRoot: inventory.container.dataRoot) }
        return AuditResult(inventory: inventory, findings: RuleCatalogue.check(inventory, context), context: context)
    }
}

/// An inventory and what the rules found in it.
public struct AuditResult: Sendable {
    public let inventory: Inventory
    public let findings: [Finding]
    public let context: RuleContext

    public func count(_ severity: Severity) -> Int { findings.filter { $0.severity == severity }.count }

    /// True when a finding is at or above `level`.
    public func fails(at level: Severity) -> Bool { findings.contains { $0.severity >= level } }
}
