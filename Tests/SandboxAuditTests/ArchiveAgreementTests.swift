import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// One container read as a folder and as every archive kind the real tools make: the same
/// verdicts, entry by entry. The container has UTF-8 names (accents, emoji), `._` sidecars,
/// native exclusion attributes, a symlink and a hard link, and a variant whose data root itself
/// is excluded. Zip carries no extended attributes: the zips are made from a copy whose native
/// attributes became `._` sidecars (what macOS writes into a zip), and one tar from a copy whose
/// sidecars lie in a `__MACOSX` mirror inside the top folder.
final class ArchiveAgreementTests: XCTestCase {
    /// The container at `root`. `native`: exclusions as native attributes where the container
    /// has them, else as `._` sidecars (the zips' copy).
    func build(_ root: String, native: Bool, excludedRoot: Bool) throws {
        let carrier: BackupMarker.Carrier = native ? .native : .sidecar
        let value = BackupAttribute.canonicalValue
        try Fixture.container(at: root)
        try Fixture.file(root + "/Documents/café.txt", size: 120)
        try Fixture.file(root + "/Documents/😀 notes.md", size: 33)
        try BackupMarker.set(.exclude, value: value, on: root + "/Documents/😀 notes.md", carrier: .sidecar)
        try Fixture.file(root + "/Documents/Ünïcödé/inner.txt", size: 7)
        try BackupMarker.set(.exclude, value: value, on: root + "/Documents/Ünïcödé", carrier: carrier)
        try Fixture.file(root + "/Library/Application Support/naïve.db", size: 2048)
        try BackupMarker.set(
            .exclude, value: value, on: root + "/Library/Application Support/naïve.db", carrier: carrier)
        try Fixture.file(root + "/Library/Caches/日本語.bin", size: 10)
        try Fixture.file(root + "/tmp/upload.part", size: 3)
        try Fixture.file(root + "/Downloads/ep1.mp3", size: 500)
        try FileManager.default.createSymbolicLink(atPath: root + "/Documents/latest", withDestinationPath: "café.txt")
        // A hard link (two files in a zip), excluded on both names: natively on the one inode,
        // or by a sidecar beside each name.
        try Fixture.file(root + "/Library/Application Support/shared.bin", size: 64)
        XCTAssertEqual(link(root + "/Library/Application Support/shared.bin", root + "/Documents/shared-link.bin"), 0)
        if native {
            try BackupMarker.set(
                .exclude, value: value, on: root + "/Library/Application Support/shared.bin", carrier: .native)
        } else {
            for p in ["Library/Application Support/shared.bin", "Documents/shared-link.bin"] {
                try BackupMarker.set(.exclude, value: value, on: root + "/" + p, carrier: .sidecar)
            }
        }
        if excludedRoot { try BackupMarker.set(.exclude, value: value, on: root, carrier: carrier) }
    }

    /// Moves every `._NAME` sidecar under `root` into `root/__MACOSX/…/._NAME`.
    func mirrorSidecars(_ root: String) throws {
        try python(
            """
            import os, sys
            root = sys.argv[1].encode()
            for d, dirs, files in list(os.walk(root)):
                for f in files:
                    if f.startswith(b"._"):
                        rel = os.path.relpath(d, root)
                        target = os.path.join(root, b"__MACOSX", rel) if rel != b"." else os.path.join(root, \
            b"__MACOSX")
                        os.makedirs(target, exist_ok=True)
                        os.rename(os.path.join(d, f), os.path.join(target, f))
            """, [root])
    }

    /// A zip of `top` (in `dir`) and of `._top` beside it, by Python's zipfile (which sets the
    /// UTF-8 flag on every non-ASCII name), symlinks stored as symlinks.
    func pythonZip(_ dir: String, top: String, to zip: String) throws {
        try python(
            """
            import os, sys, stat, zipfile
            top, out = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, "w") as z:
                if os.path.exists("._" + top): z.write("._" + top)
                for d, dirs, files in os.walk(top):
                    z.write(d)
                    for f in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
                        p = os.path.join(d, f)
                        if os.path.islink(p):
                            info = zipfile.ZipInfo(p)
                            info.external_attr = (stat.S_IFLNK | 0o777) << 16
                            z.writestr(info, os.readlink(p))
                        else:
                            z.write(p)
            """, [top, zip], in: dir)
    }

    /// Verdicts by path: the fields every reading must agree on (hard links are files in a zip,
    /// so `countsInTotals` is left out; times and modes are each format's own).
    func verdicts(_ input: String) throws -> [String: String] {
        let (entries, _, result) = try CLI.inventory(input)
        // inventory exits 1 only when it missed something
        XCTAssertEqual(result.status, 0, "\(input): \(result.stderr)")
        var out: [String: String] = [:]
        for (p, e) in entries {
            var fields = ["kind", "zone", "excluded", "excludedBy", "backedUp", "survivesUpdate", "survivesRestore"].map
            { "\($0)=\(e[$0] ?? "nil")" }
            if e["kind"] as? String == "file" { fields.append("size=\(e["size"] ?? "nil")") }
            out[p] = fields.joined(separator: " ")
        }
        return out
    }

    func testEveryArchiveKindGivesTheFoldersVerdicts() throws {
        try agree(excludedRoot: false)
    }

    func testEveryArchiveKindGivesTheFoldersVerdictsWithTheDataRootExcluded() throws {
        try agree(excludedRoot: true)
    }

    func agree(excludedRoot: Bool) throws {
        try Tool.require("tar", "python3", for: "the container is written and read back by GNU tar and Python")
        let dir = try TempDir("agree")
        try build(dir.sub("C"), native: true, excludedRoot: excludedRoot)
        try build(dir.sub("Z"), native: false, excludedRoot: excludedRoot)
        try sh("cp -a Z M && if [ -e ._Z ]; then cp -a ._Z ._M; fi", in: dir.path)
        try mirrorSidecars(dir.sub("M"))
        let expected = try verdicts(dir.sub("C"))
        XCTAssertEqual(
            expected["Documents/😀 notes.md"],
            "kind=file zone=documents excluded=1 excludedBy=Documents/😀 notes.md backedUp=0 survivesUpdate=1 "
                + "survivesRestore=0 size=33"
        )
        XCTAssertNotNil(expected["Documents/café.txt"])
        XCTAssertNotNil(expected["Documents/Ünïcödé/inner.txt"])

        // GNU tar's archives where GNU tar records the attributes (Linux: `GNUTar`); macOS's tar
        // is bsdtar, which refuses `--xattrs-include`, and Homebrew's gtar records no Darwin
        // attributes, so there they are skipped, saying so.
        var kinds: [(String, String, String)] = []
        if let gnu = GNUTar.command {
            let tar = "\(gnu) --xattrs --xattrs-include='*'"
            kinds += [
                ("gnu-inside.tar", "\(tar) -C C -cf gnu-inside.tar .", "tar"),
                ("gnu-top.tar", "\(tar) -cf gnu-top.tar C", "tar"),
                ("gnu-inside.tar.gz", "\(tar) -C C -czf gnu-inside.tar.gz .", "gzip"),
                ("gnu-top.tgz", "\(tar) -czf gnu-top.tgz C/", "gzip"),
                ("gnu-inside.tar.xz", "\(tar) -C C -cJf gnu-inside.tar.xz .", "xz"),
            ]
        }
        // (what, the command that makes it, the tool it needs)
        kinds += [
            ("bsd-inside.tar", "bsdtar --xattrs -C C -cf bsd-inside.tar .", "bsdtar"),
            ("bsd-top.tar", "bsdtar --xattrs -cf bsd-top.tar C", "bsdtar"),
            ("mirror-top.tgz", "tar -czf mirror-top.tgz M/ $(ls -d ._M 2>/dev/null)", "gzip"),
            ("infozip.zip", "zip -qry infozip.zip Z $(ls -d ._Z 2>/dev/null)", "zip"),
            ("bsd.zip", "LC_ALL=C.UTF-8 bsdtar -a -cf bsd.zip Z $(ls -d ._Z 2>/dev/null)", "bsdtar"),
        ]
        var compared: [String] = []
        var skipped: [String] = []
        if GNUTar.command == nil {
            skipped.append("gnu-*: the system's tar is not GNU tar (macOS: bsdtar, made above as bsd-*)")
        }
        func check(_ input: String) throws {
            let got = try verdicts(input)
            XCTAssertEqual(Set(got.keys), Set(expected.keys), "\(input): other entries than the folder's")
            for (p, v) in expected where got[p] != v {
                XCTFail("\(input): \(p)\n  read   \(got[p] ?? "absent")\n  folder \(v)")
            }
            compared.append((input as NSString).lastPathComponent)
        }
        try check(dir.sub("Z"))
        try check(dir.sub("M"))
        for (name, command, tool) in kinds {
            guard Tool.find(tool) != nil else {
                skipped.append("\(name): \(tool) is not installed (\(Tool.packages[tool] ?? ""))")
                continue
            }
            try sh(command, in: dir.path)
            try check(dir.sub(name))
        }
        try pythonZip(dir.path, top: "Z", to: "python.zip")
        try check(dir.sub("python.zip"))
        // Python's zipfile and bsdtar flag the UTF-8 names: the flag is what hid them.
        let flags = try python(
            """
            import sys, zipfile
            print(sum(1 for i in zipfile.ZipFile(sys.argv[1]).infolist() if i.flag_bits & 0x800))
            """, [dir.sub("python.zip")])
        XCTAssertGreaterThan(Int(flags.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 0)
        if !skipped.isEmpty { print("ArchiveAgreementTests skipped: " + skipped.joined(separator: "; ")) }
        XCTAssertGreaterThanOrEqual(compared.count, 3, "compared: \(compared)")
    }

    /// A member whose name cannot be read is a reported problem, never dropped in silence.
    func testANamelessMemberIsReported() throws {
        try Tool.require("python3", for: "the zip is written by Python's zipfile")
        let dir = try TempDir("nameless")
        // A flagged name that is not UTF-8 cannot be converted in any locale.
        try python(
            """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr("Documents/ok.txt", "x")
                z.writestr("Documents/bad.txt", "y")
            data = bytearray(open(sys.argv[1], "rb").read())
            for sig in (b"PK\\x03\\x04", b"PK\\x01\\x02"):
                i = -1
                while True:
                    i = data.find(sig, i + 1)
                    if i < 0: break
                    off = 6 if sig == b"PK\\x03\\x04" else 8
                    name = 30 if sig == b"PK\\x03\\x04" else 46
                    if data[i + name: i + name + 13] == b"Documents/bad":
                        data[i + off + 1] |= 0x08
                        data[i + name + 10] = 0xFF
            open(sys.argv[1], "wb").write(data)
            """, [dir.sub("x.zip")])
        let (json, result) = try CLI.scanJSON([dir.sub("x.zip")])
        let inventory = try CLI.inventory(dir.sub("x.zip"))
        XCTAssertNotNil(inventory.entries["Documents/ok.txt"], result.stderr)
        let findings = json["findings"] as? [[String: Any]] ?? []
        XCTAssertTrue(
            findings.contains {
                ($0["ruleId"] as? String) == "unreadable-entry"
                    && "\($0["message"] ?? "")".contains("name cannot be read")
            },
            "\(findings)")
    }
}
