// swift-tools-version:5.9
// The SwiftPM command plugin: `swift package plugin sandbox-audit SUBCOMMAND ARGUMENTS…` runs the
// released sandbox-audit binary with those arguments, in the package's folder. The binary comes
// as an artifact bundle (SE-0305) attached to each release, the way SwiftLint's plugins get theirs
// (SimplyDanny/SwiftLintPlugins, Package.swift); nothing is built from source. This folder is
// published as its own repository on each release (docs/distribution.md): SwiftPM cannot depend
// on a folder inside a repository by URL.
//
// The binaryTarget below is stamped by the release (scripts/stamp-version.sh VERSION DIST): its
// url names the release and its checksum is the zip's (scripts/artifactbundle.sh prints it).
// Until the first release the checksum is zeros and SwiftPM refuses the download.
import PackageDescription

let package = Package(
    name: "SandboxAuditPlugin",
    products: [
        .plugin(name: "SandboxAuditPlugin", targets: ["SandboxAuditPlugin"])
    ],
    targets: [
        .plugin(
            name: "SandboxAuditPlugin",
            capability: .command(
                intent: .custom(
                    verb: "sandbox-audit",
                    description: "Audit an iOS app's data container against Apple's backup and storage rules."
                ),
                permissions: [
                    .writeToPackageDirectory(
                        reason:
                            "sandbox-audit writes only what the command asks for: reports (--output), baselines "
                            + "(--write-baseline), a policy file (config init), simulate --into, exclude/include."
                    )
                ]
            ),
            dependencies: ["SandboxAuditBinary"]
        ),
        .binaryTarget(
            name: "SandboxAuditBinary",
            url:
                "https://github.com/sandbox-audit/sandbox-audit/releases/download/v0.1.0/sandbox-audit.artifactbundle.zip",
            checksum: "0000000000000000000000000000000000000000000000000000000000000000"
        ),
    ]
)
