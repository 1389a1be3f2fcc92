#!/usr/bin/env bash
# Benchmark for scanning an archive: a 2 GB, 100,000-entry .tar, `sandbox-audit scan` against
# `tar -tvf` of the same archive, in one run, warm cache. Bars: scan wall time <= 1.5x tar -tvf,
# peak memory < 100 MB. Not a test: CI does not run it.
#
# Usage: scripts/benchmark-archive.sh [--runs N] [WORKDIR]   (the archive is reused when present)
# Exits 1 when a bar is missed, 2 when a tool is missing.
# Needs bash 4.3 or later (negative array indices), GNU time (/usr/bin/time -f) and python3:
# Linux (Debian: apt-get install time python3); macOS's bash 3.2 and BSD time do not do.
set -euo pipefail
if [ "${BASH_VERSINFO[0]}" -lt 4 ] || { [ "${BASH_VERSINFO[0]}" -eq 4 ] && [ "${BASH_VERSINFO[1]}" -lt 3 ]; }; then
    echo "benchmark-archive: needs bash 4.3 or later (this is $BASH_VERSION)" >&2; exit 2
fi
/usr/bin/time -f %e true >/dev/null 2>&1 || { echo "benchmark-archive: needs GNU time at /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "benchmark-archive: needs python3" >&2; exit 2; }
runs=5
if [ "${1:-}" = "--runs" ]; then runs="$2"; shift 2; fi
repo=$(cd "$(dirname "$0")/.." && pwd)
work="${1:-}"
cleanup=0
if [ -z "$work" ]; then work=$(mktemp -d /tmp/sa-archive.XXXXXX); cleanup=1; fi
mkdir -p "$work"
archive="$work/container.tar"

echo "== build (release, --scratch-path .build-bench)"
(cd "$repo" && swift build -c release --scratch-path .build-bench --product sandbox-audit 2>&1 | tail -1)
bin="$repo/.build-bench/release/sandbox-audit"

if [ ! -f "$archive" ]; then
    echo "== writing $archive: 100,000 files, 2 GB, five zones"
    python3 - "$archive" <<'PY'
import io, os, sys, tarfile
zones = ["Documents", "Library/Application Support", "Library/Caches", "Library/Preferences", "tmp"]
block = os.urandom(1 << 20)
with tarfile.open(sys.argv[1], "w", format=tarfile.PAX_FORMAT) as t:
    for i in range(100_000):
        zone = zones[i % 5]
        size = 10_000 + (i * 7919) % 20_000          # 20 kB on average: 2 GB in all
        info = tarfile.TarInfo("App/%s/d%03d/f%06d.bin" % (zone, (i // 5) % 500, i))
        info.size = size
        if i % 40 == 0:
            info.pax_headers = {"SCHILY.xattr.user.com.apple.metadata:com_apple_backup_excludeItem": "com.apple.backupd"}
        off = (i * 4096) % (len(block) - size)
        t.addfile(info, io.BytesIO(block[off:off + size]))
PY
fi
echo "   $(du -h "$archive" | cut -f1), $(tar -tf "$archive" | wc -l) entries"
echo "== warming the cache"; cat "$archive" > /dev/null

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
s=(); t=(); mem=0
for i in $(seq "$runs"); do
    out=$( { /usr/bin/time -f "%e %M" "$bin" scan --format json "$archive" > /dev/null; } 2>&1 | tail -1 ) || true
    s+=("${out% *}"); m="${out#* }"; [ "$m" -gt "$mem" ] && mem=$m
    t+=("$( { /usr/bin/time -f "%e" tar -tvf "$archive" > /dev/null; } 2>&1 | tail -1 )")
    echo "   run $i: scan ${s[-1]}s (${m} KB)  tar -tvf ${t[-1]}s"
done
ss=$(printf '%s\n' "${s[@]}" | median); ts=$(printf '%s\n' "${t[@]}" | median)
ratio=$(echo "scale=2; $ss / $ts" | bc); mb=$(echo "scale=1; $mem / 1024" | bc)
echo
echo "| command | median s |"
echo "|---|---:|"
echo "| sandbox-audit scan --format json | $ss |"
echo "| tar -tvf | $ts |"
echo
echo "ratio ${ratio}x (bar 1.5x); scan peak RSS ${mb} MB (bar 100 MB)"
[ "$cleanup" = 1 ] && rm -rf "$work"
if [ "$(echo "$ratio <= 1.5" | bc)" = 1 ] && [ "$(echo "$mb < 100" | bc)" = 1 ]; then echo PASS; else echo FAIL; exit 1; fi
