import Foundation
import SandboxAuditSources
import XCTest

/// The cost of an app-sized tree: 1,500 Swift files of the kind an app has (types, properties,
/// functions, a few paths each). Not timed here (a debug build's SwiftParser is many times
/// slower than a release build's, and a shared machine says little): the time is printed.
final class SourceScaleTests: XCTestCase {
    static func write(_ count: Int, into tree: SourceTreeFixture, operations: Int) throws {
        for i in 0..<count {
            try tree.write("Feature\(i % 40)/Sub\(i % 7)/Type\(i).swift", Self.file(i, operations: operations))
        }
    }

    /// A file of a model, a store with paths and `operations` functions of ten lines (about 150
    /// lines with 12), a type with a computed property.
    static func file(_ i: Int, operations: Int) -> String {
        var lines = [
            "import Foundation", "#if canImport(UIKit)", "import UIKit", "#endif", "",
            "struct Model\(i): Codable, Hashable {", "    let id: UUID", "    var title: String",
            "    var tags: [String] = []", "    var score: Double = 0", "}", "",
            "enum Names\(i) {", "    static let folder = \"Feature\(i)\"", "    static let index = \"index-\(i).json\"",
            "}",
            "", "final class Store\(i) {", "    private let fileManager = FileManager.default",
            "    private var items: [Model\(i)] = []",
            "    lazy var root: URL = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)",
            "        .first!",
            "        .appendingPathComponent(Names\(i).folder, isDirectory: true)",
            "    var indexURL: URL { root.appendingPathComponent(Names\(i).index) }",
            "    func file(for id: UUID) -> URL { root.appendingPathComponent(\"\\(id.uuidString).bin\") }", "",
        ]
        for m in 0..<operations {
            lines += [
                "    func operation\(m)(_ input: [Model\(i)], limit: Int = \(m)) throws -> [Model\(i)] {",
                "        let filtered = input.filter { $0.score > Double(limit) && !$0.tags.isEmpty }",
                "        let sorted = filtered.sorted { $0.title < $1.title }",
                "        guard !sorted.isEmpty else { return [] }",
                "        let data = try JSONEncoder().encode(sorted)",
                "        try data.write(to: root.appendingPathComponent(\"op-\(m).json\"), options: .atomic)",
                "        items.append(contentsOf: sorted.prefix(limit))",
                "        return sorted.map { var copy = $0; copy.score *= 2; return copy }",
                "    }", "",
            ]
        }
        lines += [
            "}", "", "struct Row\(i) {", "    let model: Model\(i)",
            "    var subtitle: String { model.tags.joined(separator: \", \") + \" (\\(model.score))\" }", "}",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    func testFifteenHundredFilesIndex() throws {
        let tree = try SourceTreeFixture()
        // Smaller files than the measured tree's (testWriteATreeToMeasure): SwiftParser is many
        // times slower in a debug build.
        try Self.write(1_500, into: tree, operations: 4)
        let start = Date()
        let index = try tree.index()
        print("1,500 files indexed in \(String(format: "%.2f", Date().timeIntervalSince(start))) s")
        XCTAssertEqual(index.filesIndexed, 1_500)
        XCTAssertEqual(index.skipped.count, 0)
        XCTAssertEqual(index.best("Library/Application Support/Feature7/index-7.json"), "Feature7/Sub0/Type7.swift:24")
        XCTAssertEqual(index.best("Library/Application Support/Feature7/op-3.json"), "Feature7/Sub0/Type7.swift:62")
        XCTAssertEqual(
            index.best("Library/Application Support/Feature9/\(UUID().uuidString).bin"), "Feature9/Sub2/Type9.swift:25")
    }

    /// For measuring outside the test suite: `SOURCE_SCALE_TREE=/tmp/tree swift test --filter
    /// SourceScaleTests/testWriteATreeToMeasure` writes the same 1,500 files there.
    func testWriteATreeToMeasure() throws {
        guard let folder = ProcessInfo.processInfo.environment["SOURCE_SCALE_TREE"] else {
            throw XCTSkip("set SOURCE_SCALE_TREE to a folder to write the tree there")
        }
        for i in 0..<1_500 {
            let path = folder + "/Feature\(i % 40)/Sub\(i % 7)/Type\(i).swift"
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(Self.file(i, operations: 12).utf8).write(to: URL(fileURLWithPath: path))
        }
    }
}
