import Foundation
import SandboxAuditSources
import XCTest

/// A source tree written to a temporary folder, removed when the value goes.
final class SourceTreeFixture {
    let root: String

    init(_ files: [String: String] = [:]) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("sources-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (path, text) in files { try write(path, text) }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func write(_ path: String, _ text: String) throws {
        try write(path, Data(text.utf8))
    }

    func write(_ path: String, _ data: Data) throws {
        let full = root + "/" + path
        try FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: full))
    }

    func index() throws -> SourceIndex { try SourceIndex.build(root: root) }
}

extension SourceIndex {
    /// The candidates as `file:line`, best first.
    func lines(_ path: String, _ base: SourceBase = .home, isDirectory: Bool = false) -> [String] {
        candidates(for: path, base: base, isDirectory: isDirectory).map { "\($0.file):\($0.line)" }
    }

    /// The best candidate as `file:line`, nil when there is none.
    func best(_ path: String, _ base: SourceBase = .home, isDirectory: Bool = false) -> String? {
        lines(path, base, isDirectory: isDirectory).first
    }

    /// The patterns built, as `base|pattern`, for failure messages.
    var patterns: String {
        paths.map { p -> String in
            let base: String
            switch p.base {
            case .home: base = "home"
            case .appGroup(let id): base = id
            }
            return "\(base)|\(p.pattern) @\(p.location)"
        }.joined(separator: "\n")
    }
}

/// One file's index: `text` written as `name` alone.
func indexOne(_ text: String, name: String = "App.swift") throws -> SourceIndex {
    let tree = try SourceTreeFixture([name: text])
    return try tree.index()
}
