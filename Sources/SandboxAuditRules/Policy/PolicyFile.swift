import Foundation
import SandboxAuditCore
import SandboxAuditSystem
import Yams

/// Reads and validates `.sandbox-audit.yml`. Every error names the file, line and column and,
/// for a misspelt key or rule id, the nearest valid one.
public enum PolicyFile {
    public static let fileName = ".sandbox-audit.yml"

    /// The policy file for `directory`: the first `.sandbox-audit.yml` found from it upward, up
    /// to the repository root (the first folder holding `.git`) or the file system root.
    static func find(from directory: String) -> String? {
        var dir = URL(fileURLWithPath: directory).standardizedFileURL
        while true {
            let candidate = dir.appendingPathComponent(fileName).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent(".git").path) { return nil }
            let parent = dir.deletingLastPathComponent()
            if parent.path == dir.path { return nil }
            dir = parent
        }
    }

    /// Policy files larger than this are refused (a full one is a few kilobytes).
    static let maximumSize = 1 << 20

    /// Loads the file at `path`. Anything but a regular file (a folder, a FIFO, a device) is
    /// refused before it is opened, so a FIFO never blocks; the file is read through a
    /// non-blocking descriptor and at most `maximumSize` bytes are taken.
    static func load(_ path: String) throws -> Policy {
        let st: FileStatus
        switch Result(catching: { () throws(Errno) in try FileDescriptor.currentDirectory.status(following: path.utf8) }
        ) {
        case .success(let s): st = s
        case .failure(let e):
            throw InputError("cannot read \(path): \(e.code == ENOENT ? "no such file" : errorText(e.code))")
        }
        switch st.kind {
        case .regular: break
        case .directory: throw InputError("cannot read \(path): is a directory, not a policy file")
        default: throw InputError("cannot read \(path): is not a regular file")
        }
        guard st.size <= Int64(maximumSize) else {
            throw InputError("\(path): \(st.size) bytes, over the \(maximumSize)-byte limit for a policy file")
        }
        let bytes: [UInt8]
        do {
            // Opened non-blocking and checked again after opening (a race cannot swap in a FIFO).
            bytes = try BoundedRead.file(Array(path.utf8), limit: maximumSize, followSymlink: true)
        } catch let e as BoundedRead.Failure {
            throw InputError("cannot read \(path): \(e)")
        }
        guard let text = ByteText.utf8String(bytes) else { throw InputError("\(path): not UTF-8 text") }
        return try parse(text, source: path)
    }

    /// The most globs a policy may hold, and the most bytes of glob text in all, each YAML alias
    /// counted at every use: a path is matched against a policy in at most its length times its
    /// glob text (`Glob.match`), so this bounds a policy's work per entry (docs/limits.md).
    static let maximumGlobs = 1_000
    static let maximumGlobBytes = 64 * 1024

    /// The globs read so far while parsing one file (one thread parses it; the lock makes the
    /// task-local value `Sendable` without a promise the compiler cannot check).
    final class GlobAllowance: Sendable {
        let used = Locked((count: 0, bytes: 0))
    }
    @TaskLocal static var globAllowance: GlobAllowance?

    // MARK: the schema

    // The keys each mapping allows, from the declarations the JSON Schema is made of too
    // (`PolicySchema`): a key is added there, with what its value may be.
    static let topKeys = PolicySchema.keys(PolicySchema.top)
    static let pathKeys = PolicySchema.keys(PolicySchema.pathEntry)
    static let budgetKeys = PolicySchema.keys(PolicySchema.budgets)
    static let budgetPathKeys = PolicySchema.keys(PolicySchema.budgetPathEntry)
    static let zoneBudgetKeys = PolicySchema.keys(PolicySchema.zoneBudget)
    static let growthKeys = PolicySchema.keys(PolicySchema.growth)
    static let suppressKeys = PolicySchema.keys(PolicySchema.suppressEntry)

    // MARK: parsing

    struct Failure: Error {
        let message: String
        let mark: Mark?
    }

    static func parse(_ text: String, source: String) throws -> Policy {
        var policy = Policy()
        policy.source = source
        do {
            guard let root = try Yams.compose(yaml: text) else { return policy }
            try $globAllowance.withValue(GlobAllowance()) { try read(root, into: &policy) }
        } catch let f as Failure {
            let at = f.mark.map { "\(source):\($0.line):\($0.column)" } ?? source
            throw InputError("\(at): \(f.message)")
        } catch let e as YamlError {
            throw InputError(describe(e, source: source))
        }
        return policy
    }

    static func describe(_ e: YamlError, source: String) -> String {
        switch e {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            return "\(source):\(mark.line):\(mark.column): YAML syntax error: \(problem)"
        case .duplicatedKeysInMapping(let duplicates, let context):
            let keys = duplicates.map { "'\($0)'" }.joined(separator: ", ")
            return "\(source):\(context.mark.line):\(context.mark.column): duplicate key \(keys)"
        default:
            return "\(source): YAML error: \(e)"
        }
    }

    static func mapping(_ node: Node, _ what: String) throws -> Node.Mapping {
        guard let m = node.mapping else {
            throw Failure(message: "\(what) must be a mapping (key: value lines)", mark: node.mark)
        }
        return m
    }

    static func string(_ node: Node, _ what: String) throws -> String {
        guard let s = node.scalar?.string else {
            throw Failure(message: "\(what) must be a single value", mark: node.mark)
        }
        return s
    }

    static func checkKeys(_ m: Node.Mapping, allowed: [String], in what: String) throws {
        for (k, _) in m {
            let key = try string(k, "a key")
            guard allowed.contains(key) else {
                var message = "unknown key '\(key)' in \(what)"
                if let near = nearest(key, in: allowed) { message += "; did you mean '\(near)'?" }
                message += " (valid: \(allowed.joined(separator: ", ")))"
                throw Failure(message: message, mark: k.mark)
            }
        }
    }

    static func size(_ node: Node, _ what: String) throws -> Int64 {
        let s = try string(node, what)
        guard let v = ByteSize.parse(s) else {
            throw Failure(message: "\(what): '\(s)' is not a size; \(ByteSize.accepted)", mark: node.mark)
        }
        return v
    }

    static func severity(_ node: Node, _ what: String, allowOff: Bool) throws -> Severity? {
        let s = try string(node, what)
        if allowOff, s == "off" || s == "false" { return nil }
        guard let v = Severity(rawValue: s) else {
            let allowed = (allowOff ? ["off"] : []) + Severity.allCases.reversed().map(\.rawValue)
            throw Failure(
                message: "\(what) must be one of \(allowed.joined(separator: ", ")), not '\(s)'", mark: node.mark)
        }
        return v
    }

    static func glob(_ node: Node, _ what: String) throws -> Glob {
        let s = try string(node, what)
        if let allowance = globAllowance {
            let a = allowance.used.withLock { u in
                u.count += 1
                u.bytes += s.utf8.count
                return u
            }
            if a.count > maximumGlobs {
                throw Failure(
                    message:
                        "more than \(maximumGlobs) globs (YAML aliases counted at each use): the limit of a policy "
                        + "file",
                    mark: node.mark)
            }
            if a.bytes > maximumGlobBytes {
                throw Failure(
                    message:
                        "more than \(maximumGlobBytes) bytes of globs (YAML aliases counted at each use): the limit "
                        + "of a policy file",
                    mark: node.mark)
            }
        }
        do { return try Glob(s) } catch {
            throw Failure(message: "\(what): bad glob '\(String(s.prefix(200)))': \(error)", mark: node.mark)
        }
    }

    /// The nearest candidate by edit distance, when close enough to be a likely typo.
    static func nearest(_ word: String, in candidates: [String]) -> String? {
        let best = candidates.map { ($0, editDistance(word, $0)) }.min { $0.1 < $1.1 }
        guard let (candidate, d) = best, d <= max(2, word.count / 3) else { return nil }
        return candidate
    }
}
