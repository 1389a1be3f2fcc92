#!/usr/bin/env bash
# No compiler warning in the project's own code: builds the package and its tests
# (`swift build --build-tests`, output shown as it comes) and fails, listing them, when the
# compiler warns about a file under Sources/ or Tests/ (the dependencies' warnings are theirs).
# `scripts/setup.sh test` runs it before the suite. The compiler warns only about the files it
# compiles, so on an incremental build it checks what changed; CI's fresh build checks every file.
#
#   scripts/check-warnings.sh [SWIFT BUILD OPTIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift build --build-tests "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || exit "$status"
root=$(pwd -P)
# `PATH:LINE:COLUMN: warning: …`, the path the compiler was given: this checkout's.
warnings=$(grep -E "^($root|$PWD)/(Sources|Tests)/[^:]+:[0-9]+:[0-9]+: warning: " "$log" | sort -u || true)
if [ -n "$warnings" ]; then
    echo "check-warnings: $(printf '%s\n' "$warnings" | wc -l | tr -d ' ') compiler warning(s) in Sources/ or Tests/:" >&2
    printf '%s\n' "$warnings" >&2
    exit 1
fi
echo "check-warnings: no compiler warning in Sources/ or Tests/"
