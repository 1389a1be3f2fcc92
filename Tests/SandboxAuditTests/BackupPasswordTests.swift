import Foundation
import XCTest

@testable import SandboxAudit
@testable import SandboxAuditCore
@testable import SandboxAuditReport
@testable import SandboxAuditRules
@testable import SandboxAuditSimulate
@testable import SandboxAuditSystem

/// Where an encrypted backup's password comes from: a real password file in a temp dir, or the
/// environment; and the one-line refusals, none of which shows the password.
final class BackupPasswordTests: XCTestCase {
    let env = ["SANDBOX_AUDIT_BACKUP_PASSWORD": "from the environment"]

    func write(_ text: String, in dir: TempDir, _ name: String = "pw") throws -> String {
        let path = dir.sub(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func refusal(_ file: String?, _ environment: [String: String] = [:]) -> String {
        do {
            _ = try BackupPassword.resolve(passwordFile: file, environment: environment)
            XCTFail("no error")
            return ""
        } catch let error as InputError {
            XCTAssertFalse(error.message.contains("\n"), error.message)
            return error.message
        } catch {
            XCTFail("not an InputError: \(error)")
            return ""
        }
    }

    func testFileThenEnvironmentThenNothing() throws {
        let dir = try TempDir("pw")
        let file = try write("s3cret pass\n", in: dir)
        XCTAssertEqual(try BackupPassword.resolve(passwordFile: file, environment: env), "s3cret pass")
        XCTAssertEqual(try BackupPassword.resolve(passwordFile: nil, environment: env), "from the environment")
        XCTAssertNil(try BackupPassword.resolve(passwordFile: nil, environment: [:]))
        XCTAssertNil(try BackupPassword.resolve(passwordFile: nil, environment: ["SANDBOX_AUDIT_BACKUP_PASSWORD": ""]))
        // First line only; a CRLF ending dropped too; no newline at all; spaces kept.
        XCTAssertEqual(
            try BackupPassword.resolve(passwordFile: try write("first\r\nsecond\n", in: dir, "crlf"), environment: [:]),
            "first")
        XCTAssertEqual(
            try BackupPassword.resolve(passwordFile: try write("no newline", in: dir, "bare"), environment: [:]),
            "no newline")
        XCTAssertEqual(
            try BackupPassword.resolve(passwordFile: try write(" pässwört \n", in: dir, "utf8"), environment: [:]),
            " pässwört ")
        // A symlink to the file is followed.
        XCTAssertEqual(symlink(file, dir.sub("link")), 0)
        XCTAssertEqual(try BackupPassword.resolve(passwordFile: dir.sub("link"), environment: [:]), "s3cret pass")
    }

    func testBoundedFile() throws {
        let dir = try TempDir("pw")
        let exactly = String(repeating: "a", count: 4095) + "\n"
        XCTAssertEqual(
            try BackupPassword.resolve(passwordFile: try write(exactly, in: dir, "exactly"), environment: [:])?.count,
            4095)
        let over = try write("password\n" + String(repeating: "x", count: 4096), in: dir, "over")
        XCTAssertEqual(
            refusal(over, env),
            "password file \(over): over the limit of 4096 bytes (the password is its first line)")
    }

    func testUnreadableOrEmptyFile() throws {
        let dir = try TempDir("pw")
        XCTAssertEqual(
            refusal(dir.sub("missing"), env), "password file \(dir.sub("missing")): No such file or directory")
        XCTAssertEqual(refusal(dir.path), "password file \(dir.path): is a directory")
        let empty = try write("", in: dir, "empty")
        XCTAssertEqual(
            refusal(empty, env), "password file \(empty): its first line is empty (the password is its first line)")
        let blankLine = try write("\nsecret\n", in: dir, "blank")
        XCTAssertEqual(
            refusal(blankLine), "password file \(blankLine): its first line is empty (the password is its first line)")
        let latin1 = dir.sub("latin1")
        try Data([0x70, 0xE4, 0x73, 0x73, 0x0A]).write(to: URL(fileURLWithPath: latin1))
        XCTAssertEqual(refusal(latin1), "password file \(latin1): its first line is not UTF-8 text")
        XCTAssertEqual(mkfifo(dir.sub("fifo"), 0o600), 0)
        XCTAssertEqual(refusal(dir.sub("fifo")), "password file \(dir.sub("fifo")): is not a regular file")
        // Permission bits stop everyone but root.
        if geteuid() != 0 {
            let locked = try write("secret\n", in: dir, "locked")
            chmod(locked, 0)
            XCTAssertEqual(refusal(locked), "password file \(locked): Permission denied")
        }
    }
}
