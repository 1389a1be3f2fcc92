#!/usr/bin/env bash
# The SwiftPM artifact bundle of the command-line tool: sandbox-audit.artifactbundle.zip, the
# binaryTarget that the plugin package (Plugin/Package.swift) downloads with its checksum.
#
# The format is SE-0305's (swift-evolution proposals/0305-swiftpm-binary-target-improvements.md,
# https://github.com/swiftlang/swift-evolution/blob/main/proposals/0305-swiftpm-binary-target-improvements.md):
# one folder NAME.artifactbundle at the top of the zip, an info.json (schemaVersion "1.0") naming
# the artifact `sandbox-audit` (type executable) and one variant per binary, each a path inside
# the bundle and the target triples it runs on; LICENSE (MIT) beside info.json. SwiftPM picks
# the variant whose triples hold the host's; the plugin finds it with context.tool(named: "sandbox-audit").
#
#   scripts/artifactbundle.sh [-o DIR] PLATFORM=BINARY...
#       PLATFORM is macos-universal (arm64 + x86_64 in one binary, from scripts/dist.sh on a Mac),
#       linux-x86_64 or linux-aarch64 (scripts/dist.sh or `swift build` on Linux)
#   scripts/artifactbundle.sh [-o DIR] --dist DIST
#       every platform's binary from the release tarballs DIST/sandbox-audit-VERSION-PLATFORM.tar.gz
#       (the release workflow's publish job)
#
# Writes DIR/sandbox-audit.artifactbundle.zip (DIR defaults to dist/) and beside it its .sha256
# (sha256sum's format), and prints the checksum Package.swift's binaryTarget(url:checksum:) takes:
# `swift package compute-checksum`'s, which is the zip's SHA-256 (checked to agree where swift is
# on PATH). The zip is the same for the same binaries: entries in name order, fixed times, no
# extra attributes. VERSION is Project.version (Sources/SandboxAuditSystem/Support/Project.swift).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
die() { echo "artifactbundle: $*" >&2; exit 2; }
usage="usage: scripts/artifactbundle.sh [-o DIR] PLATFORM=BINARY... | [-o DIR] --dist DIST"

version=$(sed -n 's/^ *package static let version = "\([^"]*\)".*/\1/p' Sources/SandboxAuditSystem/Support/Project.swift)
[ -n "$version" ] || die "no version in Sources/SandboxAuditSystem/Support/Project.swift"
command -v zip >/dev/null 2>&1 || die "zip is not installed (Debian: apt-get install zip; macOS has it)"
[ -f LICENSE ] || die "no LICENSE in $root: the bundle carries the licence"

out=dist
pairs=()
dist=
while [ $# -gt 0 ]; do
    case "$1" in
        -o) [ $# -ge 2 ] || die "$usage"; out="$2"; shift 2 ;;
        --dist) [ $# -ge 2 ] || die "$usage"; dist="$2"; shift 2 ;;
        *=*) pairs+=("$1"); shift ;;
        *) die "$usage" ;;
    esac
done
[ -n "$dist" ] || [ ${#pairs[@]} -gt 0 ] || die "$usage"
[ -z "$dist" ] || [ ${#pairs[@]} -eq 0 ] || die "give PLATFORM=BINARY pairs or --dist DIST, not both"
case "$out" in /*) ;; *) out="$root/$out" ;; esac

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

if [ -n "$dist" ]; then
    for platform in macos-universal linux-x86_64 linux-aarch64; do
        tarball="$dist/sandbox-audit-$version-$platform.tar.gz"
        [ -f "$tarball" ] || die "missing $tarball"
        mkdir -p "$stage/tar/$platform"
        tar -xzf "$tarball" -C "$stage/tar/$platform"
        pairs+=("$platform=$stage/tar/$platform/sandbox-audit-$version-$platform/sandbox-audit")
    done
fi

bundle="$stage/sandbox-audit.artifactbundle"
mkdir "$bundle"
variants=
seen=
for pair in "${pairs[@]}"; do
    platform="${pair%%=*}" bin="${pair#*=}"
    case "$platform" in
        macos-universal) triples='"arm64-apple-macosx", "x86_64-apple-macosx"' ;;
        linux-x86_64) triples='"x86_64-unknown-linux-gnu"' ;;
        linux-aarch64) triples='"aarch64-unknown-linux-gnu"' ;;
        *) die "unknown platform '$platform' (macos-universal, linux-x86_64 or linux-aarch64)" ;;
    esac
    case " $seen " in *" $platform "*) die "$platform given twice" ;; esac
    seen="$seen $platform"
    [ -f "$bin" ] && [ -x "$bin" ] || die "$bin is not an executable file"
    dir="sandbox-audit-$version-$platform/bin"
    mkdir -p "$bundle/$dir"
    cp "$bin" "$bundle/$dir/sandbox-audit"
    chmod 755 "$bundle/$dir/sandbox-audit"
    [ -z "$variants" ] || variants="$variants,"
    variants="$variants
        {
          \"path\": \"$dir/sandbox-audit\",
          \"supportedTriples\": [$triples]
        }"
done
cat > "$bundle/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "sandbox-audit": {
      "version": "$version",
      "type": "executable",
      "variants": [$variants
      ]
    }
  }
}
EOF
cp LICENSE "$bundle/"   # the MIT licence travels with every copy of the binaries

# The same bytes for the same binaries: every entry's time fixed (POSIX touch -t), entries in
# name order, no extra attributes (-X: no uid/gid or extended timestamps).
find "$bundle" -exec touch -t 198001010000 {} +
mkdir -p "$out"
zipfile="$out/sandbox-audit.artifactbundle.zip"
rm -f "$zipfile"
(cd "$stage" && find sandbox-audit.artifactbundle -print | LC_ALL=C sort | zip -q -X -@ "$zipfile")

sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }
sum=$(cd "$out" && sha256 sandbox-audit.artifactbundle.zip | tee sandbox-audit.artifactbundle.zip.sha256 | cut -d' ' -f1)
if command -v swift >/dev/null 2>&1; then
    # compute-checksum runs in a folder of its own: it needs no package, and reads none.
    swiftsum=$(cd "$stage" && swift package compute-checksum "$zipfile" 2>/dev/null) || swiftsum=
    if [ -n "$swiftsum" ] && [ "$swiftsum" != "$sum" ]; then
        die "swift package compute-checksum says $swiftsum, sha256 says $sum"
    fi
fi
echo "artifactbundle: wrote $zipfile ($(du -h "$zipfile" | cut -f1)): ${seen# }" >&2
echo "$sum"
