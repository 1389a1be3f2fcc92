import Foundation
import SandboxAuditCore
import SandboxAuditSystem

/// `orphan-sidecar`: an AppleDouble `._NAME` sidecar that describes no entry of the container.
struct OrphanSidecar: Rule {
    init() {}
    /// What it needs of the scan (`RuleNeed`): where the input or the run does not give it, the
    /// audit reports the rule "not checked" there.
    let needs: [RuleNeed] = [.requires(.attributesOnDisk)]
    let description = RuleDescription(
        id: "orphan-sidecar",
        name: "Orphan AppleDouble sidecar",
        summary:
            "An AppleDouble ._NAME sidecar (beside its item or in a __MACOSX folder) whose item is not in the "
            + "container, or is named the same only under another Unicode normalisation.",
        rationale: """
            macOS stores extended attributes, the exclude-from-backup attribute among them, in an AppleDouble \
            ._NAME file beside NAME wherever the file system cannot hold them, and Finder and ditto zips keep \
            them under __MACOSX/ (xnu, bsd/vfs/vfs_xattr.c, \
            https://github.com/apple-oss-distributions/xnu/blob/main/bsd/vfs/vfs_xattr.c). A sidecar whose item \
            is gone carries an exclusion that applies to nothing: the item it was meant for, if it comes back \
            under another name, is backed up (Apple, URLResourceValues.isExcludedFromBackup, \
            https://developer.apple.com/documentation/foundation/urlresourcevalues/isexcludedfrombackup). A name \
            that differs from an entry's only by Unicode normalisation (NFD against NFC) is one name to a Mac's \
            file system (Apple, Apple File System Guide › Frequently Asked Questions, \
            https://developer.apple.com/library/archive/documentation/FileManagement/Conceptual/APFS_Guide/FAQ/\
            FAQ.html), \
            so the audit gives that entry the sidecar's attributes and says so. The sidecar's bytes count with the \
            sidecars read, never in the app's totals.
            """,
        fix:
            "Delete the stray ._ file, or mark the item it was meant for (sandbox-audit exclude); for a "
            + "normalisation mismatch, rename one of the two so their bytes agree.",
        defaultSeverity: .note,
        severityNote: nil,
        triggeringExamples: [
            RuleExample(
                "A sidecar left behind by a deleted download",
                [
                    .file("Library/Application Support/pack-2.zip"),
                    .bytes("Library/Application Support/._pack-1.zip", OrphanSidecar.sampleSidecar),
                ],
                expect: ["Library/Application Support/._pack-1.zip"]),
            RuleExample(
                "A sidecar named in NFD beside a file named in NFC",
                [.file("Documents/Caf\u{E9}.txt"), .bytes("Documents/._Cafe\u{301}.txt", OrphanSidecar.sampleSidecar)],
                expect: ["Documents/._Cafe\u{301}.txt"]),
        ],
        nonTriggeringExamples: [
            RuleExample(
                "A sidecar beside its file", [.file("Library/Application Support/pack.zip", .exclude(via: .sidecar))]),
            RuleExample(
                "A file named like a sidecar that is not one", [.bytes("Documents/._notes", Array("plain text".utf8))]),
        ])

    /// An AppleDouble file holding the canonical exclude attribute.
    static let sampleSidecar = AppleDouble.build(
        AppleDouble.Parsed(attributes: [(BackupAttribute.exclude.macName, BackupAttribute.canonicalValue)]))

    func check(_ inventory: Inventory, _ context: RuleContext) -> [Finding] {
        inventory.orphanSidecars.map { o in
            // A sidecar that describes nothing goes with its file; under a normalisation
            // mismatch, renaming one of the two keeps the mark.
            let fix = FixCommand.onDisk(o.sidecar, in: inventory).map { file in
                o.sameUnderNormalisation
                    ? "Rename the sidecar or \(o.nearest?.display ?? "the item") so their bytes agree, or delete the "
                        + "sidecar (rm -- \(file)) and mark the item again if it was meant to be excluded."
                    : "Delete the stray ._ file (rm -- \(file)), or put back the item it was meant for."
            }
            return finding(o.sidecar, message(o), size: o.size, fix: fix)
        }
    }

    func message(_ o: SidecarOrphan) -> String {
        let kinds = Set(o.marks.map(\.attribute))
        let holds: String
        switch (kinds.contains(.exclude), kinds.contains(.legacy)) {
        case (true, true): holds = "the exclude attribute and the legacy com.apple.MobileBackup attribute"
        case (true, false): holds = "the exclude attribute"
        case (false, true): holds = "the legacy com.apple.MobileBackup attribute"
        case (false, false): holds = "no backup attribute"
        }
        let target = o.target.display
        if o.sameUnderNormalisation, let nearest = o.nearest {
            func form(_ p: ContainerPath) -> String {
                let s = String(decoding: p.name, as: UTF8.self)
                return s.unicodeScalars.elementsEqual(s.precomposedStringWithCanonicalMapping.unicodeScalars)
                    ? "NFC"
                    : s.unicodeScalars.elementsEqual(s.decomposedStringWithCanonicalMapping.unicodeScalars)
                        ? "NFD" : "mixed"
            }
            let applied = kinds.isEmpty ? "nothing to apply" : "its \(holds) was applied to \(nearest.display)"
            return
                "AppleDouble sidecar \(o.sidecar.display) holds \(holds) for \(target) (\(form(o.target))), which "
                + "the container holds as \(nearest.display) (\(form(nearest))): the same name under Unicode "
                + "normalisation, one name to a Mac's file system, so \(applied)"
        }
        let nearest = o.nearest.map { "nearest by name in that folder: \($0.display)" } ?? "nothing in that folder"
        return
            "AppleDouble sidecar \(o.sidecar.display) holds \(holds) for \(target), which the container does not "
            + "hold: it applies to nothing (\(nearest))"
    }
}
