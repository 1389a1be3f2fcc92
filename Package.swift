// swift-tools-version:6.1
// The floor: swift-asn1 1.7.4 (swift-crypto's) declares 6.1 itself (Xcode 16.3 on macOS).
// README.md, docs/distribution.md, the formula and action.yml say the same; DistributionTests
// checks they agree.
import PackageDescription

let package = Package(
    name: "sandbox-audit",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "SandboxAudit", targets: ["SandboxAudit"]),
        .executable(name: "sandbox-audit", targets: ["sandbox-audit"]),
    ],
    // Exact versions, so that every build (and every release) resolves the same code; the
    // release workflow attaches the Package.resolved it built with. Package.resolved itself is
    // not committed. A bump changes the version here and in DistributionTests' expectations.
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", exact: "6.2.2"),
        // An encrypted backup's keys and files: PBKDF2, AES key unwrap (RFC 3394), AES-256-CBC.
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        // The app's Swift sources read for the lines that build a container's paths (SandboxAuditSources).
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
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
        // as a stream. Homebrew's is keg-only: for the .brew provider SwiftPM itself adds
        // $(brew --prefix)/opt/libarchive/lib/pkgconfig to pkg-config's search path
        // (docs/distribution.md), so nothing needs exporting while brew is on PATH.
        // No unsafe flags here: a package that uses them cannot be a versioned dependency.
        .systemLibrary(
            name: "CLibArchive",
            pkgConfig: "libarchive",
            providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]
        ),
        // SQLite (Debian libsqlite3-dev; macOS's own, in the SDK): a backup folder's Manifest.db.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // What Swift cannot reach of the system's C interface (constants under _GNU_SOURCE,
        // copy_file_range, listxattrat): Sources/SandboxAuditSystem/System uses it, nothing else.
        .target(name: "CSystem"),
        // The library, one target per stage of the pipeline, each using only the ones above it,
        // so that the compiler keeps the order (docs/ARCHITECTURE.md): what a stage shares with a
        // later one is `package`, what users may call is `public`.
        // System calls and small value types every stage uses (paths, sizes, bounded reads), and
        // the types that hold C libraries' raw memory: libarchive's reader (with swift-crypto's
        // SHA-256 for what it records of the archive read) and the SQLite VFS of a Manifest.db.
        .target(
            name: "SandboxAuditSystem",
            dependencies: [
                "CSystem", .target(name: "CLibAttr", condition: .when(platforms: [.linux])),
                "CLibArchive", .product(name: "Crypto", package: "swift-crypto"),
                // System/ManifestVFS.swift: a backup's Manifest.db read through SQLite's VFS.
                "CSQLite",
            ]
        ),
        // Input → walk → classify → inventory: what the user gave, read into entries with verdicts.
        .target(
            name: "SandboxAuditCore",
            dependencies: [
                "SandboxAuditSystem",
                // Input/Backup/ManifestDatabase.swift imports it for the SQLite C API.
                "CSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The app's source tree (Swift through SwiftParser, Objective-C read as tokens) indexed for
        // the lines that build each path of a container, for the reports to name beside a file.
        .target(
            name: "SandboxAuditSources",
            dependencies: [
                "SandboxAuditSystem", .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        ),
        // Observe (budgets, baseline, a real backup) → rules → policy, and the audit that runs them.
        .target(
            name: "SandboxAuditRules",
            dependencies: [
                "SandboxAuditSystem", "SandboxAuditCore", "SandboxAuditSources",
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        // What an update, a restore or a backup would keep, written out or checked.
        .target(
            name: "SandboxAuditSimulate",
            dependencies: ["SandboxAuditSystem", "SandboxAuditCore", "SandboxAuditRules"]
        ),
        // After the audit, what no rule reads: reports and baselines read back (compare, trend),
        // the App Review measurement and MetricKit's storage figures.
        .target(
            name: "SandboxAuditMeasure",
            dependencies: ["SandboxAuditSystem", "SandboxAuditCore", "SandboxAuditRules"]
        ),
        // Printers: they decide nothing.
        .target(
            name: "SandboxAuditReport",
            dependencies: [
                "SandboxAuditSystem", "SandboxAuditCore", "SandboxAuditSources", "SandboxAuditRules",
                "SandboxAuditSimulate", "SandboxAuditMeasure",
            ]
        ),
        // The one import for users: every stage's public interface.
        .target(
            name: "SandboxAudit",
            dependencies: [
                "SandboxAuditSystem", "SandboxAuditCore", "SandboxAuditSources", "SandboxAuditRules",
                "SandboxAuditSimulate", "SandboxAuditMeasure", "SandboxAuditReport",
            ]
        ),
        .executableTarget(
            name: "sandbox-audit",
            dependencies: [
                "SandboxAudit",
                // generate-docs reads the package-level catalogues of the Rules and Report stages.
                "SandboxAuditRules", "SandboxAuditReport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "SandboxAuditTests",
            // The CLI tests run the built executable as a subprocess.
            // CSQLite and Crypto: the tests write backup folders (Manifest.db, encrypted backups).
            dependencies: [
                "SandboxAudit", "SandboxAuditSystem", "SandboxAuditCore", "SandboxAuditRules",
                "SandboxAuditSimulate", "SandboxAuditMeasure", "SandboxAuditReport", "sandbox-audit", "CSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            // Read by path (the SARIF schema the reports are validated against), not a resource.
            exclude: ["Fixtures"]
        ),
        // The source index alone, built without the rest of the library: real source trees in
        // temporary folders, and the sample app of sample-containers/MisbehavingApp.
        .testTarget(
            name: "SandboxAuditSourcesTests",
            dependencies: ["SandboxAuditSources"]
        ),
    ],
    // Swift 6 language mode: strict concurrency checking for every target. What runs in
    // parallel goes through the `Sendable` building blocks of SandboxAuditSystem/Support/Parallel.swift.
    swiftLanguageModes: [.v6]
)
