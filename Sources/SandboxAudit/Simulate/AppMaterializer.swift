import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Materialises an event for an app made of several containers: each backup domain into
/// `DIR/DOMAIN`, each built beside its place and renamed in as `Materializer.write` does. A
/// failure removes what this call wrote, so DIR is left as it was found.
public enum AppMaterializer {
    public static func write(_ simulations: [SimulationResult], into destination: String) throws -> [Materializer.Report] {
        guard simulations.count > 1 else { return try simulations.map { try Materializer.write($0, into: destination) } }
        let dest = try Materializer.checkDestination(destination)
        let created = mkdir(dest, 0o700) == 0
        guard created || errno == EEXIST else { throw SystemError(operation: "create", path: dest) }
        var reports: [Materializer.Report] = []
        do {
            for s in simulations {
                reports.append(try Materializer.write(s, into: dest + "/" + s.inventory.domain))
            }
            if created { _ = chmod(dest, 0o755) }
            return reports
        } catch {
            for r in reports { try? FileManager.default.removeItem(atPath: r.destination) }
            if created { rmdir(dest) }
            throw error
        }
    }
}
