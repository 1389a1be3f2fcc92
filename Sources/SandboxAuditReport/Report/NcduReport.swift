import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// ncdu's JSON export, format 1.2 in its extended mode (https://dev.yorhel.nl/ncdu/jsonfmt),
/// so a scanned container opens in `ncdu -f FILE` or `gdu -f FILE`: every entry of the
/// inventory with its apparent and allocated size, inode, link count, mode and modification
/// time. One container is the export's root, named by its data root; several (an app with its
/// extensions and App Groups) are one folder each, named by backup domain, under a top folder
/// named for the app. What the scan could not read carries ncdu's `read_error`.
enum NcduReport {
    /// One folder or entry of the tree written.
    struct Node {
        var name: [UInt8]
        var entry: EntryFields?
        var readError = false
        var children: [Int] = []
    }

    static func render(_ report: ScanReport) -> String {
        let result = report.result
        var nodes: [Node] = []
        let multi = result.inventories.count > 1
        if multi {
            let app = result.inventory.container.bundleIdentifier.map { " \($0)" } ?? ""
            nodes.append(Node(name: Array("/app\(app) (\(result.inventories.count) backup domains)".utf8)))
        }
        for inventory in result.inventories {
            let top = nodes.count
            nodes.append(Node(name: Array((multi ? inventory.domain : inventory.container.dataRoot).utf8)))
            if multi { nodes[0].children.append(top) }
            var index: [ContainerPath: Int] = [.root: top]
            // The folder of `path`, made (as bare folders, without recursion: chains run thousands
            // deep) when the inventory does not list it or the folders above it.
            func folder(_ path: ContainerPath) -> Int {
                var missing: [ContainerPath] = []
                var p = path
                while index[p] == nil, let up = p.parent {
                    missing.append(p)
                    p = up
                }
                for m in missing.reversed() {
                    nodes.append(Node(name: Array(m.name)))
                    nodes[index[m.parent ?? .root]!].children.append(nodes.count - 1)
                    index[m] = nodes.count - 1
                }
                return index[path]!
            }
            for e in inventory.entries {
                let parent = folder(e.path.parent ?? .root)
                if let existing = index[e.path] {
                    nodes[existing].entry = e.entry
                    continue
                }
                nodes.append(Node(name: Array(e.path.name), entry: e.entry))
                index[e.path] = nodes.count - 1
                nodes[parent].children.append(nodes.count - 1)
            }
            let missed = result.missed.filter { $0.domain == inventory.domain }
            // On the entry, else (an AppleDouble sidecar, which is no entry) its nearest folder.
            for m in missed {
                var p: ContainerPath? = m.path
                while let q = p, index[q] == nil { p = q.parent }
                nodes[p.flatMap { index[$0] } ?? top].readError = true
            }
        }
        if !result.complete && !nodes.contains(where: \.readError) { nodes[0].readError = true }
        var out: [UInt8] = []
        out += #"[1,2,{"progname":"sandbox-audit","progver":"#.utf8
        JSON.escape(Audit.toolVersion, into: &out)
        out += "},\n".utf8
        write(nodes, into: &out)
        out += "]\n".utf8
        return String(decoding: out, as: UTF8.self)
    }

    /// The tree from node 0, depth first without recursion (containers run thousands of
    /// folders deep): a folder is `[info, child, …]`, anything else its info object.
    static func write(_ nodes: [Node], into out: inout [UInt8]) {
        var stack: [(node: Int, next: Int)] = [(0, -1)]
        while let (n, next) = stack.last {
            if next == -1 {
                let isFolder = nodes[n].entry.map { $0.kind == .directory } ?? true
                if isFolder { out.append(UInt8(ascii: "[")) }
                info(nodes[n], into: &out)
                if !isFolder {
                    stack.removeLast()
                    continue
                }
            }
            if next + 1 < nodes[n].children.count {
                stack[stack.count - 1].next = next + 1
                out += ",\n".utf8
                stack.append((nodes[n].children[next + 1], -1))
            } else {
                out.append(UInt8(ascii: "]"))
                stack.removeLast()
            }
        }
    }

    static func info(_ node: Node, into out: inout [UInt8]) {
        out += #"{"name":"#.utf8
        JSON.escape(nameText(node.name), into: &out)
        func field(_ key: String, _ value: String) { out += ",\"\(key)\":\(value)".utf8 }
        if let e = node.entry {
            field("asize", String(max(0, e.size)))
            field("dsize", String(max(0, e.allocated)))
            if e.inode != 0 { field("ino", String(e.inode)) }
            if e.kind == .file && e.linkCount > 1 {
                field("nlink", String(e.linkCount))
                field("hlnkc", "true")
            }
            if e.kind != .file && e.kind != .directory { field("notreg", "true") }
            field("mode", String(typeBits(e) | (e.mode & 0o7777)))
            field("mtime", String(max(0, e.modifiedSeconds)))
        } else {
            field("asize", "0")
            field("dsize", "0")
        }
        if node.readError { field("read_error", "true") }
        out.append(UInt8(ascii: "}"))
    }

    /// A name as ncdu shows it, one text per name: each byte that is not UTF-8 written `\xHH`,
    /// and so a backslash written `\\` (the one-byte name 0xFF is `\xFF`, the four-character
    /// name `\xFF` is `\\xFF`).
    static func nameText(_ name: [UInt8]) -> String {
        let backslash = UInt8(ascii: "\\")
        guard name.contains(backslash) else { return ByteText.display(name) }
        return name.split(separator: backslash, omittingEmptySubsequences: false).map { ByteText.display($0) }.joined(
            separator: "\\\\")
    }

    /// The file type bits of `st_mode`, from the kind (an archive member's mode may lack them).
    static func typeBits(_ e: EntryFields) -> UInt32 {
        switch e.kind {
        case .file: return 0o100000
        case .directory: return 0o040000
        case .symlink: return 0o120000
        case .other:
            switch e.special {
            case .fifo: return 0o010000
            case .socket: return 0o140000
            case .characterDevice: return 0o020000
            case .blockDevice: return 0o060000
            case nil: return 0
            }
        }
    }
}
