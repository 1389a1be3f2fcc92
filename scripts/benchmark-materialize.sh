#!/usr/bin/env bash
# Benchmark for `sandbox-audit simulate update --into`: materialising a 1 GB, 10,000-file
# container, against `cp -a --preserve=all` of the same tree, in one run, warm cache, the two
# commands alternating which goes first.
# Bar: materialise wall time <= 1.3x cp -a. Not a test: CI does not run it.
#
# Usage: scripts/benchmark-materialize.sh [--runs N] [WORKDIR]
#   WORKDIR  where the source tree is generated (reused when present); default: a temporary
#            directory, removed at the end.
# Exits 1 when the bar is missed, 2 on a setup error.
# Needs bash 4.3 or later (negative array indices), GNU cp (--preserve=all), GNU date (%N), bc
# and python3: Linux; macOS's bash 3.2 and BSD cp and date do not do.
set -euo pipefail
if [ "${BASH_VERSINFO[0]}" -lt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -lt 3 ]; }; then
    echo "benchmark-materialize: needs bash 4.3 or later (this is $BASH_VERSION)" >&2; exit 2
fi
cp --version 2>/dev/null | grep GNU >/dev/null || { echo "benchmark-materialize: needs GNU cp (coreutils)" >&2; exit 2; }
for tool in bc python3; do command -v "$tool" >/dev/null 2>&1 || { echo "benchmark-materialize: needs $tool" >&2; exit 2; }; done
runs=5
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
        *) break ;;
    esac
done
repo=$(cd "$(dirname "$0")/.." && pwd)
work="${1:-}"
cleanup=0
if [ -z "$work" ]; then work=$(mktemp -d /tmp/sa-materialize.XXXXXX); cleanup=1; fi
src="$work/Container"

echo "== build (release, --scratch-path .build-bench)"
(cd "$repo" && swift build -c release --scratch-path .build-bench --product sandbox-audit 2>&1 | tail -1)
bin="$repo/.build-bench/release/sandbox-audit"

if [ ! -f "$work/.generated-1g-10k-v2" ]; then
    echo "== generating 10,000 files, 1 GB, in $src"
    rm -rf "$src"
    python3 - "$src" <<'PY'
import os, sys
root = sys.argv[1]
# Zones an update keeps whole, so that both commands copy the same bytes.
zones = ["Documents", "Library/Application Support", "Library/Caches", "Library/Preferences", "Library/WebKit"]
block = os.urandom(1 << 20)
for z in zones: os.makedirs(os.path.join(root, z), exist_ok=True)
for i in range(10_000):
    zone = zones[i % len(zones)]
    folder = os.path.join(root, zone, "d%03d" % (i % 100))
    os.makedirs(folder, exist_ok=True)
    size = 100_000 + (i * 7919) % 9_000        # about 1 GB in all
    with open(os.path.join(folder, "f%05d.bin" % i), "wb") as f:
        f.write(block[(i * 4096) % (len(block) - size):][:size])
    if i % 50 == 0:
        os.setxattr(os.path.join(folder, "f%05d.bin" % i), "user.com.apple.metadata:com_apple_backup_excludeItem",
                    bytes.fromhex("62706c69737430305f1011636f6d2e6170706c652e6261636b75706408000000000000010100000000000000010000000000000000000000000000001c"))
PY
    touch "$work/.generated-1g-10k-v2"
fi
echo "   $(find "$src" -type f | wc -l) files, $(du -sh "$src" | cut -f1) on disk"

echo "== warming the cache"
find "$src" -type f -exec cat {} + > /dev/null

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timed() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }

echo "   update keeps: $("$bin" simulate update "$src" | grep -E "^total")"
echo "== timing, $runs runs each, round-robin"
m=(); c=()
# Each command starts after a sync (the other's output written back, not timed), and the
# order alternates: the first command after the outputs are removed pays for the removal.
for i in $(seq "$runs"); do
    rm -rf "$work/out-sa" "$work/out-cp"; sync
    if [ $((i % 2)) = 1 ]; then
        m+=("$(timed "$bin" simulate update "$src" --into "$work/out-sa")"); sync
        c+=("$(timed cp -a --preserve=all "$src" "$work/out-cp")")
    else
        c+=("$(timed cp -a --preserve=all "$src" "$work/out-cp")"); sync
        m+=("$(timed "$bin" simulate update "$src" --into "$work/out-sa")")
    fi
    echo "   run $i: materialise ${m[-1]}s  cp -a ${c[-1]}s"
done
ms=$(printf '%s\n' "${m[@]}" | median); cs=$(printf '%s\n' "${c[@]}" | median)
ratio=$(echo "scale=2; $ms / $cs" | bc)
echo
echo "| command | median s |"
echo "|---|---:|"
echo "| sandbox-audit simulate update --into | $ms |"
echo "| cp -a --preserve=all | $cs |"
echo
echo "ratio: ${ratio}x (bar: <= 1.3x)"
"$bin" simulate update "$src" --into "$work/out-verify" --verify | grep -E "verified|FAILED"
rm -rf "$work/out-sa" "$work/out-cp" "$work/out-verify"
[ "$cleanup" = 1 ] && rm -rf "$work"
if [ "$(echo "$ratio <= 1.3" | bc)" = 1 ]; then echo "PASS"; else echo "FAIL"; exit 1; fi
