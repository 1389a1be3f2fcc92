// swift-tools-version:5.10
import PackageDescription
#if os(macOS)
import Foundation

/// Homebrew's libarchive is keg-only: its libarchive.pc is not on pkg-config's default path.
/// `scripts/setup.sh` (and the formula, and action.yml) set
/// `PKG_CONFIG_PATH="$(brew --prefix libarchive)/lib/pkgconfig"`; when that was not done, the
/// keg's include and lib folders are passed directly, so a plain `swift build` works too.
let libarchiveKegFlags: (swift: [SwiftSetting], linker: [LinkerSetting]) = {
    let environment = ProcessInfo.processInfo.environment
    if (environment["PKG_CONFIG_PATH"] ?? "").contains("libarchive") { return ([], []) }
    let kegs = [environment["HOMEBREW_PREFIX"].map { $0 + "/opt/libarchive" }, "/opt/homebrew/opt/libarchive", "/usr/local/opt/libarchive"]
    guard let keg = kegs.compactMap({ $0 }).first(where: { FileManager.default.fileExists(atPath: $0 + "/include/archive.h") }) else {
        return ([], [])
    }
    return ([.unsafeFlags(["-Xcc", "-I" + keg + "/include"])], [.unsafeFlags(["-L" + keg + "/lib"])])
}()
#else
let libarchiveKegFlags: (swift: [SwiftSetting], linker: [LinkerSetting]) = ([], [])
#endif

let package = Package(
    name: "sandbox-audit",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "SandboxAudit", targets: ["SandboxAudit"]),
        .executable(name: "sandbox-audit", targets: ["sandbox-audit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // A backup folder's Manifest.db (SQLite; Debian libsqlite3-dev, macOS's own SQLite).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // An encrypted backup's keys and files: PBKDF2, AES key unwrap (RFC 3394), AES-256-CBC.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // libattr (Debian libattr1-dev) and <sys/xattr.h>. Linux only: on macOS the
        // xattr calls come from Darwin itself, and libattr does not exist.
        .systemLibrary(
            name: "CLibAttr",
            pkgConfig: "libattr",
            providers: [.apt(["libattr1-dev"])]
        ),
        // libarchive (Debian libarchive-dev, Homebrew libarchive): tar and zip containers read
        // as a stream. Homebrew's is keg-only: pkg-config finds it with
        // PKG_CONFIG_PATH="$(brew --prefix libarchive)/lib/pkgconfig" (see libarchiveKegFlags).
        .systemLibrary(
            name: "CLibArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]
        ),
        // What Swift cannot reach of the system's C interface (constants under _GNU_SOURCE,
        // copy_file_range, listxattrat): Sources/SandboxAudit/System uses it, nothing else.
        .target(name: "CSystem"),
        .target(
            name: "SandboxAudit",
            dependencies: [
                "CSystem",
                .target(name: "CLibAttr", condition: .when(platforms: [.linux])),
                "CLibArchive",
                .product(name: "Yams", package: "Yams"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: libarchiveKegFlags.swift,
            linkerSettings: libarchiveKegFlags.linker
        ),
        .executableTarget(
            name: "sandbox-audit",
            dependencies: [
                "SandboxAudit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "SandboxAuditTests",
            // The CLI tests run the built executable as a subprocess.
            // GRDB and Crypto: the tests write backup folders (Manifest.db, encrypted backups).
            dependencies: ["SandboxAudit", "sandbox-audit",
                           .product(name: "GRDB", package: "GRDB.swift"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "_CryptoExtras", package: "swift-crypto")],
            // Read by path (the SARIF schema the reports are validated against), not a resource.
            exclude: ["Fixtures"]
        ),
    ]
)
