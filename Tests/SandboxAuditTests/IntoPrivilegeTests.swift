import Foundation
import XCTest

@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

#if canImport(Glibc)
    import Glibc
#endif

/// `simulate --into` writes a tree owned by whoever runs it (root on most CI runners): nothing in
/// it may hand out privilege. A setuid file another user owned used to land as a root-owned
/// `-rwsr-xr-x` copy that `nobody` ran with euid 0 (issue 45).
final class IntoPrivilegeTests: XCTestCase {
    /// The permissions written, for every kind of bit a hostile input may carry.
    func testWrittenModeClearsWhatHandsOutPrivilege() {
        XCTAssertEqual(Materializer.writtenMode(0o4755), 0o755, "setuid")
        XCTAssertEqual(Materializer.writtenMode(0o2755), 0o755, "setgid")
        XCTAssertEqual(Materializer.writtenMode(0o6777), 0o775, "setuid, setgid, write for others")
        XCTAssertEqual(Materializer.writtenMode(0o1777), 0o775, "sticky, world-writable folder")
        XCTAssertEqual(Materializer.writtenMode(0o666), 0o664, "world-writable file")
        XCTAssertEqual(Materializer.writtenMode(0o640), 0o640, "ordinary modes are kept")
        XCTAssertEqual(Materializer.writtenMode(0o100755), 0o755, "the file type is never written")
    }

    /// The case, run: as root, a folder container and a tar archive whose setuid
    /// program belongs to another user, restored and updated into a folder others can reach.
    /// The copy is not setuid, `nobody` running it gets its own uid, and neither the file
    /// capability nor the sticky, setgid and world-writable modes are kept; `user.` attributes are.
    func testIntoAsRootWritesNoSetuidProgram() throws {
        guard geteuid() == 0 else {
            throw XCTSkip("needs root: chowns the input to other users and runs the copy as nobody")
        }
        try Tool.require("setpriv", for: "runs the copy as nobody")
        try Tool.require("python3", for: "writes the archive")
        let dir = try TempDir("intopriv")
        let idTool = try Tool.path("id", for: "copied as the setuid program")

        // The folder container.
        let root = dir.sub("App")
        try Fixture.container(at: root)
        try sh(
            """
            cp \(idTool) App/Documents/tool && chown 65534:65534 App/Documents/tool && chmod 4755 App/Documents/tool
            cp \(idTool) App/Documents/capable && chmod 0755 App/Documents/capable
            mkdir App/Documents/shared App/Documents/drop && chmod 2775 App/Documents/shared && chmod 1777 \
            App/Documents/drop
            echo open > App/Documents/open.txt && chmod 0666 App/Documents/open.txt
            """, in: dir.path)
        try python("import os; os.setxattr('App/Documents/capable', 'user.kept', b'yes')", in: dir.path)
        // vfs_cap_data revision 2: CAP_NET_BIND_SERVICE (10) permitted and effective. Some
        // containers refuse it even to root: the copy is then checked on the archive alone.
        let capabilitySet =
            (try? shell(
                """
                python3 -c 'import os, struct; os.setxattr("App/Documents/capable", "security.capability", \
                struct.pack("<IIIII", 0x02000001, 1 << 10, 0, 0, 0))'
                """, in: dir.path
            ).status) == 0

        // The tar archive: a setuid member of uid 501, a setgid and a sticky world-writable folder.
        let toolBytes = try Data(contentsOf: URL(fileURLWithPath: idTool))
        try toolBytes.write(to: URL(fileURLWithPath: dir.sub("tool.bin")))
        try python(
            """
            import tarfile, io, base64, struct
            data = open("tool.bin", "rb").read()
            cap = base64.b64encode(struct.pack("<IIIII", 0x02000001, 1 << 10, 0, 0, 0)).decode()
            def add(t, name, mode, kind=tarfile.REGTYPE, body=b"", pax=None):
                i = tarfile.TarInfo(name); i.type = kind; i.mode = mode; i.uid = 501; i.gid = 20
                i.mtime = 1_700_000_000; i.size = len(body) if kind == tarfile.REGTYPE else 0
                if pax: i.pax_headers = pax
                t.addfile(i, io.BytesIO(body) if kind == tarfile.REGTYPE else None)
            with tarfile.open("app.tar", "w", format=tarfile.PAX_FORMAT) as t:
                add(t, "./", 0o755, tarfile.DIRTYPE)
                for d in ["Documents", "Library", "Library/Caches", "Library/Preferences", "tmp"]: add(t, d, 0o755, \
            tarfile.DIRTYPE)
                add(t, "Documents/tool", 0o4755, body=data)
                add(t, "Documents/capable", 0o755, body=data,
                    pax={"LIBARCHIVE.xattr.security.capability": cap, "LIBARCHIVE.xattr.user.kept": "eWVz"})
                add(t, "Documents/shared", 0o2775, tarfile.DIRTYPE)
                add(t, "Documents/drop", 0o1777, tarfile.DIRTYPE)
                add(t, "Documents/open.txt", 0o666, body=b"open\\n")
            """, in: dir.path)

        for (label, source) in [("folder", root), ("tar", dir.sub("app.tar"))] {
            for event in ["restore", "update"] {
                let out = dir.sub("out-\(label)-\(event)")
                let r = try CLI.run(["simulate", event, source, "--into", out])
                XCTAssertEqual(r.status, 0, "\(label) \(event): \(r.stdout) \(r.stderr)")
                func mode(_ relative: String) -> mode_t {
                    var st = stat()
                    XCTAssertEqual(lstat(out + "/" + relative, &st), 0, "\(label) \(event): \(relative) written")
                    return st.st_mode & 0o7777
                }
                XCTAssertEqual(mode("Documents/tool"), 0o755, "\(label) \(event): setuid cleared")
                XCTAssertEqual(mode("Documents/shared"), 0o775, "\(label) \(event): setgid cleared")
                XCTAssertEqual(mode("Documents/drop"), 0o775, "\(label) \(event): sticky and write for others cleared")
                XCTAssertEqual(mode("Documents/open.txt"), 0o664, "\(label) \(event): write for others cleared")
                let capable = XAttr.Target.path(Array((out + "/Documents/capable").utf8))
                if label == "tar" || capabilitySet {
                    XCTAssertNil(
                        try XAttr.value(capable, name: "security.capability"),
                        "\(label) \(event): no file capability copied")
                }
                XCTAssertEqual(
                    try XAttr.value(capable, name: "user.kept"), Array("yes".utf8),
                    "\(label) \(event): the app's own attributes are kept")
                // Run the copy as nobody: its own uid, never root's.
                let run = Process()
                run.executableURL = URL(fileURLWithPath: try Tool.path("setpriv", for: "runs the copy as nobody"))
                run.arguments = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", out + "/Documents/tool", "-u"]
                let pipe = Pipe()
                run.standardOutput = pipe
                try run.run()
                let printed = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                run.waitUntilExit()
                XCTAssertEqual(run.terminationStatus, 0, "\(label) \(event): the copy runs as nobody")
                XCTAssertEqual(
                    printed.trimmingCharacters(in: .whitespacesAndNewlines), "65534",
                    "\(label) \(event): nobody running the copy keeps its own uid")
            }
        }
    }
}
