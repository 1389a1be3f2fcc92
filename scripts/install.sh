#!/bin/sh
# Installs the release binary of sandbox-audit for this machine, checked against its checksum:
#
#   scripts/install.sh VERSION [DIR]
#
# fetches $SANDBOX_AUDIT_DOWNLOAD_URL/vVERSION/sandbox-audit-VERSION-OS-ARCH.tar.gz and its
# .sha256 (OS-ARCH: macos-universal, linux-x86_64 or linux-aarch64; the base defaults to the
# repository's GitHub releases), refuses a tarball whose SHA-256 differs, and installs
# DIR/sandbox-audit (default ~/.local/bin) by renaming it into place, so DIR never holds half a
# binary. Any CI, in one line (curl and tar; sha256sum or shasum):
#
#   curl -fsSL https://raw.githubusercontent.com/sandbox-audit/sandbox-audit/vVERSION/scripts/install.sh | sh -s -- VERSION
#
# Linux binaries need the packages of scripts/runtime-packages.txt (README, Install).
# Exit status: 0 installed; 1 the checksum did not match or the tarball is not a release's
# (nothing installed); 2 usage or a local error; 3 the release could not be downloaded.
set -eu

repository="sandbox-audit/sandbox-audit"   # Project.repository (DistributionTests checks it)
die() { status="$1"; shift; echo "install: $*" >&2; exit "$status"; }

[ $# -ge 1 ] && [ $# -le 2 ] || die 2 "usage: install.sh VERSION [DIR]"
version="${1#v}"
case "$version" in ''|*[!0-9A-Za-z.+-]*) die 2 "not a version: $1" ;; esac
if [ $# -eq 2 ]; then dir="$2"; else
    [ -n "${HOME:-}" ] || die 2 "HOME is not set: name the folder (install.sh VERSION DIR)"
    dir="$HOME/.local/bin"
fi

case "$(uname -s)" in
    Darwin) platform=macos-universal ;;
    Linux)
        case "$(uname -m)" in
            x86_64|amd64) platform=linux-x86_64 ;;
            aarch64|arm64) platform=linux-aarch64 ;;
            *) die 2 "no release binary for Linux on $(uname -m): build from source (README, Install)" ;;
        esac ;;
    *) die 2 "no release binary for $(uname -s): build from source (README, Install)" ;;
esac
name="sandbox-audit-$version-$platform"
base="${SANDBOX_AUDIT_DOWNLOAD_URL:-https://github.com/$repository/releases/download}"
url="${base%/}/v$version/$name.tar.gz"

if command -v sha256sum >/dev/null 2>&1; then sha256() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then sha256() { shasum -a 256 "$1" | cut -d' ' -f1; }
else die 2 "neither sha256sum nor shasum is installed"; fi
if command -v curl >/dev/null 2>&1; then fetch() { curl -fsSL --retry 3 -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then fetch() { wget -q -O "$2" "$1"; }
else die 2 "neither curl nor wget is installed"; fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fetch "$url" "$tmp/$name.tar.gz" 2>/dev/null || die 3 "cannot download $url"
fetch "$url.sha256" "$tmp/$name.tar.gz.sha256" 2>/dev/null || die 3 "cannot download $url.sha256"
expected=$(cut -d' ' -f1 < "$tmp/$name.tar.gz.sha256")
actual=$(sha256 "$tmp/$name.tar.gz")
[ "$expected" = "$actual" ] || die 1 "checksum mismatch for $name.tar.gz: expected ${expected:-nothing}, got $actual; nothing installed"

mkdir "$tmp/x"
tar -xzf "$tmp/$name.tar.gz" -C "$tmp/x" 2>/dev/null || die 1 "$name.tar.gz is not a gzip tarball; nothing installed"
[ -f "$tmp/x/$name/sandbox-audit" ] && [ -x "$tmp/x/$name/sandbox-audit" ] \
    || die 1 "$name.tar.gz holds no $name/sandbox-audit; nothing installed"

mkdir -p "$dir" || die 2 "cannot create $dir"
staged="$dir/.sandbox-audit.install.$$"
cp "$tmp/x/$name/sandbox-audit" "$staged" || { rm -f "$staged"; die 2 "cannot write to $dir"; }
chmod 755 "$staged"
mv -f "$staged" "$dir/sandbox-audit" || { rm -f "$staged"; die 2 "cannot install $dir/sandbox-audit"; }
echo "install: sandbox-audit $version ($platform) installed as $dir/sandbox-audit"
case ":${PATH:-}:" in *":$dir:"*) ;; *) echo "install: $dir is not on PATH: add it, or run $dir/sandbox-audit" ;; esac
