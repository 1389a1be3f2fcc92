import SandboxAuditCore
import SandboxAuditMeasure
import SandboxAuditRules
import SandboxAuditSimulate
import SandboxAuditSystem

/// The HTML report's treemap of the backup footprint by folder: a squarified layout (Bruls,
/// Huizing and van Wijk, 2000) of `FootprintNode`s, drawn as one inline SVG. Tiles are folders
/// (a header strip with their name, then their children) or files; a leaf tile is split by
/// backup state in proportion to its bytes.
enum Treemap {
    struct Rect { var x, y, w, h: Double }

    static let width = 900.0, height = 440.0
    /// Children drawn per folder; the rest are summed into one "N smaller items" tile (a leaf,
    /// named without a folder's slash).
    static let maxChildren = 24
    static let headerHeight = 16.0

    /// Squarified layout of `sizes` (largest first) in `rect`: rows laid along the shorter side,
    /// each row grown while it improves the worst aspect ratio.
    static func squarify(_ sizes: [Double], in rect: Rect) -> [Rect] {
        let total = sizes.reduce(0, +)
        guard total > 0, rect.w > 0, rect.h > 0 else {
            return sizes.map { _ in Rect(x: rect.x, y: rect.y, w: 0, h: 0) }
        }
        let scale = rect.w * rect.h / total
        let areas = sizes.map { $0 * scale }
        var out: [Rect] = []
        var free = rect
        var i = 0
        func worst(_ row: ArraySlice<Double>, _ side: Double) -> Double {
            let s = row.reduce(0, +)
            guard s > 0, let mx = row.max(), let mn = row.min(), mn > 0 else { return .infinity }
            return max(side * side * mx / (s * s), (s * s) / (side * side * mn))
        }
        while i < areas.count {
            let side = min(free.w, free.h)
            var j = i + 1
            while j < areas.count, worst(areas[i...j], side) <= worst(areas[i..<j], side) { j += 1 }
            let row = areas[i..<j]
            let rowSum = row.reduce(0, +)
            if free.w >= free.h {
                // A column on the left, as wide as the row's area needs.
                let colW = free.h > 0 ? rowSum / free.h : 0
                var y = free.y
                for a in row {
                    let h = colW > 0 ? a / colW : 0
                    out.append(Rect(x: free.x, y: y, w: colW, h: h))
                    y += h
                }
                free = Rect(x: free.x + colW, y: free.y, w: max(0, free.w - colW), h: free.h)
            } else {
                let rowH = free.w > 0 ? rowSum / free.w : 0
                var x = free.x
                for a in row {
                    let w = rowH > 0 ? a / rowH : 0
                    out.append(Rect(x: x, y: free.y, w: w, h: rowH))
                    x += w
                }
                free = Rect(x: free.x, y: free.y + rowH, w: free.w, h: max(0, free.h - rowH))
            }
            i = j
        }
        return out
    }

    /// A folder's children to draw: the largest, and the rest as one summed-up tile.
    static func visibleChildren(_ node: FootprintNode) -> [FootprintNode] {
        let kids = node.children.filter { $0.size > 0 }
        guard kids.count > maxChildren else { return kids }
        var rest = FootprintNode(path: node.path, isFolder: false)
        rest.summedItems = kids.count - maxChildren + 1
        for k in kids.dropFirst(maxChildren - 1) {
            rest.backedUp += k.backedUp
            rest.excluded += k.excluded
            rest.notBackedUp += k.notBackedUp
        }
        return Array(kids.prefix(maxChildren - 1)) + [rest]
    }

    static func svg(_ root: FootprintNode, label: String, height: Double = Treemap.height) -> String {
        let x = XMLText.escape
        guard root.size > 0 else { return "<p>No file contents.</p>" }
        var s =
            "<svg class=\"treemap\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
            + "aria-label=\"\(x(label))\">"
        s += "<title>\(x(label))</title>"
        draw(root, in: Rect(x: 0, y: 0, w: width, h: height), depth: 0, into: &s)
        return s + "</svg>"
    }

    static func f(_ v: Double) -> String { HTMLReport.fmt(v) }

    static func tooltip(_ n: FootprintNode) -> String {
        let what =
            n.summedItems == nil
            ? "\(n.path.display)\(n.isFolder ? "/" : "")"
            : "\(n.name) in \(n.path.isRoot ? "the data root" : n.path.display + "/")"
        var parts = ["\(what): \(ByteSize.format(n.size))"]
        if n.backedUp > 0 { parts.append("backed up \(ByteSize.format(n.backedUp))") }
        if n.excluded > 0 { parts.append("excluded \(ByteSize.format(n.excluded))") }
        if n.notBackedUp > 0 { parts.append("not backed up where it is \(ByteSize.format(n.notBackedUp))") }
        return parts.joined(separator: " · ")
    }

    /// A label cut to what fits in `w` pixels at about 6.5 px a character.
    static func fit(_ text: String, _ w: Double) -> String? {
        let room = Int((w - 6) / 6.5)
        guard room >= 3 else { return nil }
        return text.count <= room ? text : String(text.prefix(room - 1)) + "…"
    }

    static func draw(_ node: FootprintNode, in r: Rect, depth: Int, into s: inout String) {
        let x = XMLText.escape
        let kids =
            node.path.isRoot || (node.isFolder && r.w > 24 && r.h > headerHeight + 12) ? visibleChildren(node) : []
        if node.path.isRoot {
            let rects = squarify(kids.map { Double($0.size) }, in: r)
            for (k, kr) in zip(kids, rects) { draw(k, in: kr, depth: depth + 1, into: &s) }
            return
        }
        s += "<g><title>\(x(tooltip(node)))</title>"
        if kids.isEmpty {
            // A leaf: split by backup state along its longer side.
            var offset = 0.0
            let total = Double(node.size)
            for (value, color) in [
                (node.backedUp, HTMLReport.colors.backed), (node.excluded, HTMLReport.colors.excluded),
                (node.notBackedUp, HTMLReport.colors.skipped),
            ] where value > 0 {
                let share = Double(value) / total
                if r.w >= r.h {
                    s +=
                        "<rect x=\"\(f(r.x + offset))\" y=\"\(f(r.y))\" width=\"\(f(r.w * share))\" "
                        + "height=\"\(f(r.h))\" fill=\"\(color)\"/>"
                    offset += r.w * share
                } else {
                    s +=
                        "<rect x=\"\(f(r.x))\" y=\"\(f(r.y + offset))\" width=\"\(f(r.w))\" "
                        + "height=\"\(f(r.h * share))\" fill=\"\(color)\"/>"
                    offset += r.h * share
                }
            }
            s += "<rect x=\"\(f(r.x))\" y=\"\(f(r.y))\" width=\"\(f(r.w))\" height=\"\(f(r.h))\" class=\"tile\"/>"
            if r.h >= 28, let name = fit(node.name + (node.isFolder ? "/" : ""), r.w),
                let size = fit(ByteSize.format(node.size), r.w)
            {
                s += "<text x=\"\(f(r.x + 4))\" y=\"\(f(r.y + 13))\" class=\"tl\">\(x(name))</text>"
                s += "<text x=\"\(f(r.x + 4))\" y=\"\(f(r.y + 25))\" class=\"ts\">\(x(size))</text>"
            } else if r.h >= 14, let name = fit(node.name, r.w) {
                s += "<text x=\"\(f(r.x + 4))\" y=\"\(f(r.y + 11))\" class=\"tl\">\(x(name))</text>"
            }
        } else {
            // A folder: a header strip with its name and size, its children below.
            s +=
                "<rect x=\"\(f(r.x))\" y=\"\(f(r.y))\" width=\"\(f(r.w))\" height=\"\(f(r.h))\" class=\"folder "
                + "d\(min(depth, 3))\"/>"
            if let label = fit("\(node.name)/ \(ByteSize.format(node.size))", r.w) {
                s += "<text x=\"\(f(r.x + 4))\" y=\"\(f(r.y + 12))\" class=\"th\">\(x(label))</text>"
            }
            let inner = Rect(x: r.x + 2, y: r.y + headerHeight, w: max(0, r.w - 4), h: max(0, r.h - headerHeight - 2))
            let rects = squarify(kids.map { Double($0.size) }, in: inner)
            for (k, kr) in zip(kids, rects) { draw(k, in: kr, depth: depth + 1, into: &s) }
        }
        s += "</g>"
    }

    static let css = """
        .treemap{width:100%;height:auto;display:block;background:#fff;border:1px solid var(--line);border-radius:8px}
        .treemap .tile{fill:none;stroke:#fff;stroke-width:1}.treemap .folder{stroke:#fff;stroke-width:1}
        .treemap .d1{fill:#374151}.treemap .d2{fill:#4b5563}.treemap .d3{fill:#6b7280}
        .treemap text{pointer-events:none;font-size:11px}.treemap .th{fill:#fff;font-weight:600}
        .treemap .tl{fill:#fff;font-weight:600}.treemap .ts{fill:#f3f4f6}
        """
}
