import Foundation

/// Batches waiting to be uploaded.
final class UploadQueue {
    private let folder: String = {
        let tmp = NSTemporaryDirectory() as NSString
        return tmp.appendingPathComponent("upload-queue")
    }()

    func enqueue(_ batch: Data, number: Int) throws {
        let name = "batch-\(String(format: "%04d", number)).json"
        let path = (folder as NSString).appendingPathComponent(name)
        try batch.write(to: URL(fileURLWithPath: path))
    }
}
