import Foundation
import SandboxAuditCore
import SandboxAuditRules
import SandboxAuditSystem

/// Materialises an event for an app made of several containers: each backup domain into
/// `DIR/DOMAIN`, each built beside its place and renamed in as `Materializer.write` does. A
/// failure removes what this call wrote, so DIR is left as it was found.
enum AppMaterializer {
    static func write(_ simulations: [SimulationResult], into destination: String) throws -> [Materializer.Report] {
        if AppDataPackage.isPackage(destination) { return [try AppDataPackage.write(simulations, into: destination)] }
        guard simulations.count > 1 else {
            return try simulations.map { try Materializer.write($0, into: destination) }
        }
        let dest = try Materializer.checkDestination(destination)
        let cwd = FileDescriptor.currentDirectory
        var created = true
        do { try cwd.makeDirectory(dest.utf8, mode: 0o700) } catch {
            guard error.code == EEXIST else { throw error.labelled("create", dest) }
            created = false
        }
        var reports: [Materializer.Report] = []
        do {
            for s in simulations {
                reports.append(try Materializer.write(s, into: dest + "/" + s.inventory.domain))
            }
            if created, let fd = try? cwd.openDirectory(dest.utf8) {
                try? fd.setPermissions(0o755)
                fd.close()
            }
            return reports
        } catch {
            // Through descriptors, as a failed tree is removed: never following a link, and
            // making read-only folders writable first.
            if let fd = try? cwd.openDirectory(dest.utf8) {
                for s in simulations.prefix(reports.count) { Materializer.removeTree(s.inventory.domain, in: fd) }
                fd.close()
            }
            if created { try? cwd.remove(dest.utf8, isDirectory: true) }
            throw error
        }
    }
}
