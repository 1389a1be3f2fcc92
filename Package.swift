// swift-tools-version:5.9
import PackageDescription

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
    ],
    targets: [
        // libattr (Debian libattr1-dev) and <sys/xattr.h>. Linux only: on macOS the
        // xattr calls come from Darwin itself, and libattr does not exist.
        .systemLibrary(
            name: "CLibAttr",
            pkgConfig: "libattr",
            providers: [.apt(["libattr1-dev"])]
        ),
        // libarchive (Debian libarchive-dev): tar and zip containers read as a stream.
        .systemLibrary(
            name: "CLibArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]
        ),
        .target(
            name: "SandboxAudit",
            dependencies: [
                .target(name: "CLibAttr", condition: .when(platforms: [.linux])),
                "CLibArchive",
                .product(name: "Yams", package: "Yams"),
            ]
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
            dependencies: ["SandboxAudit", "sandbox-audit"]
        ),
    ]
)
