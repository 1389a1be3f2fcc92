#!/usr/bin/env bash
# Mutation fuzzing of every parser that reads input, and of the commands that act on it (Linux;
# not run by CI). The fuzzer is scripts/fuzz.py; this wrapper builds the binary when missing and
# keeps the work folder only on failure.
#
# Builds hostile inputs from valid seeds and runs the built binary on each, under a memory and
# a time cap. Targets:
#   xattr      the exclude attribute's value (binary/XML plists, reference bombs)
#   sidecar    a ._NAME AppleDouble sidecar (entries, ATTR block, shared ranges)
#   identity   .com.apple.mobile_container_manager.metadata.plist
#   appdatainfo  NAME.xcappdata/AppDataInfo.plist
#   prefs      a Library/Preferences plist (parsed: the policy lowers warningSize)
#   tar        a pax tar with SCHILY.xattr records and a ._NAME member (header bytes mutated)
#   zip        a Finder-style zip with __MACOSX sidecars
#   yaml       the .sandbox-audit.yml policy file
#   glob       the policy's globs in every key (ignore, paths, budgets.paths, owners, protection):
#              random stars, `**`, sets and long patterns, aliased many times, on long names and
#              deep chains
#   backup     a backup folder: mutated Files rows (NUL, non-UTF-8, climbing, huge paths, flags,
#              domains), MBFile blobs (mutated, hostile plists, Size near 2^63), Manifest.db bytes,
#              Files as a view (recursive, huge strings), Manifest.db a symlink/folder/FIFO/sparse
#   encrypted  an encrypted backup (keybag TLVs, ITER/DPIC counts, WPKY, ManifestKey, encrypted
#              Manifest.db, encrypted files cut or sparse, wrong and non-UTF-8 passwords)
#   device     a Simulator device folder (Data/Application, Data/PluginKitPlugin, Shared/AppGroup
#              with metadata plists: mutated, duplicated, symlinked, replaced by files or FIFOs),
#              scan, inventory and simulate --into --verify
#   simulate   simulate update, restore, purge and all (text and JSON) on a folder, a tgz and a
#              zip with hard links, symlinks, a FIFO, exclusions and sidecars, and --into a fresh
#              or empty folder with --verify
#   huge       sizes near 2^63: GNU sparse tar members adding past 2^63, base-256 tar sizes,
#              sparse files as large as the file system takes
#   deep       deep-and-wide archives (tar.gz, tar.xz, zip): up to 16,000 folders deep, up to
#              20,000 files at the bottom
#   appinfo    --app-info: the app's Info.plist mutated, hostile, another app's or an App Clip's,
#              a folder, a FIFO or a symlink, on a container that names the app and one that does not
#   deviceset  --simulator --device-set: device.plists mutated or hostile (control characters and
#              U+202E in names), device folders and data, Containers, Data/Application and
#              containers replaced by symlinks, files or FIFOs, two data containers of the app,
#              flavour apps with extensions, a bundle's Info.plist mutated
#   xcrun      a fake xcrun first on PATH for --simulator: its listapps output mutated, a binary
#              bomb, deeply nested text, 5 MB, non-zero exits (the hanging and stopped xcrun,
#              which take the 30 s deadline, are held by XcrunDeadlineTests instead)
#   compare    baselines and scan reports read back: `compare` (text, markdown, json,
#              --fail-on-growth) and `scan --baseline`, on mutated JSON (numbers 2^64, 1e400, 1.5,
#              true, strings for numbers, objects for lists, deep nesting, cut text, NUL bytes,
#              sparse files, unknown versions, hostile names)
#   ncdu       the ncdu export of containers and archives with hostile names (bytes that are
#              not UTF-8, backslashes, quotes, control characters, a file and members below it,
#              ./ and // member paths, deep chains)
# Commands run: scan (text and markdown), inventory, simulate, attributes (and exclude on sidecars).
# A case fails when the binary is killed by a signal or exits other than 0, 1 or 2 (crash),
# runs past --timeout (hang: killed then), or its peak RSS passes --budget-mb (over budget); and
# when `exclude --carrier sidecar` rewrites a sidecar losing anything but the exclude attribute.
# Failing inputs are kept in OUT/failures/ (with WHY.txt: the command, exit, time, memory). A
# target whose tool is missing (Python's sqlite3 or cryptography, user extended attributes) is
# skipped, and the run says so. Prints the counts per failure kind and per target; exits 1 when
# anything failed, 2 on a usage error.
#
# Usage: scripts/fuzz.sh [--duration SECONDS] [--seed N] [--out DIR] [--timeout S]
#                        [--budget-mb MB] [--mem-mb MB] [--only TARGET[,TARGET]] [--bin PATH]
#   --duration  total running time (default 120)
#   --seed      random seed (default: time); the same seed replays the same cases
#   --out       work and failure folder (default: a temporary folder, kept only on failure)
#   --timeout   seconds per run before it counts as a hang (default 10)
#   --budget-mb peak RSS per run before it counts as over budget (default 300)
#   --mem-mb    address-space cap per run, so a runaway allocation dies fast (default 4096)
#   --only      restrict to some targets
#   --bin       the binary (default .build/debug/sandbox-audit, built when missing)
set -euo pipefail

duration=120
seed=""
out=""
timeout_s=10
budget=300
mem=4096
only=""
bin=""
while [ $# -gt 0 ]; do
    case "$1" in
        --duration) duration="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --timeout) timeout_s="$2"; shift 2 ;;
        --budget-mb) budget="$2"; shift 2 ;;
        --mem-mb) mem="$2"; shift 2 ;;
        --only) only="$2"; shift 2 ;;
        --bin) bin="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
        *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
if [ -z "$bin" ]; then
    bin=.build/debug/sandbox-audit
    [ -x "$bin" ] || swift build >&2
fi
[ -x "$bin" ] || { echo "fuzz.sh: no binary at $bin" >&2; exit 2; }
command -v python3 >/dev/null || { echo "fuzz.sh: python3 is required" >&2; exit 2; }
[ -n "$seed" ] || seed=$(date +%s)
keep_out=1
if [ -z "$out" ]; then out=$(mktemp -d /tmp/sandbox-audit-fuzz.XXXXXX); keep_out=0; fi
mkdir -p "$out"

set +e
python3 scripts/fuzz.py --bin "$(realpath "$bin")" --out "$out" --duration "$duration" --seed "$seed" --timeout "$timeout_s" \
    --budget-mb "$budget" --mem-mb "$mem" --only "$only"
rc=$?
set -e
if [ $rc -eq 0 ] && [ $keep_out -eq 0 ]; then rm -rf "$out"; else echo "fuzz: kept $out"; fi
exit $rc
