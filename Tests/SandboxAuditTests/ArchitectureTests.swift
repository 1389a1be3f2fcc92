import Foundation
import XCTest

/// The library's stages are targets whose dependencies follow the pipeline (docs/ARCHITECTURE.md,
/// "Stages and targets"): the compiler refuses a cycle, and these tests refuse what it would let
/// pass — a stage depending on a later one, a file importing a stage its target does not depend on,
/// a declared dependency that no file of its target imports.
final class ArchitectureTests: XCTestCase {
    /// The pipeline's order, as Package.swift declares the targets and ARCHITECTURE.md lists them.
    static let stages = [
        "SandboxAuditSystem", "SandboxAuditCore", "SandboxAuditSources", "SandboxAuditRules", "SandboxAuditSimulate",
        "SandboxAuditMeasure",
        "SandboxAuditReport",
    ]

    /// Each stage target, from `swift package dump-package`, depends only on stages before it, and
    /// the `SandboxAudit` product's target re-exports every stage.
    func testEachStageDependsOnlyOnTheStagesBeforeIt() throws {
        let dependencies = try Self.targetDependencies()
        for (i, stage) in Self.stages.enumerated() {
            let own = try XCTUnwrap(dependencies[stage], "Package.swift declares no target \(stage)")
            for dependency in own where dependency.hasPrefix("SandboxAudit") {
                let j = try XCTUnwrap(
                    Self.stages.firstIndex(of: dependency), "\(stage) depends on \(dependency), which is not a stage")
                XCTAssertLessThan(j, i, "\(stage) depends on \(dependency), a later stage")
            }
        }
        XCTAssertEqual(
            Set(dependencies["SandboxAudit"] ?? []), Set(Self.stages), "the SandboxAudit target depends on every stage")
        let umbrella = try String(
            contentsOfFile: DocsTests.repo + "/Sources/SandboxAudit/SandboxAudit.swift", encoding: .utf8)
        for stage in Self.stages {
            XCTAssertTrue(umbrella.contains("@_exported import \(stage)\n"), "SandboxAudit does not re-export \(stage)")
        }
        let doc = try String(contentsOfFile: DocsTests.repo + "/docs/ARCHITECTURE.md", encoding: .utf8)
        let positions = try Self.stages.map {
            try XCTUnwrap(doc.range(of: "`\($0)`"), "docs/ARCHITECTURE.md does not name \($0)").lowerBound
        }
        XCTAssertEqual(positions, positions.sorted(), "docs/ARCHITECTURE.md lists the stage targets out of order")
    }

    /// No source file imports a stage its target does not depend on (which SwiftPM may let
    /// through when that module happens to be built already), nor one after its own.
    func testNoFileImportsALaterStage() throws {
        let dependencies = try Self.targetDependencies()
        let importLine = try NSRegularExpression(
            pattern: #"^(?:@testable |@_exported )?import (SandboxAudit\w*)"#, options: .anchorsMatchLines)
        var files = 0
        for stage in Self.stages {
            let folder = DocsTests.repo + "/Sources/" + stage
            let allowed = Set(dependencies[stage] ?? [])
            for file in try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: folder))
            where file.hasSuffix(".swift") {
                files += 1
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                for m in importLine.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let module = String(text[Range(m.range(at: 1), in: text)!])
                    XCTAssertTrue(
                        allowed.contains(module),
                        "Sources/\(stage)/\(file) imports \(module), which \(stage) does not depend on")
                }
            }
        }
        XCTAssertGreaterThan(files, 100, "no sources found under Sources/SandboxAudit*")
    }

    /// Every target that has Swift files (the stages, the umbrella, the executable and the test
    /// target) imports each target and product it declares as a dependency in at least one of its
    /// files: a dependency no file imports is still resolved, compiled and linked on every build.
    /// A dependency's module is its name with `-` as `_` (`sandbox-audit` is `sandbox_audit`), as
    /// SwiftPM names a target's module and as every product used here names its own.
    func testEveryDeclaredDependencyIsImported() throws {
        let importLine = try NSRegularExpression(
            pattern:
                #"^[ \t]*(?:@\w+[ \t]+)*import[ \t]+"#
                + #"(?:(?:typealias|struct|class|enum|protocol|let|var|func)[ \t]+)?(\w+)"#,
            options: .anchorsMatchLines)
        var checked: [String] = []
        for target in try Self.targets() where target.type != "system" && !target.dependencies.isEmpty {
            let folder =
                DocsTests.repo + "/" + (target.path ?? (target.type == "test" ? "Tests/" : "Sources/") + target.name)
            var imported: Set<String> = []
            for file in try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: folder))
            where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
                for m in importLine.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    imported.insert(String(text[Range(m.range(at: 1), in: text)!]))
                }
            }
            for dependency in target.dependencies {
                let module = dependency.replacingOccurrences(of: "-", with: "_")
                XCTAssertTrue(
                    imported.contains(module),
                    "\(target.name) declares \(dependency) in Package.swift, but no Swift file under "
                        + "\(folder.dropFirst(DocsTests.repo.count + 1)) imports \(module): remove the dependency"
                )
            }
            checked.append(target.name)
        }
        XCTAssertTrue(
            Set(Self.stages + ["SandboxAudit", "sandbox-audit", "SandboxAuditTests"]).isSubset(of: checked),
            "checked only \(checked)")
    }

    /// Target name → the names of the targets and products it depends on, as SwiftPM reads Package.swift.
    static func targetDependencies() throws -> [String: [String]] {
        Dictionary(uniqueKeysWithValues: try targets().map { ($0.name, $0.dependencies) })
    }

    /// A target as SwiftPM reads Package.swift: its name, type (`regular`, `executable`, `test`,
    /// `system`), its `path` when Package.swift gives one, and the targets and products it depends on.
    struct Target {
        let name: String
        let type: String
        let path: String?
        let dependencies: [String]
    }

    static func targets() throws -> [Target] {
        // A scratch folder of its own: the one of the running `swift test` is locked.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dump-package-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let run = try CLI.run(
            ["swift", "package", "--package-path", DocsTests.repo, "--scratch-path", scratch, "dump-package"],
            via: "/usr/bin/env")
        guard run.status == 0 else {
            throw XCTSkip(
                "swift package dump-package did not run (\(run.stderr.prefix(200))): the targets cannot be read")
        }
        let package = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        var result: [Target] = []
        for target in package["targets"] as? [[String: Any]] ?? [] {
            guard let name = target["name"] as? String else { continue }
            var names: [String] = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                // {"byName": ["X", null]} or {"target": ["X", null]} or {"product": ["X", "package", …]}
                for key in ["byName", "target", "product"] {
                    if let values = dependency[key] as? [Any], let first = values.first as? String {
                        names.append(first)
                    }
                }
            }
            result.append(
                Target(
                    name: name, type: target["type"] as? String ?? "", path: target["path"] as? String,
                    dependencies: names))
        }
        return result
    }
}
