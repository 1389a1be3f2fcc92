#!/usr/bin/env bash
# `make dist`: a release build of the tool with the Swift runtime linked in
# (--static-swift-stdlib), so it runs on a Linux machine without the Swift toolchain; it still
# needs the system's libattr and libarchive (Debian/Ubuntu: apt-get install libattr1 libarchive13).
#
# Writes dist/sandbox-audit-VERSION-linux-ARCH.tar.gz (one folder: the binary, README.md) and
# dist/sandbox-audit-VERSION-linux-ARCH.tar.gz.sha256 (`sha256sum -c` reads it).
# VERSION is Audit.toolVersion; ARCH is `uname -m` (x86_64, aarch64).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(uname -s)" = Linux ] || { echo "dist: Linux only (macOS: the Homebrew formula builds from source)" >&2; exit 2; }

version=$(sed -n 's/.*static let toolVersion = "\([^"]*\)".*/\1/p' Sources/SandboxAudit/Audit.swift)
[ -n "$version" ] || { echo "dist: no toolVersion in Sources/SandboxAudit/Audit.swift" >&2; exit 2; }
name="sandbox-audit-$version-linux-$(uname -m)"

scripts/setup.sh deps   # libattr1-dev, libarchive-dev, libsqlite3-dev when missing
echo "dist: swift build -c release --static-swift-stdlib"
swift build -c release --static-swift-stdlib --scratch-path .build-dist --product sandbox-audit
bin=".build-dist/release/sandbox-audit"

if ldd "$bin" | grep 'libswift\|libFoundation\|libdispatch' >/dev/null; then  # not -q: see setup.sh
    ldd "$bin" >&2; echo "dist: the binary still needs the Swift runtime" >&2; exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$bin" "$stage/$name/sandbox-audit"
strip "$stage/$name/sandbox-audit" 2>/dev/null || true
cp README.md "$stage/$name/"
mkdir -p dist
tar -czf "dist/$name.tar.gz" -C "$stage" "$name"
(cd dist && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")
"$stage/$name/sandbox-audit" --version >/dev/null
echo "dist: wrote dist/$name.tar.gz ($(du -h "dist/$name.tar.gz" | cut -f1)) and its .sha256"
echo "dist: runtime libraries: $(ldd "$stage/$name/sandbox-audit" | awk '{print $1}' | grep -v '^/' | tr '\n' ' ')"
