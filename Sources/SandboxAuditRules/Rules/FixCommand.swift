import SandboxAuditCore
import SandboxAuditSystem

/// The `sandbox-audit include` / `exclude` command that fixes a finding on disk, as a finding's
/// own fix text names it: the carrier the scan saw and the item's path, quoted for a shell.
enum FixCommand {
    /// `sandbox-audit VERB [--legacy] [--carrier C] 'DATAROOT/PATH'`, where C is the one carrier
    /// of `attribute` the scan saw on `entry` (none when it saw several: the command then acts on
    /// all of them). Nil when the container is not a folder on disk (an archive, a backup: its
    /// input's `InputCapabilities.filesOnDisk`) or the path is not UTF-8 (a shell command could
    /// not name it reliably).
    static func command(
        _ verb: String, _ entry: InventoryEntry, in inventory: Inventory, attribute: BackupAttribute = .exclude
    ) -> String? {
        command(verb, entry.path, marks: entry.entry.marks, in: inventory, attribute: attribute)
    }

    /// As above for a path and its marks (the data root's own: `.root`, `rootMarks`); `only`
    /// names the carrier whatever the marks say.
    static func command(
        _ verb: String, _ path: ContainerPath, marks: [AttributeMark], in inventory: Inventory,
        attribute: BackupAttribute = .exclude, only: BackupMarker.Carrier? = nil
    ) -> String? {
        guard let target = onDisk(path, in: inventory) else { return nil }
        let carriers = Array(Set(marks.filter { $0.attribute == attribute }.map { carrier($0.source) })).sorted {
            $0.rawValue < $1.rawValue
        }
        var words = ["sandbox-audit", verb]
        if attribute == .legacy { words.append("--legacy") }
        if let only {
            words += ["--carrier", only.rawValue]
        } else if carriers.count == 1 {
            words += ["--carrier", carriers[0].rawValue]
        }
        words.append(target)
        return words.joined(separator: " ")
    }

    /// `path` on disk (the data root joined to it), quoted for a shell; nil when the container
    /// is not a folder on disk, or the path is not UTF-8 or lies outside the data root.
    static func onDisk(_ path: ContainerPath, in inventory: Inventory) -> String? {
        let container = inventory.container
        // The path's text made once: UTF-8 without a backslash (`base64` nil) is its own
        // display text. The data root itself (display ".", no bytes) has no command.
        // (`String(decoding:)` of the array here, not the generic `ByteText.utf8String`, which
        // steps through a collection it does not know.)
        guard container.source.capabilities.filesOnDisk, !path.isRoot, !container.dataRoot.isEmpty,
            !path.bytes.contains(UInt8(ascii: "\\")), path.isValidUTF8
        else { return nil }
        let text = String(decoding: path.bytes, as: UTF8.self)
        guard !text.hasPrefix("/") else { return nil }
        return quoted(container.dataRoot + "/" + text)
    }

    /// Where the scan saw a mark, as `--carrier` names it.
    static func carrier(_ source: AttributeSource) -> BackupMarker.Carrier {
        switch source {
        case .native, .manifest: return .native
        case .appleDouble: return .sidecar
        case .macosxMirror: return .macosx
        }
    }

    /// "native", "a ._ sidecar", "a __MACOSX mirror sidecar": for fix texts.
    static func carrierPhrase(_ marks: [AttributeMark], attribute: BackupAttribute = .exclude) -> String {
        let carriers = Set(marks.filter { $0.attribute == attribute }.map { carrier($0.source) })
        let phrases: [String] = BackupMarker.Carrier.allCases.filter(carriers.contains).map {
            switch $0 {
            case .native: return "a native extended attribute"
            case .sidecar: return "its ._ sidecar"
            case .macosx: return "its __MACOSX mirror sidecar"
            }
        }
        return phrases.joined(separator: " and ")
    }

    /// Single-quoted for POSIX shells.
    static func quoted(_ s: String) -> String {
        // Most paths hold no quote: Foundation's replacing is left for those that do.
        s.utf8.contains(UInt8(ascii: "'")) ? "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" : "'" + s + "'"
    }
}
