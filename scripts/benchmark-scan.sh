#!/usr/bin/env bash
# Performance benchmark for `sandbox-audit scan` (Linux; not run by CI).
#
# Builds the release binary, generates a synthetic app data container (200,000 files by
# default), warms the page cache, then times in one run, round-robin, with several
# repetitions:
#   sandbox-audit scan --format json DIR      (exit code 1 is normal: the tree has findings)
#   du -s DIR
#   getfattr -R -P -d -m - DIR                (physical walk: the fair comparison)
#   getfattr -R -d -m - DIR                   (default walk, for reference)
# and the scan's peak memory (max RSS, GNU time %M). Prints the medians, the ratios and
# PASS/FAIL against the bar:
#   scan wall time <= 1.5 x `getfattr -R -P` wall time, and scan peak RSS <= 200 MB.
# Exits 1 when the bar is missed, 2 on a usage or setup error.
#
# Usage: scripts/benchmark-scan.sh [--keep] [--runs N] [--files N] [WORKDIR]
#   WORKDIR   where the tree is generated (WORKDIR/Container). It is reused when it holds a
#             marker for the same file count, and is never deleted by the script.
#             Without it a temporary directory is used and removed at the end unless --keep.
#   --keep    keep the temporary tree (the path is printed).
#   --runs N  repetitions per command (default 5; the median is reported).
#   --files N number of regular files in the tree (default 200000).
set -euo pipefail

runs=5
files=200000
keep=0
workdir=""
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) keep=1 ;;
        --runs) runs="$2"; shift ;;
        --files) files="$2"; shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        -*) echo "unknown option: $1" >&2; exit 2 ;;
        *) workdir="$1" ;;
    esac
    shift
done

for tool in python3 du getfattr /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "missing: $tool (Debian: apt-get install python3 coreutils attr time)" >&2; exit 2; }
done
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
fi

repo="$(cd "$(dirname "$0")/.." && pwd)"

# --- build -----------------------------------------------------------------------------
revision="$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
echo "== build (release, --scratch-path .build-bench) of $repo at $revision"
if ! build_log="$(cd "$repo" && swift build -c release --scratch-path .build-bench --product sandbox-audit 2>&1)"; then
    printf '%s\n' "$build_log" | tail -n 30 >&2
    echo "build failed" >&2
    exit 2
fi
bin="$(cd "$repo" && swift build -c release --scratch-path .build-bench --show-bin-path)/sandbox-audit"
[ -x "$bin" ] || { echo "build produced no $bin" >&2; exit 2; }

# --- tree ------------------------------------------------------------------------------
temporary=0
if [ -z "$workdir" ]; then
    workdir="$(mktemp -d "${TMPDIR:-/tmp}/sandbox-audit-bench.XXXXXX")"
    temporary=1
fi
mkdir -p "$workdir"
workdir="$(cd "$workdir" && pwd)"
tree="$workdir/Container"
marker="$workdir/.benchmark-tree"
measure="$workdir/.measure"
want="sandbox-audit benchmark tree v1 files=$files"

cleanup() {
    rm -rf "$measure"
    if [ "$temporary" = 1 ] && [ "$keep" = 0 ]; then
        echo "== removing $workdir"
        rm -rf "$workdir"
    else
        echo "== tree kept at $tree ($(du -sh "$workdir" 2>/dev/null | cut -f1)); remove with: rm -rf '$workdir'"
    fi
}
trap cleanup EXIT

if [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ]; then
    echo "== reusing tree $tree"
else
    if [ -e "$tree" ] || [ -e "$marker" ]; then
        echo "$workdir holds a tree without a matching marker ($want); remove it or pick another directory" >&2
        exit 2
    fi
    echo "== generating $files files in $tree"
    start=$(date +%s)
    python3 - "$tree" "$files" <<'PY'
import os, random, sys, time

root, total = sys.argv[1], int(sys.argv[2])
rng = random.Random(20240601)
EXCLUDE = "user.com.apple.metadata:com_apple_backup_excludeItem"
LEGACY = "user.com.apple.MobileBackup"
CANONICAL = bytes.fromhex(
    "62706c69737430305f1011636f6d2e6170706c652e6261636b75706408000000000000010100000000000000"
    "010000000000000000000000000000001c")
assert len(CANONICAL) == 61
BLOB = os.urandom(64 * 1024)
now = time.time()

def size_of():
    r = rng.random()
    if r < 0.65: return rng.randint(1, 1024)                # tiny: plists, json, tokens
    if r < 0.95: return rng.randint(1025, 8 * 1024)          # small
    if r < 0.995: return rng.randint(8 * 1024, 64 * 1024)    # medium (first 4 KiB written, rest sparse)
    return rng.randint(64 * 1024, 4 * 1024 * 1024)           # large (sparse)

def write_file(path, size):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        if size <= 8 * 1024:
            os.write(fd, BLOB[:size])
        else:
            os.write(fd, BLOB[:4096])
            os.ftruncate(fd, size)
    finally:
        os.close(fd)

EXT = [".json", ".plist", ".dat", ".db", ".jpg", ".png", ".cache", ".txt", ".bin", ".sqlite-wal"]
all_files, all_dirs = [], []

def grow(path, depth, budget, maxdepth):
    """Fill `path` with `budget` files: ~100-200 per directory, nested up to `maxdepth`."""
    os.makedirs(path, exist_ok=True)
    all_dirs.append((path, depth))
    if budget <= 220 or depth >= maxdepth:
        here = budget
    else:
        here = min(budget, rng.randint(0, 120))
    for i in range(here):
        p = os.path.join(path, "f%05d%s" % (i, rng.choice(EXT)))
        write_file(p, size_of())
        all_files.append((p, depth))
    rest = budget - here
    if rest <= 0:
        return
    children = max(2, min(12, rest // 1500 if depth < maxdepth - 2 else rest // 150))
    cuts = sorted(rng.randint(0, rest) for _ in range(children - 1))
    parts = [b - a for a, b in zip([0] + cuts, cuts + [rest])]
    for j, part in enumerate(parts):
        if part:
            grow(os.path.join(path, "d%02d" % j), depth + 1, part, maxdepth)

zones = [  # (relative path, share of files, nesting below the zone)
    ("Documents", 0.30, 4),
    ("Library/Application Support", 0.25, 4),
    ("Library/Caches", 0.28, 4),
    ("Library/Preferences", 0.002, 1),
    ("tmp", 0.168, 3),
]
budgets = [int(total * share) for _, share, _ in zones]
budgets[0] += total - sum(budgets)
for (rel, _, nest), budget in zip(zones, budgets):
    grow(os.path.join(root, rel), 0, budget, nest)

# Exclusions: a handful of directories, and ~2% of the files one by one.
inner = [d for d, depth in all_dirs if depth >= 1]
for d in rng.sample(inner, min(8, len(inner))):
    os.setxattr(d, EXCLUDE, CANONICAL, follow_symlinks=False)
for p, _ in rng.sample(all_files, len(all_files) // 50):
    os.setxattr(p, EXCLUDE, CANONICAL, follow_symlinks=False)
# A few legacy attributes and unrelated attributes, so the name lists are not all empty.
for p, _ in rng.sample(all_files, min(12, len(all_files))):
    os.setxattr(p, LEGACY, b"\x01", follow_symlinks=False)
for p, _ in rng.sample(all_files, len(all_files) // 200):
    os.setxattr(p, "user.xdg.origin.url", b"https://example.com/x", follow_symlinks=False)

# Old temporary files.
for p, _ in all_files:
    if p.startswith(os.path.join(root, "tmp") + "/") and rng.random() < 0.1:
        t = now - rng.randint(4, 30) * 86400
        os.utime(p, (t, t))

# Hard links and symlinks (to files, to directories, one dangling, one leaving the container).
for i, (p, _) in enumerate(rng.sample(all_files, min(40, len(all_files)))):
    os.link(p, p + ".hardlink%d" % i)
for i, (p, _) in enumerate(rng.sample(all_files, min(30, len(all_files)))):
    os.symlink(os.path.basename(p), os.path.join(os.path.dirname(p), "link%d" % i))
for i, d in enumerate(rng.sample(inner, min(10, len(inner)))):
    parent = os.path.dirname(d)
    os.symlink(os.path.basename(d), os.path.join(parent, "dirlink%d" % i))
os.symlink("does-not-exist", os.path.join(root, "Documents", "dangling"))
os.symlink("/etc/hostname", os.path.join(root, "Documents", "outside"))

print("   %d files, %d directories" % (len(all_files), len(all_dirs)))
PY
    echo "$want" > "$marker"
    echo "   generated in $(( $(date +%s) - start )) s"
fi

entries=$(find "$tree" | wc -l)
echo "   tree: $entries entries, $(du -sh "$tree" | cut -f1) on disk, $(du -sh --apparent-size "$tree" | cut -f1) apparent"

# --- measure ---------------------------------------------------------------------------
mkdir -p "$measure"
scan_cmd=("$bin" scan --format json "$tree")
du_cmd=(du -s "$tree")
gfp_cmd=(getfattr -R -P -d -m - "$tree")
gf_cmd=(getfattr -R -d -m - "$tree")

# run NAME CMD...: one timed run; appends "seconds maxrss_kb user_s sys_s" to $measure/NAME.
# Exit codes 0 and 1 are accepted for the scan (1 = findings at or above --fail-on).
run() {
    local name="$1"; shift
    local rc=0
    /usr/bin/time -f "%e %M %U %S" -o "$measure/last" "$@" >/dev/null 2>&1 || rc=$?
    if [ "$name" = scan ] && [ "$rc" -gt 1 ]; then
        echo "scan failed with exit code $rc" >&2; "$@" >/dev/null; exit 2
    fi
    tail -n 1 "$measure/last" >> "$measure/$name"
}

echo "== warming the cache"
"${scan_cmd[@]}" > "$measure/scan.json" || [ $? -le 1 ]
python3 - "$measure/scan.json" <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
def find(o, key):
    if isinstance(o, dict):
        if key in o: return o[key]
        for v in o.values():
            r = find(v, key)
            if r is not None: return r
    return None
f = find(d, "findings")
print("   scan output: %s findings" % (len(f) if isinstance(f, list) else "?"))
PY
du -s "$tree" >/dev/null
getfattr -R -P -d -m - "$tree" >/dev/null 2>&1 || true
: > "$measure/scan"; : > "$measure/du"; : > "$measure/gfp"; : > "$measure/gf"

# Busy CPU time of the whole machine, in clock ticks (user nice system irq softirq steal).
busy_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }

echo "== timing, $runs runs each, round-robin (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
busy_before=$(busy_ticks); wall_before=$(date +%s.%N)
for i in $(seq 1 "$runs"); do
    run scan "${scan_cmd[@]}"
    run du "${du_cmd[@]}"
    run gfp "${gfp_cmd[@]}"
    run gf "${gf_cmd[@]}"
    printf '   run %d: scan %ss  du %ss  getfattr -R -P %ss  getfattr -R %ss\n' "$i" \
        "$(tail -n1 "$measure/scan" | cut -d' ' -f1)" "$(tail -n1 "$measure/du" | cut -d' ' -f1)" \
        "$(tail -n1 "$measure/gfp" | cut -d' ' -f1)" "$(tail -n1 "$measure/gf" | cut -d' ' -f1)"
done
busy_after=$(busy_ticks); wall_after=$(date +%s.%N)
echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$measure" "$entries" "$busy_before" "$busy_after" "$wall_before" "$wall_after" "$(getconf CLK_TCK)" <<'PY'
import statistics, sys
m, entries = sys.argv[1], int(sys.argv[2])
busy = (float(sys.argv[4]) - float(sys.argv[3])) / float(sys.argv[7])
wall = float(sys.argv[6]) - float(sys.argv[5])
def col(name, i):
    return [float(line.split()[i]) for line in open(f"{m}/{name}") if line.strip()]
med = {n: statistics.median(col(n, 0)) for n in ("scan", "du", "gfp", "gf")}
rss_mb = max(col("scan", 1)) / 1024
ratio_du = med["scan"] / med["du"] if med["du"] else float("inf")
ratio_gfp = med["scan"] / med["gfp"] if med["gfp"] else float("inf")
ratio_gf = med["scan"] / med["gf"] if med["gf"] else float("inf")
print()
print("| command                          | median s | scan / this |")
print("|----------------------------------|---------:|------------:|")
print("| sandbox-audit scan --format json | %8.2f |             |" % med["scan"])
print("| du -s                            | %8.2f | %10.2fx |" % (med["du"], ratio_du))
print("| getfattr -R -P -d -m -           | %8.2f | %10.2fx |" % (med["gfp"], ratio_gfp))
print("| getfattr -R -d -m -              | %8.2f | %10.2fx |" % (med["gf"], ratio_gf))
print()
ours = sum(sum(col(n, 2)) + sum(col(n, 3)) for n in ("scan", "du", "gfp", "gf"))
other = max(0.0, busy - ours) / wall if wall > 0 else 0.0
print("CPU used by other processes while timing: %.2f cores on average%s" % (other,
      "  (DISTURBED: rerun on a quiet machine)" if other > 0.15 else ""))
print("entries: %d   scan peak RSS: %.1f MB (%.0f bytes per entry)" % (entries, rss_mb, rss_mb * 1048576 / entries))
time_ok = ratio_gfp <= 1.5
mem_ok = rss_mb <= 200
print("bar: scan <= 1.5x getfattr -R -P: %s (%.2fx)" % ("PASS" if time_ok else "FAIL", ratio_gfp))
print("bar: scan peak RSS <= 200 MB:     %s (%.1f MB)" % ("PASS" if mem_ok else "FAIL", rss_mb))
open(f"{m}/verdict", "w").write("pass" if time_ok and mem_ok else "fail")
PY

[ "$(cat "$measure/verdict")" = pass ]
