#!/usr/bin/env bash
# Proves that a Linux release tarball needs nothing but the packages of
# scripts/runtime-packages.txt:
#
#   scripts/check-dist-deps.sh TARBALL
#
# builds a minimal Debian root (debootstrap --variant=minbase, Debian's own packages), installs
# exactly those packages in it (apt-get --no-install-recommends), unpacks the tarball there and,
# in a chroot under `env -i PATH=/usr/bin:/bin`, runs the binary's --version and scans a sample
# container, as a folder, as a tar.gz archive and as JSON. It also shows that the binary does not
# start in the root before the packages are installed (so the list is what makes it run).
# Needs root, debootstrap and the Debian mirror; takes a few minutes.
#   SANDBOX_AUDIT_DEBIAN_SUITE   the Debian release (default bookworm; the release workflow
#                                uses bullseye, glibc 2.31, as old as the build's)
#   SANDBOX_AUDIT_DEBIAN_MIRROR  default http://deb.debian.org/debian
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "check-dist-deps: $*" >&2; exit 2; }
say() { echo "check-dist-deps: $*"; }

[ $# -eq 1 ] || die "usage: scripts/check-dist-deps.sh TARBALL"
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$tarball" ] || die "no tarball at $1"
[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot)"
command -v debootstrap >/dev/null 2>&1 || die "debootstrap is not installed (Debian/Ubuntu: apt-get install debootstrap)"
suite="${SANDBOX_AUDIT_DEBIAN_SUITE:-bookworm}"
mirror="${SANDBOX_AUDIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
mapfile -t packages < <(grep -v '^#' scripts/runtime-packages.txt | grep -v '^ *$')
name=$(basename "$tarball" .tar.gz)

work=$(mktemp -d)
root="$work/root"
cleanup() { umount "$root/proc" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
say "debootstrap --variant=minbase $suite ($mirror)"
debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
# /proc as on any running system: the Swift runtime reads the command line from it.
mount -t proc proc "$root/proc"

tar -xzf "$tarball" -C "$root/opt"
[ -x "$root/opt/$name/sandbox-audit" ] || die "$tarball holds no $name/sandbox-audit"
cp -R sample-containers/WellBehaved "$root/tmp/WellBehaved"
cp sample-containers/WellBehaved.sandbox-audit.yml "$root/tmp/"
tar -czf "$root/tmp/WellBehaved.tar.gz" -C sample-containers WellBehaved
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin "$@"; }

if out=$(in_root "/opt/$name/sandbox-audit" --version 2>&1); then
    say "before the packages: the binary already runs ($out): the list may hold more than it needs"
else
    say "before the packages, as expected, it does not start: $(echo "$out" | head -1)"
fi

say "apt-get install --no-install-recommends ${packages[*]}"
in_root apt-get update -q > "$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; die "apt-get update failed"; }
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${packages[@]}" >> "$work/apt.log" 2>&1 \
    || { tail -20 "$work/apt.log" >&2; die "apt-get install failed"; }

expected=${name#sandbox-audit-}
expected=${expected%-linux-*}
version=$(in_root "/opt/$name/sandbox-audit" --version) || die "the binary does not run with the listed packages"
[ "$version" = "$expected" ] || die "--version printed '$version', not $expected"
say "sandbox-audit --version: $version"
for input in /tmp/WellBehaved /tmp/WellBehaved.tar.gz; do
    status=0
    in_root "/opt/$name/sandbox-audit" scan --config /tmp/WellBehaved.sandbox-audit.yml "$input" > "$work/scan.txt" 2>&1 || status=$?
    [ "$status" = 0 ] || { cat "$work/scan.txt" >&2; die "scan $input exited $status"; }
    grep "^sandbox-audit $expected: " "$work/scan.txt" >/dev/null || { cat "$work/scan.txt" >&2; die "scan $input wrote no report"; }
    say "scan $input: exit 0, $(head -1 "$work/scan.txt")"
done
in_root "/opt/$name/sandbox-audit" scan --format json --config /tmp/WellBehaved.sandbox-audit.yml /tmp/WellBehaved \
    | grep '"backupFootprint"' >/dev/null || die "scan --format json wrote no report"
say "passed: $name runs on Debian $suite (minbase) with only: ${packages[*]}"
