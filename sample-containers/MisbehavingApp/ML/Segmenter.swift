import Foundation

/// The segmentation model, compiled on first launch and kept.
enum Segmenter {
    static let models = URL.applicationSupportDirectory.appending(path: "Models")

    static var compiledModel: URL {
        models.appendingPathComponent("Segmenter.mlmodelc", isDirectory: true)
    }
}
