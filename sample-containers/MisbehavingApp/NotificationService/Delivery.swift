import Foundation

/// The notification service extension: a line per notification delivered, in the extension's
/// own container.
struct DeliveryLog {
    let url = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first!
        .appendingPathComponent("delivered.log")

    func append(_ line: String) throws {
        let handle = try FileHandle(forWritingTo: url)
        handle.seekToEndOfFile()
        handle.write(Data((line + "\n").utf8))
    }
}
