#!/usr/bin/env bash
# `make dist`: this machine's release tarball, as the release workflow (.github/workflows/release.yml)
# builds it for every platform:
#
#   Linux: dist/sandbox-audit-VERSION-linux-ARCH.tar.gz (ARCH: x86_64, aarch64), a release build
#          with the Swift runtime linked in (--static-swift-stdlib); it needs the packages of
#          scripts/runtime-packages.txt and nothing of the Swift toolchain.
#   macOS: dist/sandbox-audit-VERSION-macos-universal.tar.gz, arm64 and x86_64 in one binary,
#          linked to macOS's own libarchive and SQLite (Homebrew's libarchive gives the headers
#          only, see below): it needs nothing installed.
#
# Each tarball holds one folder, sandbox-audit-VERSION-OS-ARCH/, with the binary, README.md and LICENSE,
# and has a .sha256 beside it (`sha256sum -c` or `shasum -a 256 -c` reads it); scripts/install.sh
# installs from them. VERSION is Project.version (Sources/SandboxAuditSystem/Support/Project.swift).
#
#   scripts/dist.sh                         build, then package into dist/
#   scripts/dist.sh --package BINARY [DIR]  package an already built BINARY into DIR (default
#                                           dist/) under this machine's name, without building
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "dist: $*" >&2; exit 2; }

version=$(sed -n 's/^ *package static let version = "\([^"]*\)".*/\1/p' Sources/SandboxAuditSystem/Support/Project.swift)
[ -n "$version" ] || die "no version in Sources/SandboxAuditSystem/Support/Project.swift"
[ -f LICENSE ] || die "no LICENSE in $PWD: every tarball carries the licence"
case "$(uname -s)" in
    Linux)
        case "$(uname -m)" in
            x86_64|amd64) platform=linux-x86_64 ;;
            aarch64|arm64) platform=linux-aarch64 ;;
            *) die "no release for $(uname -m)" ;;
        esac ;;
    Darwin) platform=macos-universal ;;
    *) die "no release for $(uname -s)" ;;
esac
name="sandbox-audit-$version-$platform"

sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi; }

stage=
package() {  # package BINARY OUTDIR
    local bin="$1" out="$2"
    [ -x "$bin" ] || die "$bin is not an executable"
    stage=$(mktemp -d)
    trap 'rm -rf "$stage"' EXIT
    mkdir "$stage/$name"
    cp "$bin" "$stage/$name/sandbox-audit"
    cp README.md LICENSE "$stage/$name/"
    mkdir -p "$out"
    tar -czf "$out/$name.tar.gz" -C "$stage" "$name"
    (cd "$out" && sha256 "$name.tar.gz" > "$name.tar.gz.sha256")
    "$stage/$name/sandbox-audit" --version >/dev/null || die "the packaged binary does not run"
    echo "dist: wrote $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)) and its .sha256"
}

if [ "${1:-}" = --package ]; then
    [ $# -ge 2 ] || die "usage: scripts/dist.sh --package BINARY [DIR]"
    package "$2" "${3:-dist}"
    exit 0
fi
[ $# -eq 0 ] || die "usage: scripts/dist.sh [--package BINARY [DIR]]"

if [ "$platform" = macos-universal ]; then
    # Homebrew's libarchive is built for this Mac's architecture only, so a universal binary
    # cannot link it. macOS ships libarchive itself (/usr/lib/libarchive.2.dylib, in the SDK as
    # libarchive.tbd for both architectures) but not its header: a pkg-config file of our own
    # takes the header from Homebrew's keg and links -larchive, which the SDK resolves.
    scripts/setup.sh deps >/dev/null   # brew install libarchive when missing (the header)
    keg=$(brew --prefix libarchive)
    pc=$(mktemp -d)
    printf 'Name: libarchive\nDescription: macOS libarchive, Homebrew header\nVersion: 3\nCflags: -I%s/include\nLibs: -larchive\n' "$keg" > "$pc/libarchive.pc"
    echo "dist: swift build -c release --arch arm64 --arch x86_64 (libarchive: macOS's, header from $keg)"
    build=(swift build -c release --arch arm64 --arch x86_64 --scratch-path .build-dist)
    PKG_CONFIG_PATH="$pc" "${build[@]}" --product sandbox-audit
    # Where the products went is SwiftPM's to say: two --arch go through XCBuild (apple/Products/Release
    # until now), and another build system may put them elsewhere.
    bin="$(PKG_CONFIG_PATH="$pc" "${build[@]}" --show-bin-path)/sandbox-audit"
    lipo "$bin" -verify_arch arm64 x86_64 || die "$bin is not arm64 + x86_64"
    if otool -L "$bin" | grep '/opt/homebrew\|/usr/local' >/dev/null; then  # not -q: see setup.sh
        otool -L "$bin" >&2; die "the binary links a Homebrew library"
    fi
else
    scripts/setup.sh deps   # libattr1-dev, libarchive-dev, libsqlite3-dev when missing
    echo "dist: swift build -c release --static-swift-stdlib"
    build=(swift build -c release --static-swift-stdlib --scratch-path .build-dist)
    "${build[@]}" --product sandbox-audit
    bin="$("${build[@]}" --show-bin-path)/sandbox-audit"
    if ldd "$bin" | grep 'libswift\|libFoundation\|libdispatch' >/dev/null; then  # not -q: see setup.sh
        ldd "$bin" >&2; die "the binary still needs the Swift runtime"
    fi
    strip "$bin" 2>/dev/null || true
    echo "dist: runtime libraries: $(ldd "$bin" | awk '{print $1}' | grep -v '^/' | tr '\n' ' ')"
    if command -v objdump >/dev/null 2>&1; then
        echo "dist: newest glibc symbol it needs: $(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
    fi
fi
package "$bin" dist
