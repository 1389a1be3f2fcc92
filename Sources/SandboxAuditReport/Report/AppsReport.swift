import SandboxAuditCore
import SandboxAuditSystem

/// `sandbox-audit apps`: the listing as text or JSON (docs/json-format.md, "apps"). Printers
/// of what `InstalledApps.list` decided, in the Report stage with the others: they decide nothing.
extension InstalledApps {
    /// Bumped on any change that could break a reader.
    static let schemaVersion: Int64 = 1

    static func located(_ m: InstalledApps.Member) -> String {
        if let p = m.path {
            return TerminalText.escaped(p) + (m.evidence.map { " (" + TerminalText.escaped($0) + ")" } ?? "")
        }
        guard let d = m.domain else {
            return "no domain (listed in the backup's Info.plist only: nothing of it is backed up)"
        }
        let size = m.bytes.map {
            ", \(ByteSize.format($0)) backed up"
                + (m.unsized > 0 ? " (\(groupedDigits(Int64(m.unsized))) files of unknown size)" : "")
        }
        return TerminalText.escaped(d)
            + (m.items.map { ", \(groupedDigits(Int64($0))) item\($0 == 1 ? "" : "s")" } ?? "") + (size ?? "")
    }

    /// The listing for a reader: each app, its extensions and groups, then every group.
    package var text: String {
        let listing = self
        var lines = ["\(listing.apps.count) app\(listing.apps.count == 1 ? "" : "s") in the \(listing.source)"]
        for a in listing.apps {
            lines.append("")
            lines.append(TerminalText.escaped(a.app.identifier) + "  " + Self.located(a.app))
            for e in a.extensions {
                lines.append("  extension  " + TerminalText.escaped(e.identifier) + "  " + Self.located(e))
            }
            for g in a.groups {
                lines.append("  app group  " + TerminalText.escaped(g.identifier) + "  " + Self.located(g))
            }
        }
        if !listing.groups.isEmpty {
            lines.append("")
            lines.append(
                "App Groups (\(listing.groups.count); listed under an app when named after it, group.APP…: neither a "
                    + "backup nor a device folder says which app uses a group):"
            )
            for g in listing.groups { lines.append("  " + TerminalText.escaped(g.identifier) + "  " + Self.located(g)) }
        }
        if !listing.unattributedExtensions.isEmpty {
            lines.append("")
            lines.append("extensions of no listed app:")
            for e in listing.unattributedExtensions {
                lines.append("  " + TerminalText.escaped(e.identifier) + "  " + Self.located(e))
            }
        }
        for n in listing.notes { lines.append("note: " + TerminalText.escaped(n)) }
        lines.append("")
        let input =
            listing.kind == "backup"
            ? "BACKUP"
            : listing.kind == "device"
                ? "EXTRACTION_FOLDER"
                : (listing.source.hasPrefix("Simulator device folder") ? "DEVICE_FOLDER" : "--simulator DEVICE")
        lines.append("audit one: sandbox-audit scan \(input) --app BUNDLE_ID [--app-group GROUP_ID]")
        return lines.joined(separator: "\n") + "\n"
    }

    static func member(_ m: InstalledApps.Member, identifier: String = "identifier") -> JSON {
        .object([
            (identifier, .string(m.identifier)), ("domain", .optional(m.domain)), ("path", .optional(m.path)),
            ("items", .optional(m.items.map { Int64($0) })), ("backedUpBytes", .optional(m.bytes)),
            ("filesOfUnknownSize", .optional(m.bytes.map { _ in Int64(m.unsized) })),
            ("identifiedBy", .optional(m.evidence)),
        ])
    }

    /// The listing as one JSON object (docs/json-format.md, "apps").
    package var json: String {
        let listing = self
        return JSON.object([
            ("schemaVersion", .int(Self.schemaVersion)),
            ("kind", .string(listing.kind)),
            ("source", .string(listing.source)),
            (
                "apps",
                .array(
                    listing.apps.map { a in
                        guard case .object(let fields) = Self.member(a.app, identifier: "bundleIdentifier") else {
                            return .null
                        }
                        return .object(
                            fields + [
                                ("extensions", .array(a.extensions.map { Self.member($0) })),
                                ("appGroups", .array(a.groups.map { Self.member($0) })),
                            ])
                    })
            ),
            ("appGroups", .array(listing.groups.map { Self.member($0) })),
            ("unattributedExtensions", .array(listing.unattributedExtensions.map { Self.member($0) })),
            ("notes", .array(listing.notes.map { .string($0) })),
        ]).prettyLine
    }
}
