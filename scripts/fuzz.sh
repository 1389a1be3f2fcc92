#!/usr/bin/env bash
# Mutation fuzzing of every parser that reads input, and of the commands that act on it (Linux;
# not run by CI). The fuzzer is scripts/fuzz.py; this wrapper builds the binary when missing and
# keeps the work folder only on failure.
#
# Builds hostile inputs from valid seeds and runs the built binary on each, under a memory and
# a time cap. The targets, and what each builds, are declared in scripts/fuzz.py beside each
# target; --help lists them (fuzz.py --list-targets), and `fuzz.py --coverage` prints, as JSON,
# which subcommands, report formats and policy sections each exercises (a test holds every one
# covered).
# A case fails when the binary is killed by a signal or exits other than 0, 1 or 2 (crash),
# runs past --timeout (hang: killed then), or its peak RSS passes --budget-mb (over budget); when
# a rewrite loses data (`exclude --carrier sidecar` losing anything but the exclude attribute;
# exclude or include changing an item's bytes or a ._NAME that is not AppleDouble); when xcode,
# github, codeclimate or sarif output holds a raw ESC or a bidirectional control (U+202A-U+202E,
# U+2066-U+2069) from a name (raw-control), or a line a name began (line-injection); and when
# `config show`'s output, given back to it, does not print the same (roundtrip).
# Failing inputs are kept in OUT/failures/ (with WHY.txt: the command, exit, time, memory, and
# how to replay the case). A target whose tool is missing (Python's sqlite3 or cryptography, user
# extended attributes) is skipped, and the run says so. Prints the counts per failure kind and
# per target; exits 1 when anything failed, 2 on a usage error.
#
# Usage: scripts/fuzz.sh [--duration SECONDS] [--seed N] [--out DIR] [--timeout S]
#                        [--budget-mb MB] [--mem-mb MB] [--only TARGET[,TARGET]] [--bin PATH]
#                        [--cases N]
#   --duration  total running time (default 120)
#   --seed      random seed (default: time); the same seed replays the same cases
#   --out       work and failure folder (default: a temporary folder, kept only on failure)
#   --timeout   seconds per run before it counts as a hang (default 10)
#   --budget-mb peak RSS per run before it counts as over budget (default 300)
#   --mem-mb    address-space cap per run, so a runaway allocation dies fast (default 4096)
#   --only      restrict to some targets
#   --bin       the binary (default .build/debug/sandbox-audit, built when missing)
#   --cases     stop after N cases (with the same --seed and --only: replays a case WHY.txt names)
set -euo pipefail

duration=120
seed=""
out=""
timeout_s=10
budget=300
mem=4096
only=""
bin=""
cases=0
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
        --cases) cases="$2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
                   echo; echo "Targets:"; python3 "$(dirname "$0")/fuzz.py" --list-targets; exit 0 ;;
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
    --budget-mb "$budget" --mem-mb "$mem" --only "$only" --cases "$cases"
rc=$?
set -e
if [ $rc -eq 0 ] && [ $keep_out -eq 0 ]; then rm -rf "$out"; else echo "fuzz: kept $out"; fi
exit $rc
