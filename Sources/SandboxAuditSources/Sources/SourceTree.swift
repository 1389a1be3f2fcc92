import SandboxAuditSystem

/// The source files of a tree, read and summarized: each folder listed through its descriptor
/// (no symlink followed, no name resolved twice), each file read whole with a bound, and the
/// files parsed on the cores a batch at a time, so that what is held at once is a batch's bytes
/// and each worker's syntax tree.
struct SourceTree {
    /// The files read, relative to the root: a site's `file` is an index in it.
    var files: [String] = []
    var summaries: [FileSummary] = []
    var skipped: [SkippedSource] = []
    var filesRead = 0

    /// At most this many source files; over it, the index stops (`SourceIndexError.tooManyFiles`).
    static let maximumFiles = 100_000
    /// A larger file is skipped: generated code or data, not the lines that build paths.
    static let maximumFileSize = 4 << 20
    /// Folders deeper than this are skipped (each level holds a descriptor while it is read).
    static let maximumDepth = 128
    /// Folders of dependencies and builds: not the app's own code.
    static let skippedFolders: Set<String> = [".build", "Pods", "Carthage", "DerivedData", ".git", "node_modules"]
    static let swiftExtension = ".swift"
    static let objectiveCExtensions = [".m", ".mm", ".h"]

    /// A file read and waiting to be parsed.
    private struct Pending: Sendable {
        let index: Int
        let isSwift: Bool
        let bytes: [UInt8]
    }

    /// `maximumFiles`, or fewer for a test.
    private var limit = Self.maximumFiles
    private var pending: [Pending] = []
    private var pendingBytes = 0
    private var sourceFiles = 0

    static func read(root: String, maximumFiles: Int = maximumFiles) throws -> SourceTree {
        let fd: FileDescriptor
        do { fd = try FileDescriptor.currentDirectory.open(Array(root.utf8), .namedDirectory) } catch {
            throw SourceIndexError.unreadableRoot(path: root, reason: Self.text(error.code))
        }
        defer { fd.close() }
        var tree = SourceTree()
        tree.limit = maximumFiles
        let top: [(name: [UInt8], kind: FileStatus.Kind)]
        do { top = try tree.list(fd, "") } catch {
            throw SourceIndexError.unreadableRoot(path: root, reason: Self.text(error.code))
        }
        try tree.walk(fd, top)
        tree.flush()
        tree.skipped.sort { $0.file.utf8.lexicographicallyPrecedes($1.file.utf8) }
        return tree
    }

    /// A folder's entries, sorted by name, with their kinds (a symlink as such).
    private mutating func list(_ fd: FileDescriptor, _ path: String) throws(Errno) -> [(
        name: [UInt8], kind: FileStatus.Kind
    )] {
        var entries: [(name: [UInt8], kind: FileStatus.Kind)] = []
        var problems: [SkippedSource] = []
        let failure = fd.forEachName { cName, name in
            switch Result(catching: { () throws(Errno) in try fd.status(ofCString: cName) }) {
            case .success(let status): entries.append((Array(name), status.kind))
            case .failure(let error):
                problems.append(
                    SkippedSource(file: Self.join(path, Array(name)), reason: "not read: \(Self.text(error.code))"))
            }
        }
        if let failure { throw failure }
        skipped += problems
        return entries.sorted { $0.name.lexicographicallyPrecedes($1.name) }
    }

    /// Depth first, one descriptor per level: each folder's files, then its folders in order.
    private mutating func walk(_ root: FileDescriptor, _ top: [(name: [UInt8], kind: FileStatus.Kind)]) throws {
        var stack: [(fd: FileDescriptor, path: String, folders: [[UInt8]], next: Int)] = []
        stack.append((root, "", try files(root, "", top), 0))
        defer { for frame in stack.dropFirst() { frame.fd.close() } }
        while let frame = stack.last {
            guard frame.next < frame.folders.count else {
                if stack.count > 1 { frame.fd.close() }
                stack.removeLast()
                continue
            }
            stack[stack.count - 1].next += 1
            let name = frame.folders[frame.next]
            let path = Self.join(frame.path, name)
            guard stack.count < Self.maximumDepth else {
                skipped.append(
                    SkippedSource(file: path, reason: "nested over \(Self.maximumDepth) folders deep: not read"))
                continue
            }
            do {
                let fd = try frame.fd.openDirectory(name)
                do {
                    let entries = try list(fd, path)
                    stack.append((fd, path, try files(fd, path, entries), 0))
                } catch let error as Errno {
                    fd.close()
                    skipped.append(SkippedSource(file: path, reason: "not listed: \(Self.text(error.code))"))
                }
            } catch let error as Errno {
                skipped.append(SkippedSource(file: path, reason: "not opened: \(Self.text(error.code))"))
            }
        }
    }

    /// Reads the source files among `entries` (of the folder `fd`, at `path`) and returns its
    /// folders to visit.
    private mutating func files(
        _ fd: FileDescriptor, _ path: String, _ entries: [(name: [UInt8], kind: FileStatus.Kind)]
    )
        throws -> [[UInt8]]
    {
        var folders: [[UInt8]] = []
        for (name, kind) in entries {
            let file = Self.join(path, name)
            switch kind {
            case .directory:
                if Self.skippedFolders.contains(String(decoding: name, as: UTF8.self)) {
                    skipped.append(
                        SkippedSource(file: file, reason: "a dependency or build folder: not the app's own code"))
                } else {
                    folders.append(name)
                }
            case .symlink:
                skipped.append(SkippedSource(file: file, reason: "a symbolic link: not followed"))
            default:
                guard let isSwift = Self.isSource(name) else { continue }
                sourceFiles += 1
                guard sourceFiles <= limit else { throw SourceIndexError.tooManyFiles(limit: limit) }
                read(name, in: fd, as: file, isSwift: isSwift)
            }
        }
        return folders
    }

    private mutating func read(_ name: [UInt8], in fd: FileDescriptor, as file: String, isSwift: Bool) {
        guard String(validating: name, as: UTF8.self) != nil else {
            skipped.append(SkippedSource(file: file, reason: "its name is not UTF-8: not read"))
            return
        }
        let bytes: [UInt8]
        do { bytes = try BoundedRead.file(named: name, in: fd, limit: Self.maximumFileSize) } catch {
            let reason: String
            switch error as? BoundedRead.Failure {
            case .tooLarge(let n)?:
                reason = "\(n) bytes, over the \(Self.maximumFileSize >> 20) MiB read of a source file"
            case .notRegular?: reason = "not a regular file: not read"
            case let failure?: reason = "not read: \(failure)"
            case nil: reason = "not read: \(error)"
            }
            skipped.append(SkippedSource(file: file, reason: reason))
            return
        }
        pending.append(Pending(index: files.count, isSwift: isSwift, bytes: bytes))
        files.append(file)
        pendingBytes += bytes.count
        if pendingBytes >= 32 << 20 || pending.count >= 512 { flush() }
    }

    /// Parses the files read so far, on the cores; a Swift file nested deeper than
    /// `SwiftNesting.workerDepth` after the others, on the calling thread (a worker's stack may
    /// be 512 KiB: macOS's secondary threads).
    private mutating func flush() {
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = []
        pendingBytes = 0
        var results = Parallel.map(batch.count) { i -> FileSummary? in
            let file = batch[i]
            guard let text = String(validating: file.bytes, as: UTF8.self) else {
                var failed = FileSummary()
                failed.problem = "not UTF-8 text: not read"
                return failed
            }
            guard file.isSwift else { return ObjectiveCReader.summary(of: file.bytes) }
            return SwiftReader.summary(of: text, deepest: SwiftNesting.workerDepth)
        }
        for i in results.indices where results[i] == nil {
            results[i] = SwiftReader.summary(of: String(decoding: batch[i].bytes, as: UTF8.self), deepest: nil)
        }
        for (file, summary) in zip(batch, results.map { $0! }) {
            if let problem = summary.problem {
                skipped.append(SkippedSource(file: files[file.index], reason: problem))
            } else {
                filesRead += 1
            }
            summaries.append(summary)
        }
    }

    /// true for Swift, false for Objective-C, nil for anything else.
    static func isSource(_ name: [UInt8]) -> Bool? {
        let s = String(decoding: name, as: UTF8.self)
        if s.hasSuffix(swiftExtension) && s.count > swiftExtension.count { return true }
        if objectiveCExtensions.contains(where: { s.hasSuffix($0) && s.count > $0.count }) { return false }
        return nil
    }

    static func join(_ path: String, _ name: [UInt8]) -> String {
        let s = String(decoding: name, as: UTF8.self)
        return path.isEmpty ? s : path + "/" + s
    }

    static func text(_ code: Int32) -> String { SystemError(code: code, operation: "", path: "").reason }
}
